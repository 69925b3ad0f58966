// Every conformance/fixtures/**/*.json fixture through the wasm module, byte for byte.
// Each request's bytes go in unchanged; the expected bytes are the RFC 8785 form of
// "response" made by the core's own canonicalize op (on the value of its one member). With TOOLERR_EMIT_OUTPUTS=path,
// one line per fixture "<op>/<file>/<case>/<test> <base64>" is written there for the
// Go conformance suite (split at the last space).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { invokeBytes } from '../index.js';

const root = process.env.TOOLERR_FIXTURES || fileURLToPath(new URL('../../../conformance/fixtures', import.meta.url));
const emit = process.env.TOOLERR_EMIT_OUTPUTS;

const walk = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.json') ? [join(d, e.name)] : []).sort();

// Byte offsets of each "request"/"response" member value of a test object (depth 4), in order.
function rawMembers(b) {
  const out = [];
  const skipString = (i) => { for (i++; b[i] !== 0x22; i += b[i] === 0x5c ? 2 : 1); return i + 1; };
  const ws = (i) => { while (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09) i++; return i; };
  const skipValue = (i) => {
    for (let depth = 0; ; ) {
      const c = b[i];
      if (c === 0x22) { i = skipString(i); if (depth === 0) return i; continue; }
      if (c === 0x5b || c === 0x7b) depth++;
      else if (c === 0x5d || c === 0x7d) { if (depth === 0) return i; if (--depth === 0) return i + 1; }
      else if (c === 0x2c && depth === 0) return i;
      i++;
    }
  };
  for (let i = 0, depth = 0; i < b.length; ) {
    const c = b[i];
    if (c === 0x22) {
      let j = skipString(i);
      const key = b.subarray(i + 1, j - 1).toString();
      const k = ws(j);
      if (depth === 4 && b[k] === 0x3a && (key === 'request' || key === 'response')) {
        const s = ws(k + 1);
        j = skipValue(s);
        let e = j;
        while (e > s && (b[e - 1] === 0x20 || b[e - 1] === 0x0a || b[e - 1] === 0x0d || b[e - 1] === 0x09)) e--;
        out.push([key, b.subarray(s, e)]);
      }
      i = j;
      continue;
    }
    if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) depth--;
    i++;
  }
  return out;
}

const cases = [];
for (const file of walk(root)) {
  const bytes = readFileSync(file);
  const raw = rawMembers(bytes);
  const stem = relative(root, file).replace(/\.json$/, '');
  for (const c of JSON.parse(bytes.toString())) {
    for (const t of c.tests) {
      const pair = Object.fromEntries([raw.shift(), raw.shift()]);
      cases.push({ id: `${stem}/${c.description}/${t.description}`, request: pair.request, response: pair.response });
    }
  }
}

if (emit) writeFileSync(emit, '');

test('fixtures are found', () => assert.ok(cases.length > 0, `no conformance fixtures under ${root}`));

const prefix = Buffer.from('{"op":"canonicalize","value":');
for (const { id, request, response } of cases) {
  test(id, () => {
    const got = Buffer.from(invokeBytes(request));
    if (emit) appendFileSync(emit, `${id} ${got.toString('base64')}\n`);
    // response is {"ok": X} or {"error": X}: canonicalize X alone (the wrapper would add a nesting level)
    const q = response.indexOf(0x22), keyEnd = response.indexOf(0x22, q + 1);
    const inner = response.subarray(response.indexOf(0x3a, keyEnd) + 1, response.lastIndexOf(0x7d));
    const canon = Buffer.from(invokeBytes(Buffer.concat([prefix, inner, Buffer.from('}')])));
    assert.ok(canon.subarray(0, 6).toString() === '{"ok":', canon.toString());
    const want = Buffer.concat([Buffer.from('{'), response.subarray(q, keyEnd + 1), Buffer.from(':'),
      canon.subarray(6, canon.length - 1), Buffer.from('}')]);
    if (!got.equals(want)) {
      let off = 0;
      while (off < got.length && off < want.length && got[off] === want[off]) off++;
      const at = (x) => JSON.stringify(x.subarray(Math.max(0, off - 20), off + 20).toString());
      assert.fail(`${id}: first difference at byte ${off}\n got: ${at(got)}\nwant: ${at(want)}`);
    }
  });
}
