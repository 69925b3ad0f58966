// The egress fetch's stream reader on its own: a fake fetch answers a stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { egressFetch } from '../egress.js';

const SECRET = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD';

async function through(events) {
  const seen = [];
  const fetch = egressFetch({
    fetch: async () => new Response(events, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    onStreamError: (ev) => seen.push(ev),
  });
  const resp = await fetch('http://127.0.0.1:9/v1/chat/completions', { method: 'POST', body: '{"model":"m","messages":[],"stream":true}' });
  return { text: await resp.text(), seen };
}

test('an error chunk whose member name is escaped is replaced, content with escapes passes', async () => {
  // JSON.parse (and the SDK) read "\u0065rror" as "error": it is an error chunk, though the text
  // holds no "error", and the provider's text in it is sanitized as in any error chunk.
  for (const name of ['\\u0065rror', 'e\\u0072ror', 'err\\u006Fr']) {
    const { text, seen } = await through(`data: {"${name}":{"message":"${SECRET}"}}\n\n`);
    assert.equal(seen.length, 1, name);
    assert.ok(!text.includes(SECRET) && text.includes('"toolerr":'), `${name}: ${text}`);
  }
  const content = 'data: {"choices":[{"delta":{"content":"caf\\u00e9 \\u0065rror"}}]}\n\n';
  const { text, seen } = await through(content);
  assert.deepEqual([text, seen.length], [content, 0], 'a content delta passes byte for byte');
});

// Gemini's streamGenerateContent without alt=sse: one JSON array streamed
// element by element, an error mid-stream an element {"error": {...}}.
async function throughArray(body, options = {}) {
  const seen = [];
  const fetch = egressFetch({
    fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'application/json; charset=UTF-8' } }),
    onStreamError: (ev) => seen.push(ev),
    ...options,
  });
  const resp = await fetch('http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:streamGenerateContent', { method: 'POST', body: '{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}' });
  return { text: await resp.text(), seen };
}

test('an error element of a Gemini JSON-array stream is replaced, the elements before pass byte for byte', async () => {
  const before = '[{"candidates":[{"content":{"parts":[{"text":"a ] and \\"{error}\\""}]}}]}\r\n,';
  const errEl = `{"error": {"code": 503, "message": "${SECRET} overloaded", "status": "UNAVAILABLE"}}`;
  const after = '\r\n,{"candidates":[]}]';
  // Split anywhere: one byte a chunk.
  const bytes = new TextEncoder().encode(before + errEl + after);
  const oneByte = new ReadableStream({
    start(ctl) {
      for (const b of bytes) ctl.enqueue(new Uint8Array([b]));
      ctl.close();
    },
  });
  for (const body of [before + errEl + after, oneByte]) {
    const { text, seen } = await throughArray(body, { dropUpstreamMessage: true });
    assert.equal(seen.length, 1, text);
    assert.equal(seen[0].envelope.code, 'OVERLOADED');
    assert.ok(!text.includes(SECRET), text);
    assert.ok(text.startsWith(before), text);
    assert.ok(text.endsWith(after), text);
    const arr = JSON.parse(text);
    assert.equal(arr.length, 3);
    assert.equal(arr[1].error.status, 'UNAVAILABLE');
    assert.equal(arr[1].error.toolerr.code, 'OVERLOADED');
    assert.equal(arr[1].error.toolerr.details.partial_output, true);
    assert.equal(text, before + seen[0].data + after, 'the element replaced by the reported data');
  }
});

test('a Gemini JSON-array stream: a cut error element is replaced, one past 4 MiB by its head, content and non-arrays pass', async () => {
  const cut = await throughArray(`[{},{"error":{"code":500,"message":"${SECRET}`, { dropUpstreamMessage: true });
  assert.equal(cut.seen.length, 1);
  assert.equal(cut.text, `[{},${cut.seen[0].data}`);
  const huge = 'x'.repeat((4 << 20) + 1000);
  const long = await throughArray(`[{},{ "error" : {"code":500,"message":"${huge}"}},{}]`);
  assert.equal(long.seen.length, 1);
  assert.equal(long.seen[0].envelope.code, 'SERVER_ERROR');
  assert.equal(long.text, `[{},${long.seen[0].data},{}]`);
  for (const body of [
    `[{"candidates":[{"content":{"parts":[{"inlineData":{"data":"${huge}"}}]}}]},{"usageMetadata":{}}]`,
    '{"error":{"code":500,"message":"not an array","status":"INTERNAL"}}',
    '[{"candidates":[{"content":{"parts":[{"text":"the \\"error\\": {} word"}]}}]}]',
  ]) {
    const { text, seen } = await throughArray(body);
    assert.equal(seen.length, 0);
    assert.ok(text === body, `${body.slice(0, 40)} passes as it came`);
  }
});

test('a long frame in small chunks goes to the core about twice, not once per chunk', async () => {
  // The held bytes but their last few are left out ("skip") until the frame ends, when the core
  // asks for them all: 2 MB cross for a 1 MB frame in 1 KiB chunks (537 MB before).
  const { Scan } = await import('../egress.js');
  const enc = new TextEncoder();
  const long = 'x'.repeat(1 << 20);
  for (const [frame, errors] of [[`data: {"choices":[{"delta":{"content":"${long}"}}]}\n\n`, 0],
    [`data: {"error":{"message":"${SECRET}${long}","type":"server_error"}}\n\n`, 1]]) {
    const seen = [];
    const scan = new Scan({ now: () => 1, onStreamError: (ev) => seen.push(ev) }, { format: 'openai-chat', api: 'chat_completions' }, 'sse');
    let sent = 0;
    const invoke = scan.invoke.bind(scan);
    scan.invoke = (data, skip, eof) => { sent += data.length - skip; return invoke(data, skip, eof); };
    const src = enc.encode(frame + 'data: [DONE]\n\n');
    const parts = [];
    for (let i = 0; i < src.length; i += 1024) parts.push(scan.feed(src.subarray(i, i + 1024)));
    parts.push(scan.flush());
    const out = Buffer.concat(parts).toString();
    assert.equal(seen.length, errors);
    assert.equal(out, errors ? `data: ${seen[0].data}\n\ndata: [DONE]\n\n` : frame + 'data: [DONE]\n\n');
    assert.ok(sent > src.length && sent < 2 * src.length + 64 * 1024, `${sent} bytes sent for ${src.length}`);
  }
});
