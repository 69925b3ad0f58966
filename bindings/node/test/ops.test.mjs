// Every op of the core's op table (conformance/ops.json, generated from
// core.Ops()) is reachable through this binding's typed API, so a new op of
// the core fails here until the binding says how it is reached.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(pkg, '..', '..');

// Ops a caller reaches only through invoke(), each with its reason.
const invokeOnly = {
  args_error: 'no typed wrapper yet: validation failures are handed over as a request',
  egress_error: 'the egress transports (issue 10, part 2) wrap it; until then through invoke',
  egress_request: 'the egress transports (issue 10, part 2) wrap it; until then through invoke',
  egress_response: 'the egress transports (issue 10, part 2) wrap it; until then through invoke',
  egress_scan: 'the egress fetch (toolerr/egress) calls it for each chunk of a stream, its input raw bytes',
};

test('every op of the table is reachable', () => {
  const { ops } = JSON.parse(readFileSync(join(root, 'conformance', 'ops.json'), 'utf8'));
  const src = readdirSync(pkg).filter((f) => f.endsWith('.js')).map((f) => readFileSync(join(pkg, f), 'utf8')).join('\n');
  const called = new Set([...src.matchAll(/\bop\('(\w+)'/g), ...src.matchAll(/\bop: '(\w+)'/g)].map((m) => m[1]));
  assert.deepEqual(ops.filter((op) => !called.has(op) && !(op in invokeOnly)), [], 'ops of the core with no wrapper in the Node binding');
  assert.deepEqual([...called].filter((op) => !ops.includes(op)), [], 'the binding calls ops the core does not have');
  assert.ok(Object.keys(invokeOnly).every((op) => ops.includes(op)), 'invokeOnly names an op the core does not have');
});
