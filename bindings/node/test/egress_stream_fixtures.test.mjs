// The shared stream fixtures (conformance/streams/*.json): each case's input,
// in each of its chunkings, through egressFetch's stream reader gives the
// client the case's output bytes and reports its errors, as the Go readers
// (egress/fixtures_test.go) and every other binding do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { egressFetch } from '../egress.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const dir = join(root, 'conformance', 'streams');
const enc = new TextEncoder();

const PATHS = {
  'openai-chat': '/v1/chat/completions',
  'openai-responses': '/v1/responses',
  anthropic: '/v1/messages',
  gemini: '/v1beta/models/gemini-2.5-flash:streamGenerateContent',
};

function pieces(ps) {
  const parts = ps.map((p) => (typeof p === 'string' ? enc.encode(p)
    : 'b64' in p ? new Uint8Array(Buffer.from(p.b64, 'base64')) : enc.encode(p.repeat.repeat(p.times))));
  return new Uint8Array(Buffer.concat(parts));
}

function* chunkings(c, src) {
  if (c.chunk_size) {
    const ch = [];
    for (let i = 0; i < src.length; i += c.chunk_size) ch.push(src.subarray(i, i + c.chunk_size));
    yield ch;
  } else {
    yield [src];
  }
  if (c.every_split) {
    for (let i = 1; i < src.length; i++) yield [src.subarray(0, i), src.subarray(i)];
    yield Array.from(src, (_, i) => src.subarray(i, i + 1));
  }
}

async function read(c, chunks) {
  const seen = [];
  const fetch = egressFetch({
    fetch: async () => new Response(new ReadableStream({
      start(ctl) {
        for (const ch of chunks) ctl.enqueue(ch.slice());
        ctl.close();
      },
    }), { status: 200, headers: { 'content-type': c.kind === 'sse' ? 'text/event-stream' : 'application/json' } }),
    onStreamError: (ev) => seen.push(ev),
    now: () => c.now_ms,
  });
  const resp = await fetch(`http://127.0.0.1:9${PATHS[c.ingress]}`, { method: 'POST', body: '{}' });
  return [new Uint8Array(await resp.arrayBuffer()), seen.length];
}

for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  for (const c of JSON.parse(readFileSync(join(dir, file), 'utf8'))) {
    test(`${file.replace(/\.json$/, '')}/${c.description.replaceAll(' ', '_')}`, async () => {
      const src = pieces(c.input);
      const want = pieces(c.output);
      for (const chunks of chunkings(c, src)) {
        const [got, errors] = await read(c, chunks);
        assert.ok(Buffer.from(got).equals(Buffer.from(want)), `${chunks.length} chunks: ${Buffer.from(got).toString().slice(0, 300)}`);
        assert.equal(errors, c.errors, `${chunks.length} chunks`);
      }
    });
  }
}
