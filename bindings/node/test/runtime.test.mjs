// The JavaScript runtime (Executor) on the shared scenarios of conformance/runtime, and in its own idioms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as toolerr from '../index.js';
import { Budget, Executor, LoopGuard, MemoryStore, ToolFailure } from '../index.js';

const dir = fileURLToPath(new URL('../../../conformance/runtime/', import.meta.url));
const scenarios = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
  .flatMap((f) => JSON.parse(readFileSync(dir + f, 'utf8')).map((sc) => [`${f}/${sc.description}`, sc]));

// A shared store that always fails, as conformance/runtime says ("connection refused").
const failingStore = {
  load() { throw new Error('connection refused'); },
  async compareAndSwap() { throw new Error('connection refused'); },
};

test('scenarios are found', () => assert.ok(scenarios.length >= 10));

for (const [name, sc] of scenarios) {
  test(`shared scenario ${name}`, async () => {
    const ex = sc.executor;
    const shared = new MemoryStore();
    let now = sc.start_ms, draws, got, call, sleeps, abort;
    const x = new Executor({
      store: ex.store === 'failing' ? failingStore : shared,
      retry: ex.policy, breaker: ex.settings, timeoutMs: ex.timeout_ms,
      budget: ex.budget ? new Budget(ex.budget) : undefined,
      loopGuard: ex.loop_threshold !== undefined ? new LoopGuard(ex.loop_threshold) : undefined,
      clock: () => now,
      draw: () => { assert.ok(draws.length, 'the runtime drew more numbers than the scenario gives'); return draws.shift(); },
      sleep: async (ms, signal) => {
        got.sleeps_ms.push(ms);
        if (++sleeps === call.cancel_sleep) { abort.abort(); throw signal.reason; }
        now += ms;
      },
      onDecision: (r) => got.decisions.push(r),
    });
    for (call of sc.calls) {
      now += call.before_ms ?? 0;
      draws = [...call.draws];
      const outcomes = [...call.outcomes];
      got = { decisions: [], sleeps_ms: [] };
      sleeps = 0;
      abort = new AbortController();
      const r = await x.call(ex.tool, async () => {
        assert.ok(outcomes.length, 'the runtime called the tool more often than the scenario scripts');
        const o = outcomes.shift();
        now += o.duration_ms ?? 0;
        if (o.error) throw new ToolFailure(o.error);
        return o.result;
      }, { args: call.args, signal: abort.signal });
      assert.equal(draws.length, 0, 'draws left unused');
      const b = ex.store === 'failing' ? x.replicaState(ex.tool) : await shared.load(`toolerr:breaker:${ex.tool}`);
      got.attempts = r.attempts;
      got.breaker = b === null ? null : new TextDecoder().decode(b);
      if (r.error) got.error = r.error;
      assert.deepEqual(got, call.expect);
    }
  });
}

test('MemoryStore compare-and-swap compares bytes', () => {
  const s = new MemoryStore();
  const b = (t) => new TextEncoder().encode(t);
  assert.deepEqual(s.compareAndSwap('k', null, b('a')), { swapped: true, current: null });
  assert.deepEqual(s.compareAndSwap('k', null, b('b')), { swapped: false, current: b('a') });
  assert.deepEqual(s.compareAndSwap('k', b('x'), b('b')), { swapped: false, current: b('a') });
  assert.equal(s.compareAndSwap('k', b('a'), b('b')).swapped, true);
  assert.deepEqual(s.load('k'), b('b'));
  assert.equal(s.load('none'), null);
});

test('a thrown error is classified, retried, and the records reach onDecision, the event and console', async () => {
  let calls = 0;
  const events = [], lines = [];
  const x = new Executor({ sleep: async () => {}, console: { debug: (l) => lines.push(['debug', l]), warn: (l) => lines.push(['warn', l]), info: () => {} } });
  x.addEventListener('decision', (e) => events.push(e.detail));
  const r = await x.call('search', async () => {
    if (++calls < 3) throw Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    return '3 hits';
  });
  assert.deepEqual([r.ok, r.value, r.attempts], [true, '3 hits', 3]);
  assert.equal(events.filter((d) => d.kind === 'retry' && d.allowed).length, 2);
  const warn = lines.filter(([l]) => l === 'warn');
  assert.equal(warn.length, 2);
  assert.match(warn[0][1], /^toolerr decision \{"allowed":false,"attempt":1,"code":"TRANSPORT"/);
  assert.deepEqual(r.outcome('toolu_1', 'search').result, { text: '3 hits' });
});

test('a not-retryable failure is an outcome ready to serialize', async () => {
  const r = await new Executor().call('search', async () => { throw new TypeError('max_results must be at most 50'); });
  assert.equal(r.error.code, 'TOOL_ERROR');
  assert.equal(r.attempts, 1);
  assert.ok(r.cause instanceof TypeError);
  const [msg] = toolerr.toAnthropic([r.outcome('toolu_1', 'search')]);
  assert.equal(msg.content[0].is_error, true);
});

test('timeoutMs aborts the call through its signal: TIMEOUT', async () => {
  const x = new Executor({ timeoutMs: 50, retry: { max_attempts: 1 } });
  const r = await x.call('search', ({ signal }) => new Promise((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason));
  }));
  assert.equal(r.error.code, 'TIMEOUT');
  assert.equal(r.attempts, 1);
});

test('aborting the caller signal during a probe frees the half-open slot and returns CANCELLED', async () => {
  const store = new MemoryStore();
  store.compareAndSwap('toolerr:breaker:search', null,
    new TextEncoder().encode('{"failures":0,"open_until_ms":1,"phase":"open","probe_until_ms":0,"successes":0}'));
  const abort = new AbortController();
  const r = await new Executor({ store }).call('search', ({ signal }) => new Promise((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason));
    setTimeout(() => abort.abort(), 10);
  }), { signal: abort.signal });
  assert.equal(r.error.code, 'CANCELLED');
  assert.equal(new TextDecoder().decode(store.load('toolerr:breaker:search')),
    '{"failures":0,"open_until_ms":0,"phase":"half_open","probe_until_ms":0,"successes":0}');
});

test('one store shared by two executors shares the breaker', async () => {
  const store = new MemoryStore();
  const down = async () => { throw new ToolFailure(toolerr.envelope('TRANSPORT', '503', { source: 'tool' })); };
  for (let i = 0; i < 3; i++) await new Executor({ store, retry: { max_attempts: 1 } }).call('search', down);
  const r = await new Executor({ store }).call('search', async () => 'never');
  assert.equal(r.error.code, 'CIRCUIT_OPEN');
  assert.equal(r.attempts, 0);
});

test('budget and loop guard belong to the run', async () => {
  const budget = new Budget({ steps: 3 }), loopGuard = new LoopGuard(1);
  const x = new Executor({ budget, loopGuard });
  const bad = async () => { throw new ToolFailure(toolerr.envelope('INVALID_ARGS', 'bad', { source: 'tool' })); };
  assert.equal((await x.call('search', bad, { args: { q: 1 } })).error.code, 'INVALID_ARGS');
  assert.equal((await x.call('search', bad, { args: { q: 1 } })).error.code, 'LOOP_DETECTED');
  assert.ok((await x.call('search', async () => 'ok', { args: { q: 2 } })).ok);
  assert.equal((await x.call('search', async () => 'ok', { args: { q: 3 } })).error.code, 'BUDGET_EXHAUSTED');
  assert.equal(budget.state.steps, 3);
});

test('a throw that cannot be read whole is still a TOOL_ERROR failure, never a rejection', async () => {
  const circular = { status: 500 };
  circular.body = circular;
  const throws = {
    'no prototype': Object.create(null),
    'message getter throws': { get message() { throw new Error('getter'); } },
    'status past 599': { status: 1e30 },
    'negative status': { status: -5 },
    'BigInt body': { status: 500, body: 10n },
    'circular body': circular,
    'object header value': { status: 429, headers: { 'retry-after': { a: 1 } } },
    'message past the request limit': new Error('x'.repeat(33 << 20)),
    'Proxy that throws': new Proxy({}, { get() { throw new Error('trap'); } }),
  };
  const x = new Executor({ retry: { max_attempts: 1 } });
  for (const [name, thrown] of Object.entries(throws)) {
    const r = await x.call('search', () => { throw thrown; });
    assert.equal(r.error?.code, 'TOOL_ERROR', name);
    assert.equal(r.error.details.tool, 'search', name);
  }
});

test('a store error without a readable message is a store error', async () => {
  const bad = Object.create(null);
  const x = new Executor({ store: { load() { throw bad; }, async compareAndSwap() { throw bad; } }, retry: { max_attempts: 1 } });
  const r = await x.call('search', () => 42);
  assert.equal(r.value, 42);
  assert.equal(r.ok, true);
});

test('a success decided ahead is applied only while its load holds', async () => {
  // A step that asks for the call may answer on_success (docs/resilience.md);
  // when another replica changes the breaker during the call, the success
  // goes to the core as a step and its write lands.
  const store = new MemoryStore();
  const x = new Executor({ store });
  assert.equal((await x.call('search', async () => 'ok')).value, 'ok');
  const key = 'toolerr:breaker:search';
  const counted = '{"failures":1,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}';
  const r = await x.call('search', async () => {
    assert.equal(store.compareAndSwap(key, store.load(key), new TextEncoder().encode(counted)).swapped, true);
    return 'ok';
  });
  assert.deepEqual([r.ok, r.attempts], [true, 1]);
  assert.equal(new TextDecoder().decode(store.load(key)),
    '{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}');
});

test('an async store that resolves to what is no bytes (a number, an object) is a store error', async () => {
  for (const v of [5, { a: 1 }]) {
    const x = new Executor({ store: { async load() { return v; }, async compareAndSwap() { return { swapped: false, current: v }; } }, retry: { max_attempts: 1 } });
    const r = await x.call('search', () => { throw new Error('boom'); });
    assert.equal(r.error?.code, 'TOOL_ERROR');
  }
});

test('the executor reads and swaps MemoryStore bytes exactly as its port does', async () => {
  // The executor moves a MemoryStore's values as text (never encoding or
  // decoding them per call); what it writes is read back as bytes by load.
  const key = 'toolerr:breaker:search';
  const store = new MemoryStore();
  const x = new Executor({ store });
  assert.equal((await x.call('search', async () => { throw new ToolFailure({ code: 'TRANSPORT', message: 'down', retryable: false, details: {}, source: 'tool' }); })).ok, false);
  const failed = '{"failures":1,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}';
  assert.equal(new TextDecoder().decode(store.load(key)), failed);
  assert.equal(store.compareAndSwap(key, new TextEncoder().encode(failed), new TextEncoder().encode(FRESH)).swapped, true);
  assert.deepEqual((await x.call('search', async () => 'ok')).ok, true);
  assert.equal(new TextDecoder().decode(store.load(key)), FRESH);
});

test('stored bytes that are not UTF-8 are repaired by one cas', async () => {
  // A step carries the stored bytes as a JSON string (text only), so bytes
  // that are not UTF-8 reach the core as their text with U+FFFD (and a
  // leading BOM as the text without it); the repair's compare-and-swap from
  // that text must compare against the bytes the store holds. It compared
  // the text's UTF-8, which no store held: each call lost 1,000 races (2,004
  // records), fell back on contention and never repaired the key.
  const key = 'toolerr:breaker:search';
  const fresh = new TextEncoder().encode(FRESH);
  // port: a store of the byte-level port only (as a Redis store is), over a MemoryStore.
  const port = (m) => ({ load: (k) => m.load(k), async compareAndSwap(k, o, n) { return m.compareAndSwap(k, o, n); } });
  const spy = spySteps();
  try {
    for (const garbage of [[0xff, 0xfe], [...new TextEncoder().encode('{"phase":"closed'), 0xc3, 0x7d], [0xef, 0xbf, 0xbd, 0xff], [0xef, 0xbb, 0xbf, 0x78]]) {
      for (const wrap of [(m) => m, port]) {
        const mem = new MemoryStore();
        assert.equal(mem.compareAndSwap(key, null, new Uint8Array(garbage)).swapped, true);
        const recs = [];
        spy.sent.length = 0;
        const r = await new Executor({ store: wrap(mem), onDecision: (d) => recs.push(d) }).call('search', async () => 1);
        const name = `${garbage} ${wrap === port ? 'port' : 'MemoryStore'}`;
        assert.deepEqual([r.ok, r.value, r.attempts], [true, 1, 1], name);
        assert.deepEqual(recs.map((d) => d.kind), ['repair', 'breaker', 'call'], name);
        assert.equal(spy.sent.length, 2, name);
        assert.deepEqual(mem.load(key), fresh, name);
      }
    }
  } finally {
    spy.restore();
  }
});

// spySteps counts the requests the runtime sends to the core (every
// toolerr_invoke crossing), until restore(): the module's exports are
// handed to core.js through a copy whose toolerr_invoke records each.
test('stored bytes longer than a state are repaired by one cas', async () => {
  // A value past the core's request limit (32 MiB), or one whose JSON escapes take the request past it
  // (17 MiB of quotes), made every call throw (INVALID_INPUT: the request is too long), and the key was never
  // repaired. Bytes longer than a breaker state may be (64 KiB) go as a text that names their length, and the
  // repair's compare-and-swap compares against the bytes themselves: through the MemoryStore (bytes, or a
  // text of 64 KiB and one character that is 2 bytes of UTF-8), and through the byte-level port alone.
  const key = 'toolerr:breaker:search';
  const fresh = new TextEncoder().encode(FRESH);
  const port = (m) => ({ load: (k) => m.load(k), async compareAndSwap(k, o, n) { return m.compareAndSwap(k, o, n); } });
  const text = (m) => ({ load: (k) => m.load(k) && new TextDecoder().decode(m.load(k)), compareAndSwap: (k, o, n) => m.compareAndSwap(k, o, n) });
  const spy = spySteps();
  try {
    const garbage = [new Uint8Array(40 << 20).fill(0x78), new Uint8Array(17 << 20).fill(0x22),
      new TextEncoder().encode('y'.repeat((64 << 10) - 1) + '\u00e9')];
    for (const g of garbage) {
      for (const wrap of [(m) => m, port, text]) {
        const mem = new MemoryStore();
        assert.equal(mem.compareAndSwap(key, null, g).swapped, true);
        const recs = [];
        spy.sent.length = 0;
        const name = `${g.length} ${wrap === port ? 'port' : wrap === text ? 'text' : 'MemoryStore'}`;
        const r = await new Executor({ store: wrap(mem), onDecision: (d) => recs.push(d) }).call('search', async () => 1);
        assert.deepEqual([r.ok, r.value, r.attempts], [true, 1, 1], name);
        assert.deepEqual(recs.map((d) => d.kind), ['repair', 'breaker', 'call'], name);
        assert.equal(spy.sent.length, 2, name);
        assert.ok(Math.max(...spy.sent.map((t) => t.length)) < 4096, name);
        assert.deepEqual(mem.load(key), fresh, name);
      }
    }
    // A text of 64 KiB in all still goes as itself (the core repairs it too).
    const mem = new MemoryStore();
    mem.compareAndSwap(key, null, 'y'.repeat(64 << 10));
    spy.sent.length = 0;
    assert.equal((await new Executor({ store: mem }).call('search', async () => 1)).ok, true);
    assert.ok(spy.sent.some((t) => t.includes('y'.repeat(64 << 10))));
    assert.deepEqual(mem.load(key), fresh);
  } finally {
    spy.restore();
  }
});

function spySteps() {
  const real = toolerr.wasmExports();
  const sent = [];
  const dec = new TextDecoder();
  const spy = { ...real, toolerr_invoke: (p, n) => {
    sent.push(dec.decode(new Uint8Array(real.memory.buffer, p >>> 0, n)));
    return real.toolerr_invoke(p, n);
  } };
  Object.defineProperty(spy, 'memory', { get: () => real.memory });
  toolerr.setExports(() => spy);
  return { sent, restore: () => toolerr.setExports(() => real) };
}

class TimeoutError extends Error {
  constructor() { super('upstream timed out'); this.name = 'TimeoutError'; }
}

// flaky: a tool whose odd calls time out (a retryable failure) and whose even calls succeed.
function flaky() {
  let n = 0;
  return async () => {
    if (++n % 2) throw new TimeoutError();
    return 'ok';
  };
}

const FRESH = '{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}';

test('a retried call is two crossings', async () => {
  // A call that times out once and then succeeds, on a closed breaker with
  // no deadline, crosses into the core twice (docs/resilience.md, "Answers
  // decided ahead, chained"): its start, and its failure carrying the
  // classify request, whose cas, sleep, next call, success and that
  // success's cas come decided inside the answer. It took seven crossings
  // (six steps and a classification). The decisions are the shared scenarios'.
  const store = new MemoryStore();
  const x = new Executor({ store, sleep: async () => {} });
  const fn = flaky();
  assert.equal((await x.call('search', fn)).ok, true); // the key written, counted, then reset
  const spy = spySteps();
  try {
    const r = await x.call('search', fn);
    assert.deepEqual([r.ok, r.value, r.attempts], [true, 'ok', 2]);
    assert.equal(spy.sent.length, 2, spy.sent.map((s) => s.slice(0, 160)).join('\n'));
    assert.ok(spy.sent[1].includes('"classify":{"op":"classify_exception","exception":{"type":"TimeoutError","message":"upstream timed out"},"tool":"search"}'), spy.sent[1]);
    assert.equal(new TextDecoder().decode(store.load('toolerr:breaker:search')), FRESH);
    // That start stood on the fresh breaker: the next retried call applies
    // it and crosses once, for its failure.
    spy.sent.length = 0;
    const again = await x.call('search', fn);
    assert.deepEqual([again.ok, again.attempts, spy.sent.length], [true, 2, 1]);
    assert.ok(spy.sent[0].includes('"event":{"kind":"failure"'), spy.sent[0]);
    // With a timeout the answers that read the clock are left to their steps.
    spy.sent.length = 0;
    const t = await new Executor({ store, sleep: async () => {}, timeoutMs: 60000 }).call('search', fn);
    assert.deepEqual([t.ok, t.attempts, spy.sent.length], [true, 2, 5]);
  } finally {
    spy.restore();
  }
});

test('answers decided ahead yield to a breaker opened meanwhile', async () => {
  // A call whose next attempt was decided ahead of its sleep on a closed
  // breaker, while another call opens the breaker during that sleep, sends
  // its slept step after all and is refused (CIRCUIT_OPEN), as without
  // answers decided ahead.
  let sleeps = 0, calls = 0;
  const x = new Executor({
    sleep: async () => {
      if (++sleeps === 1) {
        const other = await x.call('search', async () => { throw new TimeoutError(); });
        assert.equal(other.error?.code, 'CIRCUIT_OPEN');
      }
    },
  });
  const r = await x.call('search', async () => { calls++; throw new TimeoutError(); });
  assert.deepEqual([r.error?.code, r.attempts, calls], ['CIRCUIT_OPEN', 1, 1]);
});

test('a cas decided ahead to swap yields to a write that won the race', async () => {
  // The failure's cas comes with its swapped answer decided ahead
  // (on_swapped); when another replica writes the key first, the cas does
  // not swap, the cas step is sent, and the failure is counted on the
  // bytes that won: two failures, not the other replica's one alone.
  const key = 'toolerr:breaker:search';
  const store = new MemoryStore();
  const counted = (n) => `{"failures":${n},"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}`;
  let raced = false;
  const racing = {
    load: (k) => store.load(k),
    compareAndSwap(k, old, next) {
      if (!raced) {
        raced = true;
        assert.equal(store.compareAndSwap(k, store.load(k), new TextEncoder().encode(counted(1))).swapped, true);
      }
      return store.compareAndSwap(k, old, next);
    },
  };
  const x = new Executor({ store: racing, retry: { max_attempts: 1 } });
  const r = await x.call('search', async () => { throw new TimeoutError(); });
  assert.deepEqual([r.error?.code, r.attempts], ['TIMEOUT', 1]);
  assert.equal(new TextDecoder().decode(store.load(key)), counted(2));
  assert.equal(new TextDecoder().decode(x.replicaState('search')), counted(2));
});

test('a failure classified inside its step is failureEnvelope', async () => {
  // The failure event carries the request failureEnvelope sends first
  // (classify); the envelope the call stops with is failureEnvelope's, a
  // request the core refuses (a status outside 100-599) falling back to it.
  const sdk = (status, headers, message) => Object.assign(new Error(message), { status, headers });
  const thrown = [new TimeoutError(), new TypeError('bad value'), sdk(503, { 'retry-after': '2' }, 'down'),
    sdk(400, {}, '{"error": "bad query"}'), sdk(429, { 'retry-after': '7' }, 'slow down'), sdk(999, {}, 'odd'),
    Object.assign(Object.create(null), { status: 10 ** 30 })];
  for (const e of thrown) {
    const want = toolerr.failureEnvelope(e, 'search');
    const r = await new Executor({ retry: { max_attempts: 1 } }).call('search', async () => { throw e; });
    assert.deepEqual(r.error, want, `${e?.constructor?.name} ${e?.status}`);
  }
});

test('a successful call makes no crossing once its start stands', async () => {
  // A start step asked with standing answers "stands" where the same start
  // gets the same bytes at any time (docs/resilience.md, "A start answer
  // that stands"): the executor keeps that answer and applies it to the
  // next call whose load made ahead and replica are what it stood for, its
  // success decided ahead, so a closed breaker's successful call crosses
  // into the core zero times (it took one: the start, its success decided
  // ahead). A store of the port alone (as RedisStore is) keeps it too.
  const key = 'toolerr:breaker:search';
  const port = (m) => ({ load: async (k) => m.load(k), async compareAndSwap(k, o, n) { return m.compareAndSwap(k, o, n); } });
  const spy = spySteps();
  try {
    for (const [name, preset, wrap, want] of [['MemoryStore', false, (m) => m, [1, 0, 0, 0]],
      ['port', false, port, [1, 0, 0, 0]], ['MemoryStore holding a fresh breaker', true, (m) => m, [1, 1, 0, 0]],
      ['port holding a fresh breaker', true, port, [1, 1, 0, 0]]]) {
      const mem = new MemoryStore();
      // A fresh breaker this replica has not seen: the first start changes
      // the replica (it does not stand), the second stands.
      if (preset) assert.equal(mem.compareAndSwap(key, null, new TextEncoder().encode(FRESH)).swapped, true);
      const x = new Executor({ store: wrap(mem) });
      const counts = [];
      for (let i = 0; i < 4; i++) {
        spy.sent.length = 0;
        const r = await x.call('search', async () => 'ok', { args: { q: i } });
        assert.deepEqual([r.ok, r.value, r.attempts], [true, 'ok', 1], name);
        counts.push(spy.sent.length);
      }
      assert.deepEqual(counts, want, name);
      assert.deepEqual(mem.load(key), preset ? new TextEncoder().encode(FRESH) : null, name);
    }
  } finally {
    spy.restore();
  }
});

test('the start answer kept logs the records the start step gives', async () => {
  // The decisions logged for a call whose start was applied from the kept
  // answer are the records of the steps an executor sends when it keeps
  // none (the same objects' contents, each call's own objects), to
  // onDecision, a 'decision' listener added after the answer was kept, and
  // console.
  const spy = spySteps();
  try {
    const sentRecords = [];
    await new Executor({ onDecision: (d) => sentRecords.push(d) }).call('search', async () => 'ok');
    assert.deepEqual(sentRecords.map((d) => d.kind), ['breaker', 'call']);
    const recs = [], events = [], lines = [];
    const x = new Executor({ onDecision: (d) => recs.push(d) });
    await x.call('search', async () => 'ok'); // sent: its start stands
    recs.length = 0;
    spy.sent.length = 0;
    await x.call('search', async () => 'ok');
    await x.call('search', async () => 'ok');
    assert.equal(spy.sent.length, 0);
    assert.deepEqual(recs, [...sentRecords, ...sentRecords]);
    assert.notEqual(recs[0], recs[2]);
    // An executor nobody listened to when it kept the answer.
    const quiet = new Executor({ console: { debug: (l) => lines.push(l), info: () => {}, warn: () => {} } });
    const silent = new Executor();
    await silent.call('search', async () => 'ok');
    silent.addEventListener('decision', (e) => events.push(e.detail));
    spy.sent.length = 0;
    await silent.call('search', async () => 'ok');
    assert.equal(spy.sent.length, 0);
    assert.deepEqual(events, sentRecords);
    await quiet.call('search', async () => 'ok');
    lines.length = 0;
    await quiet.call('search', async () => 'ok');
    assert.deepEqual(lines, sentRecords.map((d) => `toolerr decision ${JSON.stringify(d)}`));
  } finally {
    spy.restore();
  }
});

test('a start kept yields to a breaker another replica opened', async () => {
  // Two executors share a store. One keeps the fresh breaker's start; the
  // other opens the breaker; the first one's next call loads the open
  // state ahead, which is not what its kept answer stood for, so it sends
  // the start step and is refused without calling the tool.
  const store = new MemoryStore();
  const a = new Executor({ store, retry: { max_attempts: 1 } });
  const b = new Executor({ store, retry: { max_attempts: 1 } });
  const spy = spySteps();
  try {
    assert.ok((await a.call('search', async () => 'ok')).ok);
    spy.sent.length = 0;
    assert.ok((await a.call('search', async () => 'ok')).ok);
    assert.equal(spy.sent.length, 0);
    for (let i = 0; i < 3; i++) assert.equal((await b.call('search', async () => { throw new TimeoutError(); })).error?.code, 'TIMEOUT');
    assert.match(new TextDecoder().decode(store.load('toolerr:breaker:search')), /"phase":"open"/);
    let calls = 0;
    spy.sent.length = 0;
    const r = await a.call('search', async () => { calls++; return 'ok'; });
    assert.deepEqual([r.error?.code, r.attempts, calls, spy.sent.length], ['CIRCUIT_OPEN', 0, 0, 1]);
  } finally {
    spy.restore();
  }
});

test('a start kept is applied only while the load and the replica hold', async () => {
  // The kept answer holds while the load made ahead answers exactly its
  // if_loaded and the replica is {0, if_loaded}. A counted failure in the
  // store (the load moved), this replica's own counted failure while
  // another replica reset the store to the bytes it stood for (the replica
  // moved), and a store in its back-off window (no load made ahead, the
  // replica's down_until_ms set) each send the start step.
  const key = 'toolerr:breaker:search';
  const fresh = new TextEncoder().encode(FRESH);
  const store = new MemoryStore();
  assert.equal(store.compareAndSwap(key, null, fresh).swapped, true);
  const a = new Executor({ store, retry: { max_attempts: 1 } });
  const b = new Executor({ store, retry: { max_attempts: 1 } });
  const fail = async () => { throw new TimeoutError(); };
  const ok = async () => 'ok';
  const spy = spySteps();
  // The call's outcome and the events of the steps it sent.
  const crossings = async (x, fn) => {
    spy.sent.length = 0;
    const r = await x.call('search', fn);
    return [r.ok, ...spy.sent.map((s) => s.match(/"event":\{"kind":"(\w+)"/)[1])];
  };
  try {
    // The first start changes the replica (not standing), the second stands.
    assert.deepEqual([await crossings(a, ok), await crossings(a, ok), await crossings(a, ok)], [[true, 'start'], [true, 'start'], [true]]);
    assert.equal((await b.call('search', fail)).ok, false); // the store counts a failure: the load moved
    assert.deepEqual(await crossings(a, ok), [true, 'start']); // its success resets the count (a cas decided ahead)
    assert.deepEqual(store.load(key), fresh);
    assert.deepEqual(await crossings(a, ok), [true]);
    assert.equal((await a.call('search', fail)).ok, false); // this replica saw the count...
    assert.ok((await b.call('search', ok)).ok); // ...and the other reset it to the bytes a's answer stood for
    assert.deepEqual(store.load(key), fresh);
    assert.notDeepEqual(a.replicaState('search'), fresh);
    assert.deepEqual((await crossings(a, ok)).slice(0, 2), [true, 'start']); // the replica moved: sent
    assert.deepEqual(await crossings(a, ok), [true]);

    // A store that fails: its back-off window opens, the breaker decides on
    // the replica's state, and no start is applied until a load made ahead
    // answers again (the first call after the window sends it, the next applies it).
    let now = 1_000_000, down = false;
    const mem = new MemoryStore();
    const flaky = {
      load: (k) => { if (down) throw new Error('connection refused'); return mem.load(k); },
      compareAndSwap: (k, o, n) => { if (down) throw new Error('connection refused'); return mem.compareAndSwap(k, o, n); },
    };
    const c = new Executor({ store: flaky, clock: () => now });
    assert.deepEqual([await crossings(c, ok), await crossings(c, ok)], [[true, 'start'], [true]]);
    down = true;
    assert.deepEqual((await crossings(c, ok)).slice(0, 2), [true, 'start']); // the load ahead failed: the window opens
    down = false;
    now += 10;
    assert.deepEqual((await crossings(c, ok)).slice(0, 2), [true, 'start']); // inside the window: no load made ahead
    now += 2_000;
    assert.deepEqual((await crossings(c, ok)).slice(0, 2), [true, 'start']); // after it: the load answers again
    assert.deepEqual(await crossings(c, ok), [true]);
  } finally {
    spy.restore();
  }
});

test('no start stands with a timeout, a budget or the loop guard', async () => {
  // The call's deadline (timeoutMs: the executor sends the core no other
  // caller deadline; an AbortSignal is never part of a step), the run's
  // budget and the loop guard read the clock or the run's state at the
  // start: every start is a step. A budget or loop guard set on an
  // executor that kept an answer without them sends its start too.
  const spy = spySteps();
  try {
    for (const [name, x] of [['timeout', new Executor({ timeoutMs: 60000 })], ['budget', new Executor({ budget: new Budget({ steps: 100 }) })],
      ['loop guard', new Executor({ loopGuard: new LoopGuard() })]]) {
      const counts = [];
      for (let i = 0; i < 3; i++) {
        spy.sent.length = 0;
        assert.ok((await x.call('search', async () => 'ok')).ok, name);
        counts.push(spy.sent.length);
      }
      assert.ok(counts.every((c) => c >= 1), `${name}: ${counts}`);
      assert.ok(spy.sent.every((s) => !s.includes('"stands"')), name);
    }
    const x = new Executor();
    await x.call('search', async () => 'ok');
    const budget = new Budget({ steps: 1 });
    x.budget = budget;
    spy.sent.length = 0;
    assert.ok((await x.call('search', async () => 'ok')).ok);
    assert.match(spy.sent[0], /"budget":\{"limits":\{"steps":1\},"state":null\}.*"event":\{"kind":"start"|"event":\{"kind":"start".*"budget":/);
    assert.equal(budget.state?.steps, 1);
    x.budget = null;
    x.loopGuard = new LoopGuard();
    spy.sent.length = 0;
    assert.ok((await x.call('search', async () => 'ok')).ok);
    assert.match(spy.sent[0], /"event":\{"kind":"start".*"loop":/);
  } finally {
    spy.restore();
  }
});

test('a draw outside [0, 1) is refused in the words of every executor', async () => {
  // A draw of undefined (or a function, a symbol) was written into the failure event as the text undefined,
  // which is no JSON: the core refused the request as "not valid JSON"; a BigInt threw JSON.stringify's
  // TypeError. Python and Rust write what is no JSON number as null, and the core says why it refuses it.
  for (const draw of [undefined, () => 0.5, Symbol('d'), 1n, NaN, Infinity, 1.5]) {
    const x = new Executor({ sleep: async () => {}, draw: () => draw });
    await assert.rejects(x.call('search', async () => { throw new Error('connect ECONNRESET'); }),
      (e) => e instanceof toolerr.ToolerrError && e.envelope.message === 'toolerr: event.draw: is required: a uniform random number in [0, 1).',
      String(draw));
  }
});

test('bad numeric options reach the core and are INVALID_INPUT at their path', async () => {
  // Before: `if (options.timeoutMs)` left 0, NaN and null out silently (no timeout), Math.max(1, floor) turned
  // a negative into 1 ms, and a loop guard of threshold 0 (or NaN) was sent without it: the default 3.
  const cases = [
    [{ timeoutMs: -5 }, 'timeout_ms'], [{ timeoutMs: 0 }, 'timeout_ms'], [{ timeoutMs: NaN }, 'timeout_ms'],
    [{ timeoutMs: null }, 'timeout_ms'], [{ timeoutMs: Infinity }, 'timeout_ms'], [{ timeoutMs: '100' }, 'timeout_ms'],
    [{ storeBackoffMs: -1 }, 'store_backoff_ms'], [{ storeBackoffMs: 0 }, 'store_backoff_ms'],
    [{ loopGuard: new LoopGuard(0) }, 'loop.threshold'], [{ loopGuard: new LoopGuard(NaN) }, 'loop.threshold'],
    [{ loopGuard: new LoopGuard(-1) }, 'loop.threshold'],
    [{ budget: new Budget({ steps: -1 }) }, 'budget.limits.steps'],
  ];
  for (const [options, path] of cases) {
    let calls = 0;
    const x = new Executor(options);
    await assert.rejects(x.call('search', async () => { calls++; return 'ok'; }),
      (e) => e instanceof toolerr.ToolerrError && e.envelope.code === 'INVALID_INPUT' && e.envelope.details.path === path,
      JSON.stringify(options));
    assert.equal(calls, 0, path);
  }
});

test('a fractional timeout rounds up to a whole millisecond', async () => {
  // Math.floor made 0.5 ms 0 and Math.max(1, ...) then 1; 1.5 ms was 1. Up: 0.001 is 1, 1.5 is 2.
  for (const [timeoutMs, want] of [[0.001, 1], [1.5, 2], [250, 250]]) {
    const spy = spySteps();
    try {
      await new Executor({ timeoutMs }).call('search', async () => 'ok');
      assert.match(spy.sent[0], new RegExp(`"timeout_ms":${want}[,}]`), String(timeoutMs));
    } finally {
      spy.restore();
    }
  }
});
