// toolerr/redis on a real redis-server started on a free loopback port (stopped after, by pid).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, existsSync, copyFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Executor, ToolFailure } from '../index.js';
import { RedisStore, CAS_SCRIPT, WRONG_TYPE_STATE } from '../redis.js';

let server, url;
const bin = (() => { try { return execFileSync('sh', ['-c', 'command -v redis-server']).toString().trim(); } catch { return ''; } })();
const skip = bin ? false : (process.env.CI ? false : 'redis-server not found: run scripts/setup-redis.sh');

const freePort = () => new Promise((res) => { const s = createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); }); });

before(async () => {
  if (skip) return;
  assert.ok(bin, 'redis-server not found under CI: run scripts/setup-redis.sh');
  const port = await freePort();
  server = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', mkdtempSync(join(tmpdir(), 'toolerr-redis-'))], { stdio: 'ignore' });
  url = `redis://127.0.0.1:${port}/0`;
  for (let i = 0; i < 500; i++) {
    try { const s = await RedisStore.connect(url); await s.close(); return; } catch { await new Promise((r) => setTimeout(r, 20)); }
  }
  throw new Error('redis-server did not answer');
});
after(() => { if (server) { server.kill('SIGCONT'); server.kill('SIGKILL'); } });

const fail = () => { throw new ToolFailure({ code: 'TRANSPORT', message: 'The tool is unavailable.', retryable: true, details: { status: 503 }, source: 'tool' }); };
const enc = (s) => new TextEncoder().encode(s);
const dec = (b) => (b === null ? null : new TextDecoder().decode(b));

test('the script is the one Go embeds', { skip: !existsSync(new URL('../../../redisstore/cas.lua', import.meta.url)) }, () => {
  const go = readFileSync(new URL('../../../redisstore/cas.lua', import.meta.url));
  assert.equal(createHash('sha1').update(CAS_SCRIPT).digest('hex'), createHash('sha1').update(go).digest('hex'));
});

test("connect() gives the client's connect 500 ms and each command the store's deadline", { skip }, async (t) => {
  // connect() is awaited before the store exists; with a 50 ms connectTimeout it rejected on a loaded machine.
  const s = await RedisStore.connect(url);
  t.after(() => s.close()); // closed when an assertion fails too: an open client keeps the file's process alive
  assert.deepEqual([s.client.options.connectTimeout, s.client.options.commandTimeout], [500, 50]);
  // Before Redis first answers (the ready check's INFO), a command gets the connect deadline: a server that
  // answers INFO after 200 ms is connected to, not refused at 50 ms.
  const late = await new Promise((res) => {
    // a nil per command (ioredis's CLIENT SETINFO twice, then INFO), each 200 ms late
    const nils = (d) => '$-1\r\n'.repeat(d.toString().match(/(^|\n)\*\d+\r\n/g)?.length ?? 0);
    const srv = createServer((c) => c.on('data', (d) => setTimeout(() => c.write(nils(d)), 200))).listen(0, '127.0.0.1', () => res(srv));
  });
  try {
    const l = await RedisStore.connect(`redis://127.0.0.1:${late.address().port}/0`);
    assert.equal(l.client.options.commandTimeout, 50);
    l.client.disconnect();
  } finally { late.close(); }
  const slow = await RedisStore.connect(url, { timeoutMs: 800 });
  t.after(() => slow.close());
  assert.deepEqual([slow.client.options.connectTimeout, slow.client.options.commandTimeout], [800, 800]);
});

test('compareAndSwap', { skip }, async (t) => {
  // not a test of the deadline: 50 ms per command timed out on a loaded machine
  const s = await RedisStore.connect(url, { timeoutMs: 1000 });
  t.after(() => s.close()); // closed when an assertion fails too, or the run waits out its timeout
  await s.client.del('k');
  assert.equal(await s.load('k'), null);
  assert.deepEqual(await s.compareAndSwap('k', enc('x'), enc('a')), { swapped: false, current: null });
  assert.deepEqual(await s.compareAndSwap('k', null, enc('a')), { swapped: true, current: null });
  assert.equal(dec((await s.compareAndSwap('k', null, enc('b'))).current), 'a');
  assert.equal(dec((await s.compareAndSwap('k', enc('z'), enc('b'))).current), 'a');
  assert.equal((await s.compareAndSwap('k', enc('a'), enc('b'))).swapped, true);
  assert.equal(dec(await s.load('k')), 'b');
});

test('replicas share one breaker', { skip }, async (t) => {
  const stores = [];
  t.after(async () => { for (const x of stores) await x.close(); });
  for (let i = 0; i < 3; i++) {
    const s = await RedisStore.connect(url, { timeoutMs: 1000 }); stores.push(s); // a loaded CI machine: no fallback here
    await new Executor({ store: s, retry: { max_attempts: 1 } }).call('node-shared', fail);
  }
  const s = await RedisStore.connect(url, { timeoutMs: 1000 }); stores.push(s);
  let calls = 0;
  const r = await new Executor({ store: s }).call('node-shared', () => { calls++; });
  assert.equal(r.error.code, 'CIRCUIT_OPEN');
  assert.equal(calls, 0);
  assert.match(dec(await s.load('toolerr:breaker:node-shared')), /^\{"failures":0,"open_until_ms":\d+,"phase":"open"/);
});

test('a paused server costs one deadline per back-off window', { skip }, async (t) => {
  const s = await RedisStore.connect(url, { timeoutMs: 30 });
  t.after(() => s.close());
  const records = [];
  const x = new Executor({ store: s, storeBackoffMs: 300, onDecision: (r) => records.push(r) });
  // Warmed until one call is answered by the store: on a loaded machine a
  // 30 ms deadline can be missed, and that call's fallback opens a back-off
  // window in which the measured call below would never ask the paused
  // server (a CI run saw it take 0.3 ms so). The window is waited out.
  for (let i = 0; ; i++) {
    records.length = 0;
    assert.equal((await x.call('paused', () => 1)).error, null);
    if (!records.some((r) => r.kind === 'fallback')) break;
    assert.ok(i < 20, 'the store missed its 30 ms deadline on 20 calls in a row');
    await new Promise((r) => setTimeout(r, 350));
  }
  records.length = 0;
  server.kill('SIGSTOP');
  let first, rest;
  try {
    let t0 = performance.now();
    assert.equal((await x.call('paused', () => 1)).error, null);
    first = performance.now() - t0;
    t0 = performance.now();
    for (let i = 0; i < 50; i++) assert.equal((await x.call('paused', () => 1)).error, null);
    rest = performance.now() - t0;
  } finally {
    server.kill('SIGCONT');
  }
  // The first call waits out the 30 ms deadline; after it, the store is
  // tried again at most once per 300 ms back-off window, however slow the
  // machine runs the 50 calls (counted in decisions, not bounded in time).
  assert.ok(first >= 25, `first call took ${first} ms`);
  const reasons = records.filter((r) => r.kind === 'fallback').map((r) => r.reason);
  assert.equal(reasons.length, 2 * 51); // the load and the save of every call fall back
  assert.equal(reasons[0], 'store_error');
  const windows = 1 + Math.floor((first + rest) / 300);
  const tried = reasons.filter((r) => r === 'store_error').length;
  assert.ok(tried <= windows, `${tried} store attempts in ${windows} back-off windows (${rest} ms for 50 calls)`);
  assert.deepEqual([...new Set(reasons)].sort(), ['backoff', 'store_error']);
});

test('a corrupt key is repaired', { skip }, async (t) => {
  const s = await RedisStore.connect(url, { timeoutMs: 1000 }); // as compareAndSwap's
  t.after(() => s.close());
  // Bytes that are not UTF-8 too, by one compare-and-swap (the core is given
  // their text with U+FFFD; the cas compares the bytes Redis holds).
  for (const corrupt of ['not json', Buffer.from([0xff, 0xfe])]) {
    await s.client.set('toolerr:breaker:corrupt', corrupt);
    const records = [];
    assert.equal((await new Executor({ store: s, onDecision: (r) => records.push(r) }).call('corrupt', () => 1)).error, null);
    assert.equal(dec(await s.load('toolerr:breaker:corrupt')), '{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}');
    assert.deepEqual(records.map((r) => r.kind), ['repair', 'breaker', 'call']);
  }
});

test('a key of another Redis type is repaired', { skip }, async (t) => {
  // A list, hash or set at a breaker's key: GET answers WRONGTYPE. load reads it as WRONG_TYPE_STATE, the text
  // cas.lua compares it as (Go: redisstore.WrongTypeState), so the executor repairs the key as it repairs bytes
  // that are not a state. Before, every load and compareAndSwap on it rejected: a store_error each back-off
  // window, forever, and the window left the store alone for every other tool too.
  const s = await RedisStore.connect(url, { timeoutMs: 1000 }); // as compareAndSwap's
  t.after(() => s.close());
  const fresh = '{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}';
  assert.ok(CAS_SCRIPT.includes(`'${WRONG_TYPE_STATE}'`));
  for (const put of [(k) => s.client.rpush(k, 'a'), (k) => s.client.hset(k, 'phase', 'closed'), (k) => s.client.sadd(k, 'a')]) {
    await s.client.del('toolerr:breaker:typed', 'toolerr:breaker:other');
    await put('toolerr:breaker:typed');
    assert.equal(dec(await s.load('toolerr:breaker:typed')), WRONG_TYPE_STATE);
    assert.equal(dec((await s.compareAndSwap('toolerr:breaker:typed', enc('x'), enc('y'))).current), WRONG_TYPE_STATE);
    const records = [];
    const x = new Executor({ store: s, retry: { max_attempts: 1 }, onDecision: (r) => records.push(r) });
    assert.equal((await x.call('typed', () => 1)).error, null);
    assert.equal(dec(await s.load('toolerr:breaker:typed')), fresh);
    assert.equal((await x.call('other', fail)).error.code, 'TRANSPORT'); // the store is not in a back-off window
    assert.deepEqual(records.map((r) => r.kind).filter((k) => k === 'repair' || k === 'fallback'), ['repair']);
    assert.equal(dec(await s.load('toolerr:breaker:other')), fresh.replace('"failures":0', '"failures":1'));
  }
});

test('compareAndSwap reads only the script\'s replies', async () => {
  // The store's reply reading, over a client whose toolerrCasBuffer answers
  // with each reply as ioredis gives it (numbers, Buffers, null, arrays).
  const answer = (reply) => new RedisStore({ toolerrCasBuffer: async () => reply }).compareAndSwap('k', null, enc('n'));
  assert.deepEqual(await answer([1]), { swapped: true, current: null });
  assert.deepEqual(await answer([0]), { swapped: false, current: null });
  assert.equal(dec((await answer([0, Buffer.from('held')])).current), 'held');
  for (const [reply, shape] of [
    [[0, 5], '[integer, integer]'],
    [[1, Buffer.from('secret')], '[integer, bulk string]'],
    [[0, Buffer.from('secret'), null], '[integer, bulk string, nil]'],
    [[0, null], '[integer, nil]'],
    [[2], '[integer]'],
    [[Buffer.from('1')], '[bulk string]'],
    [[], '[]'],
    [[0, [Buffer.from('secret')]], '[integer, array of 1]'],
    [[0, 'a', 'b', 'c', 'd'].map((x) => (x === 0 ? 0 : Buffer.from(x))), 'array of 5'],
    [Buffer.from('secret'), 'bulk string'],
    [1, 'integer'],
    [null, 'nil'],
    [[0, 1.5], '[integer, Number]'],
    [[0, new Error('secret')], '[integer, Error]'],
  ]) {
    await assert.rejects(answer(reply), (e) => {
      assert.equal(e.message, `toolerr: the compare-and-swap script gave an unexpected reply ${shape} (want [1], [0] or [0, bulk string])`);
      assert.ok(!e.message.includes('secret'));
      return true;
    });
  }
});

test('a malformed reply falls back at once', { skip }, async (t) => {
  // The real client and server, each compare-and-swap's reply replaced by
  // [0, 5]: one store error, then the back-off window.
  const s = await RedisStore.connect(url, { timeoutMs: 1000 });
  t.after(() => s.close());
  const real = s.client.toolerrCasBuffer.bind(s.client);
  let n = 0;
  s.client.toolerrCasBuffer = async (...a) => { await real(...a); n++; return [0, 5]; };
  const records = [];
  await new Executor({ store: s, retry: { max_attempts: 1 }, onDecision: (r) => records.push(r) }).call('malformed', fail);
  assert.equal(n, 1);
  assert.equal(records.filter((r) => r.kind === 'fallback')[0]?.reason, 'store_error');
});

// notRedis: a loopback server that answers each INFO, GET and EVALSHA with
// reply and anything else (CLIENT SETINFO) with OK; resolves to its url and
// a close().
async function notRedis(reply) {
  const sockets = new Set();
  const srv = createServer((c) => {
    sockets.add(c);
    c.on('error', () => {});
    let buf = '';
    c.on('data', (d) => {
      buf += d.toString('latin1');
      let m;
      // one command a time: *N, then $len and the name (the arguments after it are skipped with the lines)
      while ((m = /^\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n/.exec(buf))) {
        buf = buf.slice(m[0].length).replace(/^(?:\$\d+\r\n[^\r]*\r\n)*/, '');
        c.write(/^(info|get|evalsha)$/i.test(m[1]) ? reply(m[1].toLowerCase()) : '+OK\r\n');
      }
    });
  });
  await new Promise((res) => srv.listen(0, '127.0.0.1', res));
  return {
    url: `redis://127.0.0.1:${srv.address().port}/0`,
    close: () => { for (const c of sockets) c.destroy(); srv.close(); },
  };
}

// redis-parser threw a RangeError (Invalid array length) on "*" and 19
// digits in a socket 'data' listener, where nothing caught it: the process
// ended (in connect()'s ready check, or in any command's reply).
test('a reply no Array holds fails the connection, not the process', async () => {
  const huge = '*9000000000000000000\r\n';
  const atConnect = await notRedis(() => huge);
  try {
    await assert.rejects(RedisStore.connect(atConnect.url, { connectTimeoutMs: 2000 }), /Connection is closed|did not answer/);
  } finally { atConnect.close(); }

  const later = await notRedis((cmd) => (cmd === 'info' ? '$13\r\nredis_version\r\n' : huge));
  const store = await RedisStore.connect(later.url, { connectTimeoutMs: 2000, timeoutMs: 1000 });
  try {
    await assert.rejects(store.load('k')); // the connection destroyed: its command rejected
    await assert.rejects(store.compareAndSwap('k', null, enc('x')));
    const records = [];
    await new Executor({ store, retry: { max_attempts: 1 }, onDecision: (r) => records.push(r) }).call('huge', fail);
    assert.equal(records.filter((r) => r.kind === 'fallback')[0]?.reason, 'store_error');
  } finally { store.client.disconnect(); later.close(); }
});

// ioredis's connectTimeout bounds only the TCP connect: a server that
// accepts and never answers held connect() 2-4 s (its ready check, then
// reconnects) before "Connection is closed".
test('connect() to a server that never answers rejects at connectTimeoutMs', async () => {
  await import('ioredis'); // connect() imports it before its deadline starts
  const held = new Set();
  const srv = createServer((c) => { held.add(c); c.on('error', () => {}); });
  await new Promise((res) => srv.listen(0, '127.0.0.1', res));
  try {
    for (const connectTimeoutMs of [100, 300]) {
      const t0 = performance.now();
      await assert.rejects(RedisStore.connect(`redis://127.0.0.1:${srv.address().port}/0`, { connectTimeoutMs }),
        new RegExp(`Redis did not answer within ${connectTimeoutMs} ms`));
      const took = performance.now() - t0;
      assert.ok(took >= connectTimeoutMs - 5 && took < connectTimeoutMs + 700, `took ${took} ms`);
    }
  } finally { for (const c of held) c.destroy(); srv.close(); }
});

// ioredis rejected connect() with "Connection is closed." alone: no host, no
// reason (the refusal came as an 'error' event), nothing to act on.
test('connect() to a refused port says where and why', async () => {
  const port = await freePort(); // nothing listens there
  const err = await RedisStore.connect(`redis://:hunter2@127.0.0.1:${port}/0`).then(() => null, (e) => e);
  assert.equal(err?.message,
    `toolerr: could not connect to Redis at 127.0.0.1:${port}: Connection is closed. (connect ECONNREFUSED 127.0.0.1:${port})`);
  assert.equal(err.cause?.message, 'Connection is closed.'); // ioredis's own error kept
  assert.doesNotMatch(err.message, /hunter2/); // the URL's password is never in it
});

// Without ioredis, Node's error named only the importing file ("Cannot find
// package 'ioredis' imported from .../redis.js").
test('connect() without ioredis installed says to install it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'toolerr-no-ioredis-')); // no node_modules above it
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  copyFileSync(new URL('../redis.js', import.meta.url), join(dir, 'redis.js'));
  copyFileSync(new URL('../../../redisstore/cas.lua', import.meta.url), join(dir, 'cas.lua'));
  const { RedisStore: Bare } = await import(join(dir, 'redis.js'));
  await assert.rejects(Bare.connect('redis://127.0.0.1:6379/0'), (e) => {
    assert.equal(e.message, 'toolerr: RedisStore.connect needs ioredis, an optional peer dependency of toolerr: npm install ioredis');
    assert.equal(e.cause?.code, 'ERR_MODULE_NOT_FOUND');
    return true;
  });
});
