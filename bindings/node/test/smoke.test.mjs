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

// On Node 18 npm only warned at install (EBADENGINE), and the Executor then
// died with "ReferenceError: CustomEvent is not defined", saying nothing of the
// version. Importing toolerr on an older Node now warns, naming both versions,
// at once (the example's failure ended the process before the next tick).
test('importing toolerr on a Node older than 20 warns, saying which and what to do', async () => {
  const { execFileSync } = await import('node:child_process');
  const run = (version) => execFileSync(process.execPath, ['--input-type=module', '-e',
    `${version ? `Object.defineProperty(process.versions, 'node', { value: '${version}' });` : ''}
     process.on('warning', (w) => { if (w.code === 'TOOLERR_NODE_VERSION') console.log(w.message); });
     await import(${JSON.stringify(new URL('../index.js', import.meta.url).href)});
     process.exit(0); // before the next tick: a warning emitted then (process.emitWarning) never shows`],
  { encoding: 'utf8' }).trim();
  const says = (v) => `toolerr needs Node 20.3 or newer, and this is Node ${v}: the Executor fails here ` +
    "(its 'decision' events need the global CustomEvent, a call with a signal and a timeout AbortSignal.any); " +
    'upgrade Node to 20.3 or newer';
  assert.equal(run('18.20.8'), says('18.20.8'));
  assert.equal(run('20.2.0'), says('20.2.0')); // AbortSignal.any came in 20.3
  assert.equal(run('20.3.0'), '');
  assert.equal(run(''), ''); // this Node (20 or newer): no warning
});
