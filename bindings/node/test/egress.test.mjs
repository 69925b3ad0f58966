// toolerr/egress: the official openai, @anthropic-ai/sdk and @google/genai
// clients with egressFetch() as their fetch, in front of a fake upstream on
// 127.0.0.1: the SDK's own error class on each upstream error (its status
// kept), the upstream hits its own retry rule makes (told by x-should-retry
// and retry-after), the envelope where docs/egress.md says a client reads it,
// the native failure flag at the upstream, stream error events in the SDK's
// own shape and reported, events passed one by one.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import * as toolerr from '../index.js';
import { egressFetch, endpointOf } from '../egress.js';

const ENV = toolerr.envelope('TIMEOUT', 'Weather service timed out.', { source: 'tool' });
const ENV_TEXT = toolerr.canonicalize(ENV);

// The fake upstream: every request answered from script (the last reply
// repeated), each recorded with its raw body.
const up = { script: [], hits: [], gate: null, server: null, url: '' };
const reply = (status, body, headers = {}) => ({ status, body, headers });
const stream = (events, gateAfter = -1) => ({ status: 200, events, gateAfter, headers: {} });
const sse = (...evs) => evs.map(([name, data]) => `${name ? `event: ${name}\n` : ''}data: ${JSON.stringify(data)}\n\n`);

before(async () => {
  up.server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks);
    let body = null;
    try { body = JSON.parse(raw); } catch { /* recorded raw */ }
    up.hits.push({ path: req.url, raw, body });
    const r = up.script[Math.min(up.hits.length, up.script.length) - 1];
    if (!r.events) {
      res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
      res.end(JSON.stringify(r.body));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', ...r.headers });
    for (const [i, ev] of r.events.entries()) {
      if (i === r.gateAfter) up.gateTimedOut = !(await Promise.race([up.gate.promise.then(() => true), sleep(10000).then(() => false)]));
      res.write(ev);
    }
    res.end();
  });
  await new Promise((ok) => up.server.listen(0, '127.0.0.1', ok));
  up.url = `http://127.0.0.1:${up.server.address().port}`;
});
after(() => up.server.close());
beforeEach(() => {
  up.script = [reply(200, {})];
  up.hits = [];
  up.gateTimedOut = false;
  let open;
  up.gate = { promise: new Promise((ok) => { open = ok; }), open: () => open() };
});
const sleep = (ms) => new Promise((ok) => { const t = setTimeout(ok, ms); t.unref?.(); });

const reported = [];
const egress = (o = {}) => egressFetch({ onStreamError: (ev) => reported.push(ev), ...o });
const openai = (maxRetries = 1, o) => new OpenAI({ apiKey: 'sk-test', baseURL: `${up.url}/v1`, maxRetries, fetch: egress(o) });
const anthropic = (maxRetries = 1) => new Anthropic({ apiKey: 'sk-ant-test', baseURL: up.url, maxRetries, fetch: egress() });
// @google/genai retries only with retryOptions: 2 attempts, short waits (its rule: 408, 429, 5xx).
const genai = () => new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: up.url, fetch: egress(),
  retryOptions: { attempts: 2, initialDelay: 0.01, maxDelay: 0.02 } } }).models;

const chat = (c, messages = [{ role: 'user', content: 'Weather in Paris?' }]) => c.chat.completions.create({ model: 'gpt-4o', messages });
const messages = (c, msgs = [{ role: 'user', content: 'Weather in Paris?' }]) =>
  c.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 64, messages: msgs });
const generate = (m, contents = [{ role: 'user', parts: [{ text: 'Weather in Paris?' }] }]) =>
  m.generateContent({ model: 'gemini-2.5-flash', contents });

const openaiError = (message, type, code, param = null) => ({ error: { message, type, param, code } });
const anthropicError = (type, message) => ({ type: 'error', error: { type, message }, request_id: 'req_011CUp' });
const googleError = (code, status, message, details) => ({ error: { code, message, status, ...(details ? { details } : {}) } });

// [sdk, case, upstream reply, the SDK's class, status, envelope code, hits]. Sources:
// https://platform.openai.com/docs/guides/error-codes, https://docs.claude.com/en/api/errors,
// https://ai.google.dev/gemini-api/docs/troubleshooting; classes: openai and @anthropic-ai/sdk
// APIError.generate, @google/genai throwErrorIfNotOK (ApiError with the body as JSON text).
const ERRORS = [
  ['openai', '429 retry-after', reply(429, openaiError('Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1.', 'requests', 'rate_limit_exceeded'), { 'retry-after': '1', 'x-request-id': 'req_1' }), OpenAI.RateLimitError, 429, 'RATE_LIMITED', 2],
  ['openai', '429 quota', reply(429, openaiError('You exceeded your current quota, please check your plan and billing details.', 'insufficient_quota', 'insufficient_quota')), OpenAI.RateLimitError, 429, 'QUOTA_EXHAUSTED', 1],
  ['openai', '400', reply(400, openaiError("Invalid value for 'temperature': must be between 0 and 2.", 'invalid_request_error', 'invalid_value', 'temperature')), OpenAI.BadRequestError, 400, 'INVALID_REQUEST', 1],
  ['openai', '500', reply(500, openaiError('The server had an error while processing your request. Sorry about that!', 'server_error', null)), OpenAI.InternalServerError, 500, 'SERVER_ERROR', 2],
  ['anthropic', '429 retry-after', reply(429, anthropicError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'), { 'retry-after': '1', 'request-id': 'req_1' }), Anthropic.RateLimitError, 429, 'RATE_LIMITED', 2],
  ['anthropic', '529 overloaded', reply(529, anthropicError('overloaded_error', 'Overloaded')), Anthropic.OverloadedError, 529, 'OVERLOADED', 2],
  ['anthropic', '400', reply(400, anthropicError('invalid_request_error', 'max_tokens: Field required')), Anthropic.BadRequestError, 400, 'INVALID_REQUEST', 1],
  ['gemini', '429 RetryInfo', reply(429, googleError(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).', [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1s' }])), null, 429, 'RATE_LIMITED', 2],
  ['gemini', '503 overloaded', reply(503, googleError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.')), null, 503, 'OVERLOADED', 2],
  ['gemini', '400', reply(400, googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received. Unknown name "foo": Cannot find field.')), null, 400, 'INVALID_REQUEST', 1],
];
const CALLS = { openai: () => chat(openai()), anthropic: () => messages(anthropic()), gemini: () => generate(genai()) };

for (const [sdk, name, r, cls, status, code, hits] of ERRORS) {
  test(`${sdk} ${name}: the SDK's own error, its own retries, the envelope`, async () => {
    up.script = [r];
    const e = await CALLS[sdk]().then(() => assert.fail('no error'), (err) => err);
    let env;
    if (sdk === 'gemini') {
      assert.equal(e.name, 'ApiError');
      assert.equal(e.status, status);
      env = JSON.parse(e.message).error.toolerr; // @google/genai puts the body's JSON in the message
    } else {
      assert.equal(Object.getPrototypeOf(e), cls.prototype);
      assert.equal(e.status, status);
      env = sdk === 'openai' ? e.error.toolerr : e.error.error.toolerr;
      assert.equal(e.headers.get('x-should-retry'), String(env.retryable));
      assert.deepEqual(JSON.parse(e.headers.get('x-toolerr-envelope')), env);
      for (const [k, v] of Object.entries(r.headers)) if (k.endsWith('request-id')) assert.equal(e.headers.get(k), v);
      if (name.includes('retry-after')) assert.deepEqual([e.headers.get('retry-after'), e.headers.get('retry-after-ms')], ['1', '1000']);
    }
    assert.equal(env.code, code);
    assert.equal(env.source, 'provider');
    assert.equal(up.hits.length, hits); // the SDK's own retries, and no one else's
  });
}

test('openai obeys x-should-retry false on a billing 429: one hit, not 1 + maxRetries', async () => {
  up.script = [ERRORS[1][2]];
  await assert.rejects(chat(openai(3)), OpenAI.RateLimitError);
  assert.equal(up.hits.length, 1);
});

test('an Anthropic envelope reaches the upstream with is_error', async () => {
  up.script = [reply(200, { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [{ type: 'text', text: 'ok' }],
    stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } })];
  const reports = [];
  const c = new Anthropic({ apiKey: 'k', baseURL: up.url, fetch: egressFetch({ onPrepare: (ep, rep) => reports.push([ep.api, rep]) }) });
  const msg = await messages(c, [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: ENV_TEXT }] }]);
  assert.equal(msg.content[0].text, 'ok');
  assert.deepEqual(up.hits[0].body.messages[2].content[0], { type: 'tool_result', tool_use_id: 'toolu_01', content: ENV_TEXT, is_error: true });
  assert.deepEqual([reports[0][0], reports[0][1].changed, reports[0][1].changes.flags_restored], ['messages', true, 1]);
});

test('a Gemini envelope reaches the upstream under response.error', async () => {
  up.script = [reply(200, { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' }] })];
  const r = await generate(genai(), [
    { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
    { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
    { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: ENV } } }] }]);
  assert.equal(r.text, 'ok');
  assert.match(up.hits[0].path, /^\/v1(beta)?\/models\/gemini-2.5-flash:generateContent$/);
  assert.deepEqual(up.hits[0].body.contents[2].parts, [{ functionResponse: { name: 'get_weather', response: { error: ENV } } }]);
});

test('an OpenAI missing parallel result gets a NO_RESULT failure', async () => {
  up.script = [reply(200, { id: 'c', object: 'chat.completion', created: 1, model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] })];
  const calls = ['Paris', 'Rome'].map((c) => ({ id: `call_${c}`, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city: c }) } }));
  await chat(openai(), [{ role: 'user', content: 'Weather in Paris and Rome?' }, { role: 'assistant', content: null, tool_calls: calls },
    { role: 'tool', tool_call_id: 'call_Paris', content: ENV_TEXT }]);
  const tools = up.hits[0].body.messages.filter((m) => m.role === 'tool');
  assert.deepEqual(tools.map((m) => m.tool_call_id), ['call_Paris', 'call_Rome']);
  assert.equal(tools[0].content, ENV_TEXT);
  assert.equal(JSON.parse(tools[1].content).code, 'NO_RESULT');
});

test('an unchanged body goes byte for byte; an unreadable one as it came', async () => {
  up.script = [reply(200, {})];
  const raw = '{ "model" : "gpt-4o",\n  "messages": [{"role": "user", "content": "hi"}], "seed": 12345678901234567890 }';
  const f = egressFetch();
  assert.equal((await f(`${up.url}/v1/chat/completions`, { method: 'POST', body: raw })).status, 200);
  assert.equal(up.hits[0].raw.toString(), raw);
  up.script = [reply(400, openaiError('We could not parse the JSON body of your request.', 'invalid_request_error', null))];
  const r = await f(new Request(`${up.url}/v1/chat/completions`, { method: 'POST', body: '{not json' }));
  assert.equal(up.hits[1].raw.toString(), '{not json');
  assert.deepEqual([r.status, (await r.json()).error.toolerr.code], [400, 'INVALID_REQUEST']);
});

const ANTHROPIC_STREAM = sse(
  ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }],
  ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Par' } }],
  ['error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }]);

test('an Anthropic stream error event reaches the SDK in its shape and the reporter', async () => {
  up.script = [stream(ANTHROPIC_STREAM)];
  reported.length = 0;
  const texts = [];
  const e = await (async () => {
    for await (const ev of await anthropic(0).messages.create({ model: 'claude-sonnet-4-6', max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'hi' }] })) {
      if (ev.type === 'content_block_delta') texts.push(ev.delta.text);
    }
  })().then(() => assert.fail('no error'), (err) => err);
  assert.deepEqual(texts, ['Par']);
  const env = e.error.error.toolerr;
  assert.deepEqual([env.code, env.retryable, env.details.partial_output], ['OVERLOADED', true, true]);
  assert.equal(reported.length, 1);
  assert.deepEqual([reported[0].endpoint.api, reported[0].event, reported[0].envelope], ['messages', 'error', env]);
});

test('an OpenAI stream error chunk reaches the SDK in its shape and the reporter', async () => {
  const chunk = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: { role: 'assistant', content: 'Par' }, finish_reason: null }] };
  up.script = [stream(sse(['', chunk], ['', openaiError('The server had an error while processing your request.', 'server_error', null)]))];
  reported.length = 0;
  const texts = [];
  const e = await (async () => {
    for await (const c of await openai(0).chat.completions.create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'hi' }] })) texts.push(c.choices[0].delta.content);
  })().then(() => assert.fail('no error'), (err) => err);
  assert.deepEqual(texts, ['Par']);
  assert.ok(e instanceof OpenAI.APIError);
  assert.deepEqual([e.error.toolerr.code, e.error.toolerr.details.partial_output], ['SERVER_ERROR', true]);
  assert.deepEqual([reported.length, reported[0].event, reported[0].envelope.code], [1, '', 'SERVER_ERROR']);
});

test('a stream passes event by event: the client reads each before the upstream writes the next', async () => {
  up.script = [stream(ANTHROPIC_STREAM.slice(0, 3), 1)];
  const r = await egressFetch()(`${up.url}/v1/messages`, { method: 'POST', body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 8, stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
  const seen = [];
  const dec = new TextDecoder();
  for await (const chunk of r.body) {
    seen.push(dec.decode(chunk));
    up.gate.open();
  }
  assert.equal(up.gateTimedOut, false);
  assert.equal(seen[0], ANTHROPIC_STREAM[0]);
  assert.equal(seen.join(''), ANTHROPIC_STREAM.slice(0, 3).join(''));
});

test('a reporter that throws does not break the stream', async () => {
  up.script = [stream(ANTHROPIC_STREAM)];
  const err = console.error;
  const logged = [];
  console.error = (...a) => logged.push(a.join(' '));
  try {
    const r = await egressFetch({ onStreamError: () => { throw new Error('reporter failed'); } })(`${up.url}/v1/messages`, { method: 'POST', body: '{"model":"m","max_tokens":1,"messages":[]}' });
    const text = await r.text();
    assert.equal(text.split('event: ').length - 1, 4);
    assert.match(text, /"toolerr":\{"code":"OVERLOADED"/);
  } finally {
    console.error = err;
  }
  assert.match(logged[0], /onStreamError threw/);
});

const SECRET = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD';
const SECRET_ERROR = `{"error":{"message":"${SECRET}","type":"server_error"}}`;
const CHAT = { method: 'POST', body: '{"model":"gpt-4o","stream":true,"messages":[]}' };
// The body's bytes as a string, a BOM kept (Response.text() strips one).
const bytes = async (r) => Buffer.from(await r.arrayBuffer()).toString('latin1');
const latin1 = (s) => Buffer.from(s).toString('latin1');

test('a BOM before the first event hides no error event; before a passed one it stays', async () => {
  up.script = [stream([`\ufeffdata: ${SECRET_ERROR}\n\n`])];
  let text = await bytes(await egressFetch({ onStreamError: () => {} })(`${up.url}/v1/chat/completions`, CHAT));
  assert.ok(!text.includes(SECRET));
  assert.deepEqual([text.split('data: ').length - 1, text.includes('"toolerr":{"code":"SERVER_ERROR"')], [1, true]);
  const events = ['\ufeffdata: {"choices":[]}\n\n', `data: ${SECRET_ERROR}\n\n`];
  up.script = [stream(events)];
  text = await bytes(await egressFetch({ onStreamError: () => {} })(`${up.url}/v1/chat/completions`, CHAT));
  assert.ok(text.startsWith(latin1(events[0])) && !text.includes(SECRET));
});

test('a stream that ends inside an error event has it rewritten; another unfinished tail passes', async () => {
  const event = `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded ${SECRET}"}}`;
  for (const tail of [event, `${event}\n`, `${event}\r\n`]) {
    up.script = [stream(['event: ping\ndata: {}\n\n', tail])];
    const seen = [];
    const text = await bytes(await egressFetch({ onStreamError: (ev) => seen.push(ev) })(`${up.url}/v1/messages`, { method: 'POST', body: '{"model":"m","max_tokens":1,"stream":true,"messages":[]}' }));
    const eol = tail.endsWith('\r\n') ? '\r\n' : '\n';
    assert.ok(!text.includes(SECRET), JSON.stringify(tail));
    assert.equal(text, `event: ping\ndata: {}\n\nevent: error${eol}data: ${seen[0].data}${eol}${eol}`);
  }
  const cut = 'data: {"choices":[{"delta":{"content":"cut';
  up.script = [stream([cut])];
  assert.equal(await bytes(await egressFetch({ onStreamError: () => {} })(`${up.url}/v1/chat/completions`, CHAT)), cut);
});

test('an error event longer than 4 MiB is replaced and the rest of it dropped; the events after it pass', async () => {
  const pad = 'x'.repeat(8 << 20);
  const after = 'event: ping\ndata: {}\n\n';
  for (const [path, body, event, named, eol] of [
    ['/v1/messages', '{"model":"m","max_tokens":1,"stream":true,"messages":[]}', `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"${SECRET}${pad}"}}\n\n`, true, '\n'],
    ['/v1/chat/completions', CHAT.body, `data: { "error" : {"message":"${SECRET}${pad}","type":"server_error"}}\r\n\r\n`, false, '\r\n'],
    ['/v1/messages', '{"model":"m","max_tokens":1,"stream":true,"messages":[]}', `event: error\ndata: {"type":"error","error":{"message":"${SECRET}${pad}`, true, '\n'],
  ]) {
    const tail = event.endsWith(eol + eol) ? after : '';
    up.script = [stream(['event: ping\ndata: {}\n\n', event.slice(0, 1 << 20), event.slice(1 << 20), tail])];
    const seen = [];
    const text = await bytes(await egressFetch({ onStreamError: (ev) => seen.push(ev) })(`${up.url}${path}`, { method: 'POST', body }));
    assert.ok(!text.includes(SECRET) && !text.includes('xxxx'));
    assert.equal(seen.length, 1);
    assert.equal(text, `event: ping\ndata: {}\n\n${named ? `event: error${eol}` : ''}data: ${seen[0].data}${eol}${eol}${tail}`);
  }
});

test('an event longer than 4 MiB that is no error event passes byte for byte, unreported', async () => {
  const pad = 'y'.repeat(8 << 20);
  for (const event of [
    `data: {"choices":[{"delta":{"content":"${pad}"}}]}\n\n`,
    `event: content_block_delta\ndata: ${pad}\n\n`,
    `data: {"error":"${pad}"}\n\n`,
  ]) {
    const src = `${event}data: [DONE]\n\n`;
    up.script = [stream([src.slice(0, 1 << 20), src.slice(1 << 20)])];
    const seen = [];
    const text = await bytes(await egressFetch({ onStreamError: (ev) => seen.push(ev) })(`${up.url}/v1/chat/completions`, CHAT));
    assert.equal(seen.length, 0);
    assert.ok(text === src, `${event.slice(0, 40)} passes as it came`);
  }
});

test('an error object after a long member of an event longer than 4 MiB is cut as it passes and reported', async () => {
  // the core's scan cuts it (the long frame's error cut): its text never passes, the rest does
  const pad = 'y'.repeat(8 << 20);
  const src = `data: {"id":"${pad}","error":{"message":"late ${SECRET}"}}\n\ndata: [DONE]\n\n`;
  up.script = [stream([src.slice(0, 1 << 20), src.slice(1 << 20)])];
  const seen = [];
  const text = await bytes(await egressFetch({ onStreamError: (ev) => seen.push(ev) })(`${up.url}/v1/chat/completions`, CHAT));
  assert.equal(seen.length, 1);
  assert.ok(!text.includes(SECRET) && !text.includes('"late '), "the upstream's text is cut");
  assert.ok(text.startsWith(`data: {"id":"${pad}","error":{`), 'the bytes before the error object pass as they came');
  assert.ok(text.endsWith('}}\n\ndata: [DONE]\n\n'), 'the events after it pass');
});

for (const name of ['retry-after', 'retry-after-ms']) {
  for (const value of ['-5', 'abc', '1e9']) {
    test(`an unreadable ${name}: ${value} does not reach the client`, async () => {
      up.script = [reply(503, { error: { message: 'busy', type: 'server_error' } }, { [name]: value, 'x-request-id': 'req_1' })];
      const r = await egressFetch()(`${up.url}/v1/chat/completions`, { method: 'POST', body: '{"model":"gpt-4o","messages":[]}' });
      assert.deepEqual([r.status, r.headers.get('x-request-id'), r.headers.get('retry-after'), r.headers.get('retry-after-ms')], [503, 'req_1', null, null]);
    });
  }
}

test('an upstream header named after an Object member is a header like any other', async () => {
  // The headers were gathered in {} and read with k in hs: constructor was found on Object.prototype, sent to the
  // error op as [null, value], and the op's INVALID_INPUT was thrown out of the fetch instead of the 429.
  for (const name of ['constructor', '__proto__', 'hasownproperty']) {
    up.script = [reply(429, { error: { message: 'slow', type: 'requests' } }, { [name]: 'x', 'retry-after': '7' })];
    const r = await egressFetch()(`${up.url}/v1/chat/completions`, { method: 'POST', body: '{"model":"gpt-4o","messages":[]}' });
    const body = await r.json();
    assert.deepEqual([r.status, body.error.toolerr.code, body.error.toolerr.details.retry_after_seconds, r.headers.get(name)], [429, 'RATE_LIMITED', 7, 'x'], name);
  }
});

test('a rewritten event keeps the CRLF line ends of the one it replaced', async () => {
  const ok = 'data: {"candidates":[{"content":{"parts":[{"text":"Par"}]}}]}\r\n\r\n';
  up.script = [stream([ok, 'data: {"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}}\r\n\r\n'])];
  const text = await bytes(await egressFetch({ onStreamError: () => {} })(`${up.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, { method: 'POST', body: '{"contents":[]}' }));
  assert.ok(text.startsWith(ok) && text.includes('"toolerr":{"code":"') && text.endsWith('\r\n\r\n'));
  assert.deepEqual([text.split('\n').length - 1, text.split('\r\n').length - 1], [4, 4]);
});

test('an upstream that never answers is a native 502; an abort is thrown as it came', async () => {
  const s = http.createServer();
  await new Promise((ok) => s.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${s.address().port}`;
  await new Promise((ok) => s.close(ok));
  const e = await chat(new OpenAI({ apiKey: 'k', baseURL: `${url}/v1`, maxRetries: 0, fetch: egressFetch() })).catch((x) => x);
  assert.deepEqual([e.status, e.error.toolerr.code, e.headers.get('x-should-retry')], [502, 'TRANSPORT', 'true']);
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(egressFetch()(`${up.url}/v1/chat/completions`, { method: 'POST', body: '{}', signal: ac.signal }), { name: 'AbortError' });
});

test('a fetch that throws a hostile error is still a native 502, never a throw of its own', async () => {
  // errorText read the error and its causes with String(): an error or a cause of no prototype, a getter or a
  // Proxy that throws, threw out of the egress fetch (TypeError, or the getter's own error), and a cause past
  // the core's 32 MiB request limit threw ToolerrError; the SDK saw that instead of the 502 it retries by.
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
  const getter = (name) => Object.defineProperty(new TypeError('fetch failed'), name, { get() { throw new Error(`${name} getter`); } });
  const looped = refused();
  looped.cause = looped;
  const cases = [
    [Object.create(null), undefined],
    [new TypeError('fetch failed', { cause: Object.create(null) }), 'network'],
    [getter('cause'), 'network'],
    [new TypeError('fetch failed', { cause: new Proxy({}, { get() { throw new Error('proxy'); } }) }), 'network'],
    [new TypeError('fetch failed', { cause: Object.assign(refused(), { cause: getter('message') }) }), 'connection_refused'],
    [new TypeError('fetch failed', { cause: looped }), 'connection_refused'],
    [new TypeError('fetch failed', { cause: Object.assign(refused(), { message: `connect ECONNREFUSED ${'x'.repeat(33 << 20)}` }) }), 'connection_refused'],
    // An AggregateError of the refused attempts to each of a host's addresses has its code and no message.
    [new TypeError('fetch failed', { cause: Object.assign(new AggregateError([refused(), refused()], ''), { code: 'ECONNREFUSED' }) }), 'connection_refused'],
  ];
  for (const [err, cause] of cases) {
    const f = egressFetch({ fetch: async () => { throw err; } });
    const r = await f(`${up.url}/v1/chat/completions`, { method: 'POST', body: '{"model":"gpt-4o","messages":[]}' });
    const body = await r.json();
    assert.equal(r.status, 502);
    assert.equal(body.error.toolerr.details.cause, cause, JSON.stringify(body.error.toolerr));
  }
});

test('other requests pass untouched', async () => {
  up.script = [reply(404, { error: 'nope' })];
  const r = await egressFetch()(`${up.url}/v1/embeddings`, { method: 'POST', body: '{"input":"x"}' });
  assert.deepEqual([r.status, await r.json()], [404, { error: 'nope' }]);
});

test('endpointOf matches the provider APIs by the end of the path', () => {
  const cases = [
    ['POST', '/v1/chat/completions', ['chat_completions', 'openai-chat', '']],
    ['POST', '/openai/deployments/d/chat/completions', ['chat_completions', 'openai-chat', '']],
    ['POST', '/v1beta/openai/chat/completions', ['chat_completions', 'openai-chat', '']],
    ['POST', '/v1/responses', ['responses', 'openai-responses', '']],
    ['POST', '/v1/messages', ['messages', 'anthropic', '']],
    ['POST', '/v1/messages/count_tokens', ['count_tokens', 'anthropic', '']],
    ['POST', '/v1beta/models/gemini-2.5-flash:generateContent', ['generate_content', 'gemini', 'gemini-2.5-flash']],
    ['POST', '/v1/projects/p/locations/l/publishers/google/models/gemini-2.5-pro:streamGenerateContent', ['stream_generate_content', 'gemini', 'gemini-2.5-pro']],
    ['POST', '/v1/threads/t/messages', null],
    ['POST', '/v1beta/models/gemini-2.5-flash:embedContent', null],
    ['GET', '/v1/chat/completions', null],
  ];
  for (const [m, p, want] of cases) {
    const ep = endpointOf(m, p);
    assert.deepEqual(ep && [ep.api, ep.format, ep.model], want, p);
  }
});
