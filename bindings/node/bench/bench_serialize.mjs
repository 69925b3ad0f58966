// Per-call time of one typical serialize (a failed tool call's envelope to an
// Anthropic tool_result message) through the toolerr Node binding, beside the
// same message written plainly with JSON.stringify and beside the Vercel AI SDK
// (ai + @ai-sdk/anthropic) building the Anthropic request for the same failed
// tool result (doGenerate with an in-memory fetch that captures the body).
// Run by scripts/bench-bindings.sh.
import * as toolerr from '../index.js';
import { createAnthropic } from '@ai-sdk/anthropic';

const env = { code: 'TIMEOUT', details: { attempt: 1, tool: 'get_weather' },
  message: 'The get_weather tool timed out after 10 seconds.', retryable: true, source: 'tool' };
const outcome = [{ callId: 'toolu_01', name: 'get_weather', error: env }];
const raw = new TextEncoder().encode(JSON.stringify({ op: 'serialize', format: 'anthropic', ...{ results: [
  { call: { id: 'toolu_01', name: 'get_weather' }, error: env }] } }));

function plain() {
  return [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: JSON.stringify(env), is_error: true }] }];
}

let captured;
const stop = new Error('captured');
const model = createAnthropic({ apiKey: 'bench', fetch: async (_url, init) => { captured = init.body; throw stop; } })('claude-sonnet-4-5');
const prompt = [{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_01', toolName: 'get_weather',
  output: { type: 'error-json', value: env } }] }];
async function peer() {
  try { await model.doGenerate({ prompt }); } catch (e) { if (e !== stop && e.cause !== stop) throw e; }
}

// Best of 3 rounds of n calls each, after a warm-up: the least disturbed figure.
async function time(fn, n) {
  for (let i = 0; i < n / 10; i++) await fn();
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await fn();
    best = Math.min(best, (performance.now() - t0) * 1000 / n);
  }
  return best;
}
const timeSync = (fn, n) => {
  for (let i = 0; i < n / 10; i++) fn();
  let best = Infinity;
  for (let r = 0; r < 3; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, (performance.now() - t0) * 1000 / n);
  }
  return best;
};

// the same bytes: toolerr's content is the canonical envelope, as JSON.stringify of the sorted literal
if (toolerr.toAnthropic(outcome)[0].content[0].content !== plain()[0].content[0].content) throw new Error('outputs differ');
await peer();
if (!JSON.parse(captured).messages[0].content[0].is_error) throw new Error('peer built no is_error');

const n = Number(process.env.BENCH_CALLS || 100000);
// V8 compiles wasm in a baseline tier first and optimizes hot functions later: warm everything up first.
for (let i = 0; i < 50000; i++) { toolerr.toAnthropic(outcome); toolerr.invokeBytes(raw); plain(); }
const api = timeSync(() => toolerr.toAnthropic(outcome), n);
const boundary = timeSync(() => toolerr.invokeBytes(raw), n);
const base = timeSync(plain, n * 10);
const ai = await time(peer, n / 4);
const row = (name, us) => console.log(`${name.padEnd(48)} ${us.toFixed(2).padStart(9)} us/call ${(us / base).toFixed(1).padStart(8)}x plain`);
console.log(`node ${process.version}: one failed envelope -> Anthropic tool_result message`);
row('toolerr toAnthropic (API)', api);
row('  of which invokeBytes (wasm boundary + core)', boundary);
row('plain JSON.stringify', base);
row('Vercel AI SDK doGenerate (request built)', ai);
console.log(`goal <= 3x plain: ${api <= 3 * base ? 'met' : 'missed'}; faster than the AI SDK: ${api < ai ? 'yes' : 'no'} (${(ai / api).toFixed(2)}x)`);
