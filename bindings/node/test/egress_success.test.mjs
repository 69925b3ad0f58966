// toolerr/egress on a success that is an error object in place of the answer
// (Gemini's 200 {"error":{...}}), over a fake fetch: answered as the failure it
// stands for, as egress.RewriteSuccessError answers it in Go; every other
// success passes as it came (docs/egress.md, "An error object under 200").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { egressFetch } from '../egress.js';

const GEMINI = 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent';
const BODY = '{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}';
const SECRET = 'key=AIzaSyA-secret-key-0123456789abcdefghij';
const ERROR_200 = `{\n  "error": {\n    "code": 503,\n    "message": "The model is overloaded. Please try again later. ${SECRET}",\n    "status": "UNAVAILABLE"\n  }\n}\n`;
const ENVELOPE = {
  code: 'OVERLOADED', details: { provider: 'gemini', provider_type: 'UNAVAILABLE', status: 503 },
  message: 'The Gemini API is overloaded (HTTP 503); retry later.', retryable: true, source: 'provider',
};

// A fetch answering 200 with body, sent in pieces of size bytes.
const fake = (body, size = 7) => async () => {
  const bytes = new TextEncoder().encode(body);
  let i = 0;
  const stream = new ReadableStream({
    pull(ctl) {
      if (i >= bytes.length) return ctl.close();
      ctl.enqueue(bytes.subarray(i, i + size));
      i += size;
    },
  });
  return new Response(stream, { status: 200, headers: { 'content-type': 'application/json' } });
};

// The gate is the core's (egress_error with http.head): an escaped member
// name is still an error object (the old local gate, which looked for the
// bytes "error" in 64, let it pass unread as a 200).
const ESCAPED = ERROR_200.replace('"error"', '"\\u0065rror"');
for (const [name, body] of [['plain', ERROR_200], ['bom', `\ufeff${ERROR_200}`], ['escaped name', ESCAPED]]) {
  test(`a 200 error object is answered as its failure (${name})`, async () => {
    const resp = await egressFetch({ fetch: fake(body) })(GEMINI, { method: 'POST', body: BODY });
    const text = await resp.text();
    assert.equal(resp.status, 503);
    assert.ok(!text.includes('AIzaSy'));
    assert.deepEqual(JSON.parse(text), { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE', toolerr: ENVELOPE } });
    assert.deepEqual(JSON.parse(resp.headers.get('x-toolerr-envelope')), ENVELOPE);
    assert.equal(resp.headers.get('x-should-retry'), 'true');
  });
}

const OK = '{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}]}';
for (const [name, body] of [
  ['a success', OK],
  ['a failed Responses response', '{"id":"resp_1","object":"response","status":"failed","error":{"code":"server_error","message":"x"},"output":[]}'],
  ['an error that is a string', '{"error":"overloaded"}'],
  ['an empty body', ''],
  ['a large success', `{"candidates":[{"content":{"parts":[{"text":"${'x'.repeat(3 << 20)}"}]}}]}`],
  ['an error object past 1 MiB', `{"error":{"message":"${'x'.repeat(2 << 20)}"}}`],
]) {
  test(`${name} passes as it came`, async () => {
    const resp = await egressFetch({ fetch: fake(body, 1 << 16) })(GEMINI, { method: 'POST', body: BODY });
    assert.equal(resp.status, 200);
    assert.equal(await resp.text(), body);
  });
}
