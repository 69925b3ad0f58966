// Pointers are unsigned: with more than 2 GiB of the module's memory in use, the buffers
// toolerr_alloc and toolerr_invoke return lie past 2^31 (a negative i32 in JS); every call
// still works, and keeps working after. A file of its own: node --test runs each file in a
// process of its own, so the 2 GiB held here never reaches another test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as toolerr from '../index.js';

test('calls work with buffers past 2 GiB of module memory', () => {
  const x = toolerr.wasmExports();
  const held = [];
  for (let i = 0; i < 17; i++) held.push(x.toolerr_alloc(128 * 2 ** 20)); // 2.1 GiB, never written: not resident
  assert.ok(held.some((p) => p < 0), 'some buffer lies past 2 GiB (a negative i32)');
  assert.ok(x.memory.buffer.byteLength > 2 ** 31);
  const text = 'é'.repeat(300000); // a request and an answer over 32 KiB: each in a span of its own, at the top
  for (let i = 0; i < 3; i++) {
    assert.equal(toolerr.canonicalize(text), JSON.stringify(text));
    assert.deepEqual(toolerr.version(), { abi: 1, version: '0.1.0' });
  }
  for (const p of held) x.toolerr_free(p);
  assert.deepEqual(toolerr.version(), { abi: 1, version: '0.1.0' });
});
