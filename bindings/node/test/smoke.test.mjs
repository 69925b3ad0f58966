// Smoke test: the module loads through node:wasi and answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as toolerr from '../index.js';

test('version reports ABI 1', () => {
  assert.equal(toolerr.version().abi, 1);
});

test('envelope gets the registry defaults', () => {
  assert.deepEqual(toolerr.envelope('TIMEOUT', 'Search timed out after 10 s'), {
    code: 'TIMEOUT', details: {}, message: 'Search timed out after 10 s.', retryable: true, source: 'tool',
  });
});

test('canonicalize sorts keys and shortens numbers', () => {
  assert.equal(toolerr.canonicalize({ b: 1.0, a: [2.5e30, 'é'] }), '{"a":[2.5e+30,"é"],"b":1}');
});
