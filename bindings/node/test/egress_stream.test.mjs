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
