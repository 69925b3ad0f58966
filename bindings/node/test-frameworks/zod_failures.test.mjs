// Zod issues in the neutral failure form of docs/args.md (integrations/common.js,
// shared by every JavaScript integration), checked on real Zod errors and the
// core's args_error envelope.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
// Not a public entry point: loaded by its path inside the installed package.
const { argsFailures, argsEnvelope } = await import('./node_modules/toolerr/integrations/common.js');

const schema = z.object({
  city: z.string(),
  days: z.number().int().max(7),
  units: z.enum(['metric', 'imperial']),
  zip: z.string().regex(/^[0-9]{5}$/),
  stops: z.array(z.string()).min(1),
  ratio: z.number().gt(0),
  step: z.number().multipleOf(5),
  'a/b': z.string().max(3),
}).strict();

const zodError = (value) => schema.safeParse(value).error;

test('each Zod issue becomes the JSON Schema keyword it checks', () => {
  const err = zodError({ days: 9, units: 'kelvin', zip: 'abc', stops: [], ratio: 0, step: 7, 'a/b': 'long', extra: 1 });
  const byPath = Object.fromEntries(argsFailures(err).map((f) => [f.path, f]));
  assert.deepEqual(byPath['/city'], { path: '/city', keyword: 'type', expected: 'string' }); // Zod 4 does not say it is missing
  assert.deepEqual(byPath['/days'], { path: '/days', keyword: 'maximum', expected: 7 });
  assert.deepEqual(byPath['/units'], { path: '/units', keyword: 'enum', expected: ['metric', 'imperial'] });
  assert.deepEqual(byPath['/zip'], { path: '/zip', keyword: 'pattern', expected: '^[0-9]{5}$' });
  assert.deepEqual(byPath['/stops'], { path: '/stops', keyword: 'minItems', expected: 1 });
  assert.deepEqual(byPath['/ratio'], { path: '/ratio', keyword: 'exclusiveMinimum', expected: 0 });
  assert.deepEqual(byPath['/step'], { path: '/step', keyword: 'multipleOf', expected: 5 });
  assert.deepEqual(byPath['/a~1b'], { path: '/a~1b', keyword: 'maxLength', expected: 3 });
  assert.deepEqual(byPath['/extra'], { path: '/extra', keyword: 'additionalProperties' });
});

test('the failures make the core\'s INVALID_ARGS envelope', () => {
  const env = argsEnvelope(zodError({ city: 'Lisbon', days: 9, units: 'metric', zip: '12345', stops: ['a'], ratio: 1, step: 5, 'a/b': 'x' }), 'get_weather');
  assert.deepEqual([env.code, env.retryable, env.source, env.details.fields], ['INVALID_ARGS', false, 'tool', ['/days']]);
  assert.match(env.message, /\/days must be at most 7/);
});

test('arguments that are not JSON are the json keyword; an error without issues is none', () => {
  let syntax;
  try { JSON.parse('{"city":'); } catch (e) { syntax = e; }
  assert.deepEqual(argsFailures(Object.assign(new Error('bad input'), { originalError: syntax })), [{ path: '', keyword: 'json' }]);
  assert.equal(argsFailures(new Error('plain')), null);
});
