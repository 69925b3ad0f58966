// Safety: worker_threads, memory over many calls, bad input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import * as toolerr from '../index.js';

const REQ = new TextEncoder().encode('{"op":"envelope","code":"TIMEOUT","message":"Search timed out after 10 s"}');
const WANT = Buffer.from(toolerr.invokeBytes(REQ)).toString();

test('worker threads each get their own instance and identical answers', async () => {
  const src = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.url).then((t) => {
      let bad = 0;
      for (let j = 0; j < 2000; j++) {
        const e = t.envelope('RATE_LIMITED', 'worker ' + workerData.i + ' call ' + j, { details: { n: j } });
        if (e.details.n !== j || !e.message.startsWith('worker ' + workerData.i + ' call ' + j)) bad++;
      }
      parentPort.postMessage(bad);
    });`;
  const url = new URL('../index.js', import.meta.url).href;
  const results = await Promise.all([0, 1, 2, 3].map((i) => new Promise((resolve, reject) => {
    const w = new Worker(src, { eval: true, workerData: { url, i } });
    w.once('message', resolve);
    w.once('error', reject);
  })));
  assert.deepEqual(results, [0, 0, 0, 0]);
  assert.equal(Buffer.from(toolerr.invokeBytes(REQ)).toString(), WANT); // main thread unaffected
});

test('many calls leave memory flat', () => {
  const n = Number(process.env.TOOLERR_MEMORY_CALLS || 1000000);
  for (let i = 0; i < 50000; i++) toolerr.invokeBytes(REQ); // warm up to the steady size
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) toolerr.invokeBytes(REQ);
  globalThis.gc?.();
  const grown = process.memoryUsage().rss - before;
  console.log(`${n} calls in ${((performance.now() - t0) / 1000).toFixed(1)} s, RSS grew ${(grown / 1e6).toFixed(2)} MB`);
  assert.equal(Buffer.from(toolerr.invokeBytes(REQ)).toString(), WANT);
  assert.ok(grown < 32 * 2 ** 20, `RSS grew ${grown} bytes`);
});

for (const [request, path] of [
  [{}, 'op'], [{ op: 5 }, 'op'], [{ op: 'no_such_op' }, 'op'], [{ op: 'envelope', message: 'no code' }, 'code'],
]) {
  test(`bad input ${JSON.stringify(request)} throws ToolerrError with the envelope`, () => {
    assert.throws(() => toolerr.invoke(request), (e) => {
      assert.ok(e instanceof toolerr.ToolerrError && e instanceof Error);
      assert.deepEqual([e.code, e.retryable, e.source, e.details.path], ['INVALID_INPUT', false, 'orchestrator', path]);
      assert.equal(e.message, e.envelope.message);
      return true;
    });
  });
}

test('requests past 32 MiB and past the 128 MiB buffer limit are refused, and the next call works', () => {
  for (const size of [33 * 2 ** 20, 129 * 2 ** 20]) { // over the core's 32 MiB; over the module's 128 MiB
    const out = Buffer.from(toolerr.invokeBytes(new Uint8Array(size).fill(0x20))).toString();
    assert.ok(out.startsWith('{"error":{"code":"INVALID_INPUT"'), out);
  }
  assert.equal(Buffer.from(toolerr.invokeBytes(REQ)).toString(), WANT);
});

for (const raw of ['', 'not json', '[1,2]', '\xff\xfe{', '{"op":"version"'.repeat(1000)]) {
  test(`bad bytes ${JSON.stringify(raw.slice(0, 20))} answer with an error envelope`, () => {
    const out = Buffer.from(toolerr.invokeBytes(Buffer.from(raw, 'latin1'))).toString();
    assert.ok(out.startsWith('{"error":{"code":"INVALID_INPUT"'), out);
  });
}

// The binding once handed node:wasi's functions to the module as they are: V8 then called them
// through its fast API path, where poll_oneoff's allocation could start a garbage collection
// mid-call and corrupt the heap; the process died later (SIGSEGV, SIGTRAP on a V8 CHECK), after
// every test had passed, which node --test reports only as "test failed" for the file. It took
// a large ArrayBuffer alive while the module ran (nodejs/node#46777). Each run is a process of
// its own, so a crash fails this test instead of the file.
test('a large buffer alive during calls leaves the heap intact (nodejs/node#46777)', () => {
  const script = `
    import * as t from ${JSON.stringify(new URL('../index.js', import.meta.url).href)};
    const req = new TextEncoder().encode(${JSON.stringify(new TextDecoder().decode(REQ))});
    for (let i = 0; i < 20000; i++) t.invokeBytes(req);
    const big = new Uint8Array(129 * 2 ** 20).fill(0x20);
    if (!Buffer.from(t.invokeBytes(big)).toString().startsWith('{"error":')) process.exit(3);
    for (let k = 0; k < 20000; k++) if ([{ k }, 'op', [k, k]].length !== 3) process.exit(4);
    process.stdout.write(Buffer.from(t.invokeBytes(req)).toString());`;
  for (let run = 0; run < 3; run++) {
    const r = spawnSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.deepEqual([r.status, r.signal], [0, null], `run ${run}: ${r.stderr.slice(0, 1500)}`);
    assert.equal(r.stdout, WANT);
  }
});

test('a module out of memory answers INTERNAL naming memory, not an empty request', () => {
  // The real module whose toolerr_alloc fails as one with exhausted memory
  // does (0 for a size it would otherwise hand out), then the module again.
  const real = toolerr.wasmExports();
  toolerr.setExports(() => ({ ...real, toolerr_alloc: () => 0 }));
  try {
    const want = { code: 'INTERNAL', details: { reason: 'out of memory' }, retryable: false, source: 'orchestrator' };
    for (const out of [Buffer.from(toolerr.invokeBytes(REQ)).toString(), toolerr.invokeText(Buffer.from(REQ).toString())]) {
      const { error } = JSON.parse(out);
      assert.match(error.message, /out of memory/);
      assert.deepEqual({ ...error, message: undefined }, { ...want, message: undefined });
    }
    assert.throws(() => toolerr.envelope('TIMEOUT', 'x'), (e) => e instanceof toolerr.ToolerrError && e.code === 'INTERNAL');
  } finally {
    toolerr.setExports(() => real);
  }
  assert.equal(Buffer.from(toolerr.invokeBytes(REQ)).toString(), WANT);
});

test('a thrown value that cannot be read as text is classified by its type, never thrown again', () => {
  // A tool may throw anything; the handler that classifies it must not throw instead.
  const cases = [
    Object.create(null),
    { toString() { throw new Error('toString throws'); } },
    Object.defineProperty(new Error('x'), 'message', { get() { throw new Error('message getter throws'); } }),
    Object.defineProperty({}, 'constructor', { get() { throw new Error('constructor getter throws'); } }),
  ];
  for (const thrown of cases) {
    for (const env of [toolerr.classifyException(thrown, { tool: 'search' }), toolerr.classifyResponse(thrown, { source: 'tool', tool: 'search' })]) {
      assert.equal(env.code, 'TOOL_ERROR');
      assert.equal(env.retryable, false);
      assert.equal(env.source, 'tool');
    }
  }
  assert.match(toolerr.classifyException(cases[2]).message, /Error/, 'the type that could be read');
});

test('serialize of what is not an array of outcomes throws a TypeError naming it', () => {
  const good = { callId: 'c1', name: 'f', result: { text: 'ok' } };
  for (const [outcomes, what] of [[null, /outcomes must be an array/], [undefined, /outcomes must be an array/], ['x', /outcomes must be an array/],
    [{ 0: good }, /outcomes must be an array/], [[good, null], /outcomes\[1\] must be an outcome/], [[7], /outcomes\[0\] must be an outcome/]]) {
    for (const f of [(o) => toolerr.serialize('anthropic', o), toolerr.toOpenAIChat, (o) => toolerr.toMCP(o, { outputSchema: false })]) {
      assert.throws(() => f(outcomes), (e) => e instanceof TypeError && what.test(e.message));
    }
  }
  assert.throws(() => toolerr.loopGuard(undefined), toolerr.ToolerrError, 'no members: the op names the missing one');
});
