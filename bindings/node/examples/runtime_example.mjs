// Seed 000's worked example through the runtime: a search tool over HTTP answers 503, 503, then 400.
import * as toolerr from 'toolerr';

const url = process.argv[2]; // the search service (the test starts one on loopback)
if (!url) {
  console.error('usage: node runtime_example.mjs URL (a search service: bindings/python/examples/search_service.py in the clone starts one)');
  process.exit(2);
}
let seed = 7;
const draw = () => (seed = (seed * 16807) % 2147483647) / 2147483647; // a seeded draw, so the output is stable

const x = new toolerr.Executor({ retry: { max_attempts: 3, base_ms: 20 }, draw });
x.addEventListener('decision', ({ detail: d }) => { // every decision is a record from the core
  if (d.kind !== 'retry') return;
  console.log(`attempt ${d.attempt}: ${d.code} -> ${d.allowed ? `retried silently after ${d.delay_ms} ms` : `not retried (${d.reason})`}`);
});
const r = await x.call('search', async ({ signal }) => {
  const resp = await fetch(url, { signal });
  const body = await resp.text();
  if (!resp.ok) throw new toolerr.ToolFailure(toolerr.classifyResponse(resp, { bodyText: body, source: 'tool', tool: 'search' }));
  return JSON.parse(body);
}, { args: { q: 'flights', max_results: 500 } });
console.log('the model gets:', r.error.code, r.error.retryable ? 'retryable' : 'not retryable', 'after', r.attempts, 'calls');
const [msg] = toolerr.toAnthropic([r.outcome('toolu_01', 'search')]); // or toOpenAIChat, toGemini, ...
console.log(msg.content[0].type, 'is_error:', msg.content[0].is_error);
