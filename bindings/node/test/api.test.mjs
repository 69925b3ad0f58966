// The thin request builders: each reaches its op and returns the shapes index.d.ts declares.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as toolerr from '../index.js';

const ERR = { code: 'TIMEOUT', details: { tool: 'search' }, message: 'Search timed out after 10 s.', retryable: true, source: 'tool' };
const FORMATS = ['openai-chat', 'openai-responses', 'anthropic', 'gemini', 'bedrock', 'mcp'];

test('classifyHttp reads Retry-After', () => {
  const e = toolerr.classifyHttp(429, { 'Retry-After': '7' }, undefined, { tool: 'get_weather' });
  assert.deepEqual([e.code, e.retryable, e.details.retry_after_seconds], ['RATE_LIMITED', true, 7]);
});

test('classifyHttp with a tool is the tool\'s failure unless source says otherwise', () => {
  let e = toolerr.classifyHttp(503, {}, undefined, { tool: 'search' });
  assert.deepEqual([e.source, e.message], ['tool', 'The search tool is unavailable (HTTP 503); retry later.']);
  e = toolerr.classifyHttp(400, {}, { error: { message: 'max_results must be at most 50' } }, { tool: 'search' });
  assert.deepEqual([e.code, e.details.tool_message, e.details.provider], ['INVALID_ARGS', 'max_results must be at most 50.', undefined]);
  assert.equal(toolerr.classifyHttp(503, {}, undefined, { tool: 'search', source: 'provider' }).source, 'provider');
});

test('classifyResponse reads a fetch Response and an SDK error alike', () => {
  const body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
  const headers = new Headers({ 'content-type': 'application/json' });
  const direct = toolerr.classifyResponse({ status: 529, headers }, { bodyText: body, provider: 'anthropic' });
  // @anthropic-ai/sdk APIError: .status, .headers, .error (the parsed body)
  const sdk = Object.assign(new Error('529 Overloaded'), { status: 529, headers, error: JSON.parse(body) });
  assert.deepEqual(toolerr.classifyResponse(sdk, { provider: 'anthropic' }), direct);
  assert.deepEqual([direct.code, direct.retryable, direct.details.status], ['OVERLOADED', true, 529]);
});

test('classifyResponse reads a @google/genai ApiError (JSON in .message)', () => {
  const body = { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } };
  const err = Object.assign(new Error(JSON.stringify(body)), { name: 'ApiError', status: 503 });
  const e = toolerr.classifyResponse(err, { provider: 'gemini' });
  assert.deepEqual([e.retryable, e.details.status], [true, 503]);
});

test('classifyException never leaks the stack or a secret', () => {
  const e = toolerr.classifyException(new TypeError('fetch failed; key=sk-abcdefghijklmnopqrstuvwx'), { tool: 'search' });
  assert.equal(e.source, 'tool');
  assert.ok(!e.message.includes('    at ') && !e.message.includes('sk-abcdefghijklmnopqrstuvwx'), e.message);
});

test('classifyException decides as with the stack, and reads it for an error of no type name', () => {
  // The op reads a stack for the type only when no type is given, and for a cause chain, which a
  // stack of an error without a cause does not print: sending it changes nothing.
  class TimeoutError extends Error { constructor(m) { super(m); this.name = 'TimeoutError'; } }
  for (const err of [new TimeoutError('read timed out'), new RangeError('bad page token'),
    new TypeError('fetch failed; key=sk-abcdefghijklmnopqrstuvwx')]) {
    const withStack = toolerr.invoke({ op: 'classify_exception', tool: 'search',
      exception: { type: err.constructor.name, message: err.message, traceback: err.stack } });
    assert.deepEqual(toolerr.classifyException(err, { tool: 'search' }), withStack);
  }
  const anonymous = new (class extends Error {})('');
  anonymous.stack = 'TimeoutError: read timed out\n    at Socket.onTimeout (node:net:1:1)';
  const e = toolerr.classifyException(anonymous, { tool: 'search' });
  assert.deepEqual([e.code, e.retryable, e.details.exception_type], ['TIMEOUT', true, 'TimeoutError']);
});

test('classifyException reads a transport cause in the Error.cause chain, as fetch throws it', async () => {
  // A port nothing listens on: fetch throws TypeError('fetch failed') with the ECONNREFUSED system error as its
  // cause. It was TOOL_ERROR, not retryable ("do not repeat the same call"), before the chain was sent.
  const net = await import('node:net');
  const srv = net.createServer();
  await new Promise((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address();
  await new Promise((resolve) => srv.close(resolve));
  const err = await fetch(`http://127.0.0.1:${port}/search`).then(() => null, (e) => e);
  assert.ok(err instanceof TypeError && err.cause?.code === 'ECONNREFUSED', String(err?.cause));
  let e = toolerr.classifyException(err, { tool: 'search' });
  assert.deepEqual([e.code, e.retryable, e.details.cause, e.details.exception_type], ['TRANSPORT', true, 'connection_refused', 'TypeError']);
  assert.equal(e.message, 'The search tool could not connect: the connection was refused; retry later.');
  // The runtime classifies a thrown error the same way.
  const r = await new toolerr.Executor({ retry: { max_attempts: 1 } }).call('search', async () => { throw err; });
  assert.deepEqual([r.error.code, r.error.retryable], ['TRANSPORT', true]);
  // A cause that names no transport failure leaves the error TOOL_ERROR, and a cycle ends the chain.
  const loop = new TypeError('bad page token', { cause: new RangeError('page out of range') });
  loop.cause.cause = loop;
  e = toolerr.classifyException(loop, { tool: 'search' });
  assert.deepEqual([e.code, e.retryable, e.details.tool_message], ['TOOL_ERROR', false, 'bad page token.']);
});

// conformance/values: a NaN or an infinity in the caller's value is sent as null (JSON.stringify's rule,
// ECMA-262 SerializeJSONProperty), as Python and Rust send it.
const nonfinite = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity };
const native = (v) => (Array.isArray(v) ? v.map(native)
  : v !== null && typeof v === 'object' ? (Object.keys(v).join() === '$nonfinite' ? nonfinite[v.$nonfinite]
    : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, native(x)]))) : v);
const valuesDir = new URL('../../../conformance/values/', import.meta.url);
for (const file of readdirSync(valuesDir).filter((f) => f.endsWith('.json')).sort()) {
  for (const c of JSON.parse(readFileSync(new URL(file, valuesDir), 'utf8'))) {
    test(`${file}: ${c.description}`, () => {
      const value = native(c.value);
      assert.equal(toolerr.canonicalize(value), c.sent);
      assert.deepEqual(toolerr.invoke({ op: 'canonicalize', value }), JSON.parse(c.sent));
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        assert.deepEqual(toolerr.envelope('TOOL_ERROR', 'failed', { details: value }).details, JSON.parse(c.sent));
      }
    });
  }
}

// conformance/exceptions: the same chain built as each language's own errors (here Error.cause, each error
// of a class of the case's type name, a cause's code as its .code) gives the same decision in every binding.
const chains = new URL('../../../conformance/exceptions/', import.meta.url);
for (const file of readdirSync(chains).filter((f) => f.endsWith('.json')).sort()) {
  for (const c of JSON.parse(readFileSync(new URL(file, chains), 'utf8'))) {
    test(`${file}: ${c.description}`, () => {
      const make = ({ type, message, code }, cause) => {
        const Cls = { [type]: class extends Error {} }[type];
        const e = cause === undefined ? new Cls(message) : new Cls(message, { cause });
        return code === undefined ? e : Object.assign(e, { code });
      };
      const err = [c.error, ...c.causes].reduceRight((cause, e) => make(e, cause), undefined);
      const e = toolerr.classifyException(err, { tool: 'search' });
      assert.deepEqual([e.code, e.retryable, e.details.cause], [c.expect.code, c.expect.retryable, c.expect.cause]);
    });
  }
}

test("classifyException reads a cause's code: an AggregateError of refused connections has no message", () => {
  // fetch to a host of two addresses (localhost: ::1 and 127.0.0.1) that both refuse throws TypeError('fetch
  // failed') caused by AggregateError [ECONNREFUSED], its message empty: the chain said "AggregateError: " and
  // the error was TOOL_ERROR, not retryable. The cause is sent as util.inspect prints it, its code in brackets.
  const refused = () => Object.assign(new Error('connect ECONNREFUSED ::1:9'), { code: 'ECONNREFUSED' });
  const agg = Object.assign(new AggregateError([refused(), refused()], ''), { code: 'ECONNREFUSED' });
  const e = toolerr.classifyException(new TypeError('fetch failed', { cause: agg }), { tool: 'search' });
  assert.deepEqual([e.code, e.retryable, e.details.cause], ['TRANSPORT', true, 'connection_refused']);
  assert.equal(JSON.parse(toolerr.classifyRequestText(new TypeError('fetch failed', { cause: agg }))).exception.traceback,
    'fetch failed\n\nCaused by:\n    AggregateError [ECONNREFUSED]: ');
  // A code that names nothing leaves a cause read by its type and text as before.
  const odd = new TypeError('bad page token', { cause: Object.assign(new RangeError('page out of range'), { code: 'ERR_OUT_OF_RANGE' }) });
  assert.equal(toolerr.classifyException(odd, { tool: 'search' }).code, 'TOOL_ERROR');
});

test('classifyException reads what it can of a cause chain it cannot read whole, and a long cause stays under the limit', () => {
  // Each cause here threw out of classifyException (and out of failureEnvelope's first two tries, so the
  // executor classified the error by its type alone, its message dropped): a cause of no prototype (String()
  // throws), a cause getter that throws, a cause whose message getter throws, a Proxy that throws on every get.
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
  const getter = (name) => Object.defineProperty({}, name, { get() { throw new Error(`${name} getter`); } });
  const unreadable = [Object.create(null), getter('cause'), getter('message'),
    new Proxy({}, { get() { throw new Error('proxy'); } })];
  for (const bad of unreadable) {
    const e = toolerr.classifyException(new TypeError('bad page token', { cause: bad }), { tool: 'search' });
    assert.deepEqual([e.code, e.retryable, e.details.tool_message], ['TOOL_ERROR', false, 'bad page token.']);
    // The links read before the unreadable one still count.
    const mid = refused();
    mid.cause = bad;
    const m = toolerr.classifyException(new TypeError('fetch failed', { cause: mid }), { tool: 'search' });
    assert.deepEqual([m.code, m.details.cause], ['TRANSPORT', 'connection_refused']);
  }
  // A cause whose message is past the core's request limit (32 MiB) made the request too long: it threw
  // INVALID_INPUT. Each cause's line is cut (its first 4,096 characters), so the refused connection still counts.
  const long = refused();
  long.message += ' ' + 'x'.repeat(33 << 20);
  const e = toolerr.classifyException(new TypeError('fetch failed', { cause: long }), { tool: 'search' });
  assert.deepEqual([e.code, e.retryable, e.details.cause], ['TRANSPORT', true, 'connection_refused']);
});

for (const fmt of FORMATS) {
  test(`serialize then parse gives the ${fmt} outcome back`, () => {
    const msgs = toolerr.serialize(fmt, [{ callId: 'call_1', name: 'search', error: ERR }]);
    assert.deepEqual(toolerr.parse(fmt, msgs), [{
      callId: fmt === 'mcp' ? '' : 'call_1', name: fmt === 'gemini' ? 'search' : '', error: ERR }]);
  });
}

test('the to* functions give each vendor shape', () => {
  const o = [{ callId: 'call_1', name: 'search', error: ERR }];
  const [chat] = toolerr.toOpenAIChat(o);
  assert.deepEqual(Object.keys(chat).sort(), ['content', 'role', 'tool_call_id']);
  assert.deepEqual(Object.keys(JSON.parse(chat.content)).sort(), ['code', 'details', 'message', 'retryable', 'source']);
  assert.equal(toolerr.toOpenAIResponses(o)[0].type, 'function_call_output');
  assert.equal(toolerr.toAnthropic(o)[0].content[0].is_error, true);
  assert.ok('error' in toolerr.toGemini(o)[0].parts[0].functionResponse.response);
  assert.equal(toolerr.toBedrock(o)[0].content[0].toolResult.status, 'error');
  assert.equal(toolerr.toMCP(o)[0].isError, true);
});

test('retryDecision never retries a terminal error', () => {
  const bad = toolerr.envelope('INVALID_ARGS', 'city is required');
  assert.equal(toolerr.retryDecision(bad, 1, { draw: 0.5 }).retry, false);
  assert.equal(toolerr.retryDecision(ERR, 1, { draw: 0.5 }).retry, true);
});

test('breaker opens after failures', () => {
  let state = null;
  for (let t = 0; t < 3; t++) state = toolerr.breaker(state, 'failure', { nowMs: 1000 + t, error: ERR }).state;
  assert.equal(toolerr.breaker(state, 'allow', { nowMs: 2000 }).allowed, false);
});

test("classifyException: fetch to a server that closes the connection unanswered is a reset, TRANSPORT retryable", async () => {
  // undici's SocketError 'other side closed' (code UND_ERR_SOCKET, no errno) under TypeError('fetch failed')
  // was TOOL_ERROR, not retryable: a connection the server ended before answering heals as ECONNRESET does.
  const { createServer } = await import('node:net');
  const server = createServer((socket) => socket.once('data', () => socket.end()));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const err = await fetch(`http://127.0.0.1:${server.address().port}/`).then(() => null, (e) => e);
    assert.equal(err?.cause?.code, 'UND_ERR_SOCKET');
    assert.equal(err.cause.message, 'other side closed');
    const e = toolerr.classifyException(err, { tool: 'search' });
    assert.deepEqual([e.code, e.retryable, e.details.cause], ['TRANSPORT', true, 'connection_reset']);
  } finally {
    server.close();
  }
});

// Run on both transports (scripts/test-node.sh runs this file again with
// TOOLERR_NATIVE=1): a wrong type is the same TypeError on each. The wasm path
// made a string's bytes zeros (answering "not valid JSON" for valid JSON) and
// took an Array or Uint8ClampedArray the addon refuses; a hostile toString is
// never called.
test('invokeBytes and invokeText refuse wrong types alike on either transport, never coercing', () => {
  const req = '{"op":"version"}';
  const bytes = Buffer.from(req);
  let called = 0;
  const hostile = { toString() { called++; return req; }, [Symbol.toPrimitive]() { called++; return req; } };
  for (const bad of [req, [...bytes], new Uint8ClampedArray(bytes), new Int8Array(bytes), new Proxy(new Uint8Array(bytes), {}),
    { [Symbol.toStringTag]: 'Uint8Array', length: 2 }, bytes.buffer, hostile, null, undefined, 5]) {
    assert.throws(() => toolerr.invokeBytes(bad), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /invokeBytes\(request\) takes the request's UTF-8 JSON bytes as a Uint8Array/ });
  }
  for (const bad of [bytes, new String(req), hostile, null, undefined, 5, 10n, Symbol('s')]) {
    assert.throws(() => toolerr.invokeText(bad), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE', message: /invokeText\(text\) takes the request's JSON text as a string/ });
  }
  assert.equal(called, 0);
  assert.equal(Buffer.from(toolerr.invokeBytes(bytes)).toString(), '{"ok":{"abi":1,"version":"0.1.0"}}');
  assert.equal(Buffer.from(toolerr.invokeBytes(new Uint8Array(bytes))).toString(), '{"ok":{"abi":1,"version":"0.1.0"}}');
  assert.equal(toolerr.invokeText(req), '{"ok":{"abi":1,"version":"0.1.0"}}');
});
