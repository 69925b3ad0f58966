// A loopback HTTP server that plays a model provider and a search service,
// the JavaScript twin of bindings/python/tests_frameworks/loopback.py.
//
// The frameworks under test run their own agent loops with the real provider
// SDKs and provider packages (openai, @anthropic-ai/sdk, @ai-sdk/*,
// @langchain/*), whose base URL points here. The server answers each API in
// its own published shape and records every request body, so a test asserts
// on the exact bytes the SDK sent:
//
// - POST /v1/chat/completions (OpenAI Chat Completions), POST /v1/responses
//   (OpenAI Responses), POST /v1/messages (Anthropic Messages), POST
//   /v1beta/models/{model}:generateContent (Gemini);
// - GET /search: seed 000's search tool, answering the statuses of its trace
//   (503, 503, 400 by default) and repeating the last.
//
// The scripted model is the same for every API: with no tool result in the
// request it calls search with {"q": "flights", "max_results": 500}; when the
// latest tool result is an envelope (its text, or Gemini's response.error)
// with retryable false it stops with a text answer naming the code; on
// anything else (a retryable envelope, or free text such as "Please try
// again.") it calls search again, so ambiguous feedback loops and a clear
// code ends the run. After bound model requests it stops whatever it reads.
import { createServer } from 'node:http';

export const ARGS = { q: 'flights', max_results: 500 };
export const SEED_TRACE = [
  [503, { error: 'search backend unavailable' }],
  [503, { error: 'search backend unavailable' }],
  [400, { error: "invalid argument: 'max_results' must be at most 50" }],
];
export const FIVE = ['code', 'details', 'message', 'retryable', 'source'];

const routes = [['chat', /\/chat\/completions$/], ['responses', /\/responses$/], ['anthropic', /\/messages$/],
  ['gemini', /:(stream)?[gG]enerateContent$/]];

const text = (c) => (Array.isArray(c) ? c.map((p) => (p && typeof p === 'object' ? String(p.text ?? '') : '')).join('') : c == null ? '' : String(c));

/** [found, value] of the latest tool result in a model request: its text, or Gemini's functionResponse.response. */
export function toolResult(api, body) {
  if (api === 'chat') {
    const msgs = (body.messages ?? []).filter((m) => m.role === 'tool');
    return msgs.length ? [true, text(msgs.at(-1).content)] : [false, null];
  }
  if (api === 'responses') {
    const items = Array.isArray(body.input) ? body.input.filter((i) => i?.type === 'function_call_output') : [];
    return items.length ? [true, text(items.at(-1).output)] : [false, null];
  }
  if (api === 'anthropic') {
    const blocks = (body.messages ?? []).filter((m) => m.role === 'user' && Array.isArray(m.content))
      .flatMap((m) => m.content).filter((b) => b.type === 'tool_result');
    return blocks.length ? [true, text(blocks.at(-1).content)] : [false, null];
  }
  const parts = (body.contents ?? []).flatMap((c) => c.parts ?? []).filter((p) => p.functionResponse);
  return parts.length ? [true, parts.at(-1).functionResponse.response] : [false, null];
}

/** The envelope a tool result carries, if any: its JSON text, or a Gemini response's error (or output) member. */
export function envelopeIn(value) {
  let v = value;
  for (let i = 0; i < 3; i++) { // a Gemini response may hold the envelope under error, or under error.details
    if (v && typeof v === 'object' && !('code' in v)) v = v.error ?? v.output ?? v.result ?? v.details ?? v.content;
    if (typeof v === 'string') {
      try { v = JSON.parse(v); } catch { return null; }
    }
  }
  return v && typeof v === 'object' && FIVE.every((k) => k in v) ? v : null;
}

function decide(api, body, n, bound) {
  const [found, value] = toolResult(api, body);
  if (!found) return null;
  const env = envelopeIn(value);
  if (env && env.retryable === false) return `stopped: ${env.code}`;
  if (n >= bound) return 'stopped: bound';
  return null;
}

function reply(api, n, answer, model) {
  const callId = `call_${n}`;
  if (api === 'chat') {
    const msg = { role: 'assistant', content: answer };
    if (answer === null) msg.tool_calls = [{ id: callId, type: 'function', function: { name: 'search', arguments: JSON.stringify(ARGS) } }];
    return { id: `chatcmpl-${n}`, object: 'chat.completion', created: 0, model,
      choices: [{ index: 0, message: msg, finish_reason: answer ? 'stop' : 'tool_calls', logprobs: null }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } };
  }
  if (api === 'responses') {
    const out = answer === null
      ? { type: 'function_call', id: `fc_${n}`, call_id: callId, name: 'search', arguments: JSON.stringify(ARGS), status: 'completed' }
      : { type: 'message', id: `msg_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: answer, annotations: [] }] };
    return { id: `resp_${n}`, object: 'response', created_at: 0, status: 'completed', model, output: [out],
      parallel_tool_calls: true, tool_choice: 'auto', tools: [],
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } };
  }
  if (api === 'anthropic') {
    const block = answer === null ? { type: 'tool_use', id: `toolu_${String(n).padStart(2, '0')}`, name: 'search', input: ARGS } : { type: 'text', text: answer };
    return { id: `msg_${n}`, type: 'message', role: 'assistant', model, content: [block],
      stop_reason: answer === null ? 'tool_use' : 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 } };
  }
  const part = answer === null ? { functionCall: { name: 'search', args: ARGS } } : { text: answer };
  return { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, modelVersion: model };
}

/**
 * Starts the server on 127.0.0.1 (an ephemeral port). Resolves to
 * {url, searchUrl, requests, modelRequests(api?), searches(), close()}.
 * options: trace ([[status, body], ...]), bound (model requests before it stops, default 8).
 */
export async function serve({ trace = SEED_TRACE, bound = 8 } = {}) {
  const requests = [];
  const lb = {
    requests,
    modelRequests: (api) => requests.filter((r) => r.api !== 'search' && (!api || r.api === api)).map((r) => r.body),
    searches: () => requests.filter((r) => r.api === 'search').map((r) => r.path),
  };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const u = new URL(req.url, 'http://127.0.0.1');
      const send = (status, obj, sse = false) => {
        let data = JSON.stringify(obj);
        if (sse) data = `data: ${data}\r\n\r\n`;
        res.writeHead(status, { 'content-type': sse ? 'text/event-stream' : 'application/json', 'content-length': Buffer.byteLength(data) });
        res.end(data);
      };
      if (req.method === 'GET') {
        if (u.pathname !== '/search') return send(404, { error: 'not found' });
        const n = lb.searches().length;
        requests.push({ api: 'search', path: req.url, body: null });
        const [status, body] = trace[Math.min(n, trace.length - 1)];
        if (status === 200) return send(200, { results: Array.from({ length: Number(u.searchParams.get('max_results') ?? 3) }, (_, i) => `flight ${i}`) });
        return send(status, body);
      }
      const api = routes.find(([, rx]) => rx.test(u.pathname))?.[0];
      if (!api) return send(404, { error: 'not found' });
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      requests.push({ api, path: req.url, body });
      const n = lb.modelRequests().length;
      const model = String(body.model ?? u.pathname.split('/models/').at(-1).split(':')[0]);
      send(200, reply(api, n, decide(api, body, n, bound), model), u.pathname.includes('stream'));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  lb.url = `http://127.0.0.1:${server.address().port}`;
  lb.searchUrl = `${lb.url}/search`;
  lb.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); });
  return lb;
}

/**
 * Seed 000's search tool as a plain function, as a JavaScript tool is commonly
 * written: a failed fetch throws an Error whose message carries the status and
 * the service's text, with status, headers and body on it (as an HTTP client's
 * error carries them: axios's AxiosError, ky's HTTPError). throwResponse
 * instead throws the fetch Response itself (`if (!r.ok) throw r`).
 */
export function searchFn(lb, { throwResponse = false } = {}) {
  return async function search({ q, max_results }) {
    const r = await fetch(`${lb.searchUrl}?${new URLSearchParams({ q, max_results: String(max_results) })}`);
    if (r.ok) return r.text();
    if (throwResponse) throw r;
    const body = await r.text();
    throw Object.assign(new Error(`search failed: HTTP ${r.status} ${body} (${r.url})`), { status: r.status, headers: r.headers, body });
  };
}

/**
 * Runs bindings/node/examples/frameworks/NAME with node and args; resolves to
 * its stdout lines. The example is copied under node_modules/.examples/ first,
 * so its imports resolve as in a project that installed toolerr and the
 * framework (the frameworks are installed here, not beside the binding). The
 * keys its SDKs read from the environment, as a user's would, are
 * placeholders (no real key set where the tests run reaches the loopback).
 */
export async function runExample(name, args) {
  const { copyFile, mkdir } = await import('node:fs/promises');
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const dir = new URL('./node_modules/.examples/', import.meta.url);
  await mkdir(dir, { recursive: true });
  const file = new URL(name, dir);
  await copyFile(new URL(`../examples/frameworks/${name}`, import.meta.url), file);
  const { stdout } = await promisify(execFile)(process.execPath, ['--disable-warning=ExperimentalWarning', file.pathname, ...args],
    { timeout: 120_000, env: { ...process.env, OPENAI_API_KEY: 'sk-test', ANTHROPIC_API_KEY: 'sk-ant-test' } });
  return stdout.trim().split('\n');
}
