// The toolerr runtime for Node (runtime.js's Executor, redis.js's RedisStore
// over ioredis) beside the Node peers on the same work: opossum (a circuit
// breaker) and cockatiel (retry and circuit-breaker policies). Run by
// scripts/bench-runtime.sh.
//
// The work: one tool call whose every fifth attempt throws a retryable
// TimeoutError (20% of attempts fail), retried up to 3 attempts; the breaker
// stays closed, as it does most of the time. Sleeping is switched off: the
// toolerr Executor's sleep option is a resolved promise; cockatiel has no
// sleep hook and always waits on setTimeout, which Node holds for at least
// 1 ms even at 0, so while cockatiel runs a zero-delay setTimeout is a
// setImmediate (one turn of the event loop). Each contender must end every
// call with the tool's value after the same number of attempts.
//
//   * decision overhead, in process: CPU time per call above a plain
//     try/catch retry loop doing the same calls; toolerr (retry and breaker)
//     beside opossum (breaker only, under the plain loop) and cockatiel
//     (wrap(retry, circuitBreaker): retry and breaker, what toolerr does);
//     then the same on successful calls alone (no attempt fails), what a
//     closed breaker's call costs;
//   * Redis-backed throughput (calls per wall-clock second, one replica, the redis-server at
//     TOOLERR_BENCH_REDIS): neither opossum nor cockatiel keeps breaker state
//     outside the process, so there is no peer to compare with; toolerr's
//     RedisStore is shown beside one ioredis GET per call, the floor of any
//     shared breaker, and beside its own in-memory figure.
//
// Rounds are interleaved (every contender once per round, the order rotating)
// and each ratio is the median of the per-round ratios. BENCH_ROUNDS (default
// 7) and BENCH_RUNTIME_CALLS (default 2000) set the size.
// TOOLERR_BENCH_BEFORE=dir names another copy of the package (an earlier
// revision's bindings/node, with a toolerr.wasm and node_modules): its
// Executor and RedisStore run as one more contender ("toolerr before"), so a
// change is measured before and after in the same rounds.
// TOOLERR_NATIVE_ADDON=file (bench-runtime.sh sets it when DIST holds
// toolerr_native.node): the same Executor (and the before one) run once more
// over the native addon (setTransport for that contender's calls only, the
// wasm for every other), as "toolerr over toolerr-native", what an
// application that imports toolerr/native gets.
import { readFileSync } from 'node:fs';
import { Executor, invokeBytes, setTransport, transport } from '../index.js';
import { loadAddon } from '../native-addon.js';
import { RedisStore } from '../redis.js';
import CircuitBreaker from 'opossum';
import { ConsecutiveBreaker, ConstantBackoff, circuitBreaker, handleType, retry, wrap } from 'cockatiel';
import { Redis } from 'ioredis';

const beforeDir = process.env.TOOLERR_BENCH_BEFORE;
const before = beforeDir ? {
  Executor: (await import(`${beforeDir}/index.js`)).Executor,
  RedisStore: (await import(`${beforeDir}/redis.js`)).RedisStore,
  setTransport: (await import(`${beforeDir}/index.js`)).setTransport,
} : null;
// The addon, when named and this thread's transport is the wasm (TOOLERR_NATIVE
// unset): overAddon(set, run) runs run's calls over it, set being the
// setTransport of the package copy whose Executor run uses.
const addon = process.env.TOOLERR_NATIVE_ADDON && transport() === 'wasm' ? loadAddon() : null;
const overAddon = (set, run) => async (n) => {
  set(addon);
  try {
    return await run(n);
  } finally {
    set(null);
  }
};

const FAIL_EVERY = 5;
const MAX_ATTEMPTS = 3;

class TimeoutError extends Error {
  constructor() { super('upstream timed out'); this.name = 'TimeoutError'; } // classified TIMEOUT, retryable
}

// The tool: every failEvery-th attempt throws TimeoutError (0: none), the rest return 'ok'.
function makeTool(failEvery = FAIL_EVERY) {
  const tool = async () => {
    tool.attempts++;
    if (failEvery && tool.attempts % failEvery === 0) throw new TimeoutError();
    return 'ok';
  };
  tool.attempts = 0;
  return tool;
}

async function plainRetry(call) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      if (!(e instanceof TimeoutError) || attempt === MAX_ATTEMPTS) throw e;
    }
  }
}

const realSetTimeout = globalThis.setTimeout;
function immediateZeroTimers(on) {
  globalThis.setTimeout = on
    ? (fn, ms, ...args) => (ms ? realSetTimeout(fn, ms, ...args) : setImmediate(fn, ...args))
    : realSetTimeout;
}

// A contender: make(tool) returns one protected call; run(n) times n of them
// and checks each returned the tool's value after the plain loop's attempts
// (the tool failing every failEvery-th attempt, 0: never).
// clock() is in seconds: cpu (the process's CPU time, every thread, V8's
// too: a machine shared with other work disturbs it far less than wall time)
// for the overhead, wall for throughput.
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const wall = () => Number(process.hrtime.bigint()) / 1e9;
function runner(make, clock, { zeroTimers = false, failEvery = FAIL_EVERY } = {}) {
  return async (n) => {
    const tool = makeTool(failEvery);
    const call = make(tool);
    immediateZeroTimers(zeroTimers);
    const t0 = clock();
    try {
      for (let i = 0; i < n; i++) {
        if ((await call()) !== 'ok') throw new Error('a call did not return the tool\'s value');
      }
    } finally {
      immediateZeroTimers(false);
    }
    const s = clock() - t0;
    const want = n + (failEvery ? Math.floor(n / (failEvery - 1)) : 0);
    if (Math.abs(tool.attempts - want) > 1) throw new Error(`${tool.attempts} attempts for ${n} calls, want ${want}`);
    return s;
  };
}

const noSleep = async () => {};
const policy = { max_attempts: MAX_ATTEMPTS, base_ms: 500, cap_ms: 8000 };
const settings = { failure_threshold: 3, open_ms: 30000, success_threshold: 2 };
const executor = (store, Ex = Executor) => new Ex({ sleep: noSleep, store, retry: policy, breaker: settings });

// The step op's requests for one successful call on a closed breaker, as the
// Executor sends them when it holds no start answer that stood (each with its
// load made ahead, the answers decided ahead asked: on_success, on_swapped,
// on_slept, and standing): the start step, and the success step only when the
// core did not decide it ahead. What the core is asked per such call,
// whatever the binding does around it; once a start stood, a successful call
// sends none of them.
function stepRequests() {
  const enc = new TextEncoder(), dec = new TextDecoder();
  const out = [];
  let state = null, r;
  const loaded = { kind: 'loaded', value: null };
  for (const event of [{ kind: 'start', loaded }, { kind: 'success', loaded }]) {
    const req = enc.encode(JSON.stringify({ op: 'step', tool: 'search', policy, settings, on_success: true,
      on_swapped: true, on_slept: true, standing: true, state, event,
      now_ms: Date.now(), replica: { down_until_ms: 0, state: null } }));
    r = JSON.parse(dec.decode(invokeBytes(req))).ok;
    out.push(req);
    if (r.on_success) { r = r.on_success; break; }
    state = r.state;
  }
  if (r.action.kind !== 'stop') throw new Error(`the step requests do not end the call: ${JSON.stringify(r.action)}`);
  return out;
}

// n times the step requests of one call through invokeBytes (into the wasm core and back).
const coreFloor = (reqs) => async (n) => {
  const t0 = cpu();
  for (let i = 0; i < n; i++) for (const req of reqs) invokeBytes(req);
  return cpu() - t0;
};
const toolerrCall = (ex) => (tool) => async () => {
  const r = await ex.call('search', tool);
  if (!r.ok) throw new Error(`toolerr: ${JSON.stringify(r.error)}`);
  return r.value;
};

async function rounds(contenders, n, count) {
  const names = Object.keys(contenders);
  for (const name of names) await contenders[name](Math.max(1, Math.floor(n / 10))); // warm-up
  const out = [];
  for (let i = 0; i < count; i++) {
    const k = i % names.length;
    const r = {};
    for (const name of [...names.slice(k), ...names.slice(0, k)]) r[name] = await contenders[name](n);
    out.push(r);
  }
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const pad = (s, n) => s + ' '.repeat(Math.max(0, n - s.length));
const fixed = (x, d, w) => x.toFixed(d).padStart(w);
const version = (p) => JSON.parse(readFileSync(new URL(`./node_modules/${p}/package.json`, import.meta.url))).version;

// The decision overhead on the work (failEvery FAIL_EVERY), or on successful
// calls alone (failEvery 0: what a closed breaker's call costs when nothing
// fails), each contender beside the plain loop.
async function inProcess(n, count, failEvery = FAIL_EVERY) {
  const ex = executor();
  const steps = stepRequests();
  const opossum = new CircuitBreaker((tool) => tool(), {
    timeout: false, resetTimeout: 30000, errorThresholdPercentage: 50, rollingCountTimeout: 10000,
  });
  const cockatiel = wrap(
    retry(handleType(TimeoutError), { maxAttempts: MAX_ATTEMPTS - 1, backoff: new ConstantBackoff(0) }),
    circuitBreaker(handleType(TimeoutError), { halfOpenAfter: 30000, breaker: new ConsecutiveBreaker(3) }),
  );
  const f = { failEvery };
  const contenders = {
    plain: runner((tool) => () => plainRetry(tool), cpu, f),
    toolerr: runner(toolerrCall(ex), cpu, f),
    opossum: runner((tool) => () => plainRetry(() => opossum.fire(tool)), cpu, f),
    cockatiel: runner((tool) => () => cockatiel.execute(() => tool()), cpu, { zeroTimers: true, ...f }),
    core: coreFloor(steps),
  };
  if (before) contenders.before = runner(toolerrCall(executor(undefined, before.Executor)), cpu, f);
  if (addon) contenders.native = overAddon(setTransport, runner(toolerrCall(executor()), cpu, f));
  if (addon && before) {
    contenders.nativeBefore = overAddon(before.setTransport, runner(toolerrCall(executor(undefined, before.Executor)), cpu, f));
  }
  const rs = await rounds(contenders, n, count);
  const over = (r, k) => (r[k] - r.plain) / n * 1e6;
  const lines = [['toolerr', median(rs.map((r) => over(r, 'toolerr'))), 1]];
  for (const peer of ['opossum', 'cockatiel']) {
    lines.push([peer, median(rs.map((r) => over(r, peer))), median(rs.map((r) => over(r, peer) / over(r, 'toolerr')))]);
  }
  const plain = median(rs.map((r) => r.plain / n * 1e6));
  const work = failEvery ? '' : ', successful calls alone';
  console.log(`== node ${process.versions.node}, in process${work}: decision overhead per call (µs above the plain loop, `
    + `${plain.toFixed(2)} µs/call; median of ${count} rounds of ${n} calls)`);
  const label = { toolerr: 'toolerr Executor', opossum: 'opossum (under the plain loop)',
    cockatiel: 'cockatiel wrap(retry, circuitBreaker)' };
  for (const [name, us, ratio] of lines) {
    console.log(`  ${pad(label[name], 44)} ${fixed(us, 2, 9)} µs/call`
      + (name === 'toolerr' ? '' : `   toolerr ${fixed(ratio, 2, 6)}x its speed`));
  }
  if (before) {
    console.log(`  ${pad('toolerr before (TOOLERR_BENCH_BEFORE)', 44)} ${fixed(median(rs.map((r) => over(r, 'before'))), 2, 9)} µs/call`
      + `   toolerr ${fixed(median(rs.map((r) => over(r, 'before') / over(r, 'toolerr'))), 2, 6)}x its speed`);
  }
  // Each row over the addon beside its own Executor over the wasm (the
  // before one beside the before Executor) and the peers, as its speed.
  const speed = (k, peer) => fixed(median(rs.map((r) => over(r, peer) / over(r, k))), 2, 6);
  for (const [k, name, wasm] of [['native', 'toolerr over toolerr-native', 'toolerr'],
    ['nativeBefore', 'toolerr before over toolerr-native', 'before']]) {
    if (!(k in contenders)) continue;
    console.log(`  ${pad(name, 44)} ${fixed(median(rs.map((r) => over(r, k))), 2, 9)} µs/call   ${speed(k, wasm)}x the wasm's speed, `
      + `${speed(k, 'cockatiel')}x cockatiel's, ${speed(k, 'opossum')}x opossum's`);
  }
  const core = median(rs.map((r) => r.core / n * 1e6));
  console.log(`  the core: the step crossings of a successful call whose start is not kept (${steps.length}) through invokeBytes `
    + `${core.toFixed(2)} µs/call (none once a start stood)`);
  return lines;
}

async function throughRedis(addr, n, count) {
  const [host, port] = [addr.slice(0, addr.lastIndexOf(':')), Number(addr.slice(addr.lastIndexOf(':') + 1))];
  const client = new Redis({ host, port, commandTimeout: 1000, maxRetriesPerRequest: 0 });
  const raw = new Redis({ host, port, maxRetriesPerRequest: 0 });
  await client.flushdb();
  const store = new RedisStore(client);
  const shared = executor(store), local = executor();
  const contenders = {
    toolerr: runner(toolerrCall(shared), wall),
    memory: runner(toolerrCall(local), wall),
    floor: runner((tool) => async () => { await raw.getBuffer('toolerr:breaker:search'); return plainRetry(tool); }, wall),
  };
  const beforeClient = before ? new Redis({ host, port, commandTimeout: 1000, maxRetriesPerRequest: 0 }) : null;
  if (before) contenders.before = runner(toolerrCall(executor(new before.RedisStore(beforeClient), before.Executor)), wall);
  const rs = await rounds(contenders, n, count);
  const rate = (r, k) => n / r[k];
  console.log(`== node, through Redis: calls per second, one replica (median of ${count} rounds of ${n} calls)`);
  console.log('  (no peer: opossum and cockatiel keep breaker state in the process only, so replicas do not share it)');
  const label = { toolerr: 'toolerr Executor + RedisStore (ioredis)', memory: 'toolerr Executor, in memory',
    floor: 'floor: one ioredis GET per call', before: 'toolerr before (TOOLERR_BENCH_BEFORE)' };
  const lines = [];
  for (const k of ['toolerr', 'memory', 'floor', ...(before ? ['before'] : [])]) {
    const ratio = median(rs.map((r) => rate(r, 'toolerr') / rate(r, k)));
    lines.push([k, median(rs.map((r) => rate(r, k))), ratio]);
    console.log(`  ${pad(label[k], 44)} ${fixed(median(rs.map((r) => rate(r, k))), 0, 9)} calls/s`
      + (k === 'toolerr' ? '' : `   toolerr ${fixed(ratio, 2, 6)}x`));
  }
  await client.quit();
  await raw.quit();
  await beforeClient?.quit();
  return lines;
}

const n = Number(process.env.BENCH_RUNTIME_CALLS ?? 2000);
const count = Number(process.env.BENCH_ROUNDS ?? 7);
console.log(`node peers: ${['opossum', 'cockatiel', 'ioredis'].map((p) => `${p} ${version(p)}`).join(', ')}`);
const lines = await inProcess(n, count);
await inProcess(n, count, 0);
const addr = process.env.TOOLERR_BENCH_REDIS;
if (addr) await throughRedis(addr, Math.max(1, Math.floor(n / 2)), count);
else console.log('== node, through Redis: skipped (TOOLERR_BENCH_REDIS is not set)');
console.log('== node goals (speed relative to each peer, medians of per-round ratios)');
for (const [name, , ratio] of lines.slice(1)) {
  console.log(`  decision overhead vs ${name}: toolerr ${ratio.toFixed(2)}x the peer's, goal >= 1.00x ${ratio >= 1 ? 'met' : 'missed'}`);
}
console.log('  Redis throughput: no Node peer shares breaker state through Redis; not compared');
