// The optional native addon (toolerr-native, bindings/node-native): the
// transport's selection, bad input across the N-API boundary (wrong types,
// huge inputs, invalid UTF-8, shared memory), worker_threads, and the Go
// runtime's signal handlers beside V8's in one process (a wasm trap, the wasm
// binding and the addon together). Skipped, saying why, when the addon is not
// built (make native puts it at dist/toolerr_native.node; scripts/test-node.sh
// points TOOLERR_NATIVE_ADDON at it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as toolerr from '../index.js';
import { loadAddon } from '../native-addon.js';

const addon = loadAddon();
const skip = addon ? false : 'the native addon is not built: run make native (dist/toolerr_native.node) and set TOOLERR_NATIVE_ADDON';
const here = fileURLToPath(new URL('..', import.meta.url));
const enc = new TextEncoder();
const text = (b) => Buffer.from(b).toString();
// The wasm's answer to the same request is the reference: index.js is the
// wasm here (the file is not run with TOOLERR_NATIVE=1, see the first test).
const wasm = toolerr;

// node runs src as an ES module in a fresh process with env added; returns {status, stdout, stderr}.
const node = (src, env = {}) => spawnSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', src],
  { cwd: here, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });

test('the addon answers as the wasm does, byte for byte', { skip }, () => {
  const reqs = ['{"op":"version"}', '{"op":"codes"}', '{"op":"envelope","code":"TIMEOUT","message":"Search timed out."}',
    '{"op":"nope"}', '', '{', '{"op":"envelope","op":"codes"}'];
  for (const r of reqs) {
    assert.equal(text(addon.invoke(enc.encode(r))), text(wasm.invokeBytes(enc.encode(r))), r);
    assert.equal(addon.invokeText(r), wasm.invokeText(r), r);
  }
  assert.equal(toolerr.transport(), 'wasm');
  assert.equal(addon.abiVersion, 1);
  assert.ok(Buffer.isBuffer(addon.invoke(enc.encode('{"op":"version"}'))));
});

test('wrong argument types throw a TypeError with code ERR_INVALID_ARG_TYPE, no crash', { skip }, () => {
  for (const bad of [undefined, null, 5, 'text', {}, [], new Uint16Array(4), new DataView(new ArrayBuffer(4)), new ArrayBuffer(4)]) {
    assert.throws(() => addon.invoke(bad), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' }, String(bad));
  }
  assert.throws(() => addon.invoke(), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  for (const bad of [undefined, null, 5, Buffer.from('{}'), {}, Symbol('x'), 10n]) {
    assert.throws(() => addon.invokeText(bad), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' }, typeof bad);
  }
  assert.throws(() => addon.invokeText(), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' });
  assert.equal(addon.invokeText('{"op":"version"}'), '{"ok":{"abi":1,"version":"0.1.0"}}'); // still fine after
});

test('invalid UTF-8 and lone surrogates get the wasm\'s answers', { skip }, () => {
  for (const b of [[0xff, 0xfe], [0x7b, 0x22, 0x6f, 0x70, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d], [0xed, 0xa0, 0x80]]) {
    const got = text(addon.invoke(new Uint8Array(b)));
    assert.match(got, /^\{"error":\{"code":"INVALID_INPUT"/);
    assert.equal(got, text(wasm.invokeBytes(new Uint8Array(b))));
  }
  // a lone surrogate becomes U+FFFD on the way in, as TextEncoder makes it
  const s = '{"op":"sanitize","text":"a\ud800b"}';
  assert.equal(addon.invokeText(s), wasm.invokeText(s));
  assert.match(addon.invokeText(s), /a\ufffdb/);
});

test('huge inputs are refused by their length, unread, and long answers come whole', { skip }, () => {
  const big = addon.invoke(new Uint8Array((32 << 20) + 1));
  assert.equal(JSON.parse(text(big)).error.details.count, (32 << 20) + 1);
  const longText = 'é'.repeat(17 << 20); // 17 Mi UTF-16 units, 34 MiB of UTF-8
  const e = JSON.parse(addon.invokeText(longText)).error;
  assert.equal(e.code, 'INVALID_INPUT');
  assert.equal(e.details.count, 34 << 20);
  // past the kept 64 KiB, both ways: a 300 KB request and its answer
  const value = Array.from({ length: 10000 }, (_, i) => ({ k: `key ${i} é`, v: i }));
  const req = JSON.stringify({ op: 'canonicalize', value });
  const got = addon.invokeText(req);
  assert.ok(got.length > 200_000);
  assert.equal(got, wasm.invokeText(req));
  assert.equal(text(addon.invoke(enc.encode(req))), got);
  assert.equal(addon.invokeText('{"op":"version"}'), '{"ok":{"abi":1,"version":"0.1.0"}}');
});

// The strings the addon transcodes itself (toolerr_native.c, utf16_to_utf8
// and utf8_to_utf16) against V8's own UTF-8 paths on the same bytes: a
// Buffer encoded by Buffer.from and an answer decoded by toString.
test('invokeText and invokeBytesText make the strings V8 makes, every kind of code point', { skip }, () => {
  const kinds = ['a', '"', '\\', '\n', '\u0001', 'é', 'ÿ', '\u0100', '–', '\u07ff', '\u0800', '°', '\ufffd', '\uffff',
    '😀', '\u{10ffff}', '\ud800', '\udfff', '\udbff\udbff', '\udc00\ud800'];
  let seed = 7;
  const rnd = (n) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  // 21,845 UTF-16 units is the longest request the addon encodes itself; a longer one goes to V8's encoder
  for (const units of [0, 1, 7, 8, 9, 300, 21845 - 40, 21845 - 39, 21845 - 38, 40000]) {
    let value = '';
    while (value.length < units) value += kinds[rnd(kinds.length)];
    for (const req of [JSON.stringify({ op: 'canonicalize', value }), `{"op":"canonicalize","value":"${value}"}`]) {
      const want = text(addon.invoke(Buffer.from(req)));
      assert.equal(addon.invokeText(req), want, `${units} units`);
      assert.equal(addon.invokeBytesText(Buffer.from(req)), want, `${units} units`);
    }
  }
  assert.equal(addon.invokeText('{"op":"canonicalize","value":"é–😀\ud800x"}'), '{"ok":"é–😀\ufffdx"}');
  // an answer past the kept 64 KiB, not ASCII
  const big = JSON.stringify({ op: 'canonicalize', value: 'é–😀x'.repeat(20000) });
  assert.ok(big.length > 21845);
  assert.equal(addon.invokeText(big), text(addon.invoke(Buffer.from(big))));
  assert.equal(addon.invokeBytesText(Buffer.from(big)), text(addon.invoke(Buffer.from(big))));
  // bytes that are not well-formed UTF-8, through invokeBytesText: V8's replacement characters
  for (const b of [[0xff], [0xc0, 0x80], [0xe0, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x80], [0xf0, 0x9f, 0x98]]) {
    const req = Buffer.concat([Buffer.from('{"op":"canonicalize","value":"'), Buffer.from(b), Buffer.from('"}')]);
    assert.equal(addon.invokeBytesText(req), text(addon.invoke(req)), b.join(' '));
  }
  const shared = new Uint8Array(new SharedArrayBuffer(32), 2, 16);
  shared.set(enc.encode('{"op":"version"}'));
  assert.equal(addon.invokeBytesText(shared), '{"ok":{"abi":1,"version":"0.1.0"}}');
  for (const bad of [undefined, null, 'text', [], new Uint16Array(4), new ArrayBuffer(4)]) {
    assert.throws(() => addon.invokeBytesText(bad), { name: 'TypeError', code: 'ERR_INVALID_ARG_TYPE' }, String(bad));
  }
});

// core.js sends a transcript op's JSON text as framed bytes (op, then
// invokeBytesText); a transport without invokeBytesText (an older addon) gets
// its invoke answer decoded instead: the same answers as the wasm's.
test('JSON text in: the same answers over the addon, over a transport without invokeBytesText and over the wasm', { skip }, async () => {
  const t = await import('../core.js?transport=native-text-test');
  const msgs = [{ role: 'user', content: 'Wetter in São Paulo – bitte' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'w', arguments: '{"city":"São Paulo"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: '{"code":"TIMEOUT","message":"timed out – 10 s","retryable":true,"source":"tool"}' }];
  const raw = JSON.stringify(msgs);
  const inputs = [raw, enc.encode(raw), `${raw},"id_rules":{}`, '[', JSON.stringify('x'.repeat(30000)), `[${JSON.stringify({ role: 'user', content: 'é'.repeat(25000) })}]`];
  const run = (f) => { try { return JSON.stringify(f()); } catch (e) { return `${e.name} ${e.code} ${e.message} ${JSON.stringify(e.details)}`; } };
  for (const v of inputs) {
    const want = run(() => toolerr.convert(v, { from: 'openai-chat', to: 'anthropic' }));
    t.setTransport(addon);
    assert.equal(run(() => t.convert(v, { from: 'openai-chat', to: 'anthropic' })), want, String(v).slice(0, 40));
    t.setTransport({ invoke: addon.invoke, invokeText: addon.invokeText });
    assert.equal(run(() => t.convert(v, { from: 'openai-chat', to: 'anthropic' })), want, String(v).slice(0, 40));
    assert.equal(run(() => t.check('openai-chat', v)), run(() => toolerr.check('openai-chat', v)));
  }
  t.setTransport(null);
});

test('a view into a SharedArrayBuffer or at an offset reads just its bytes', { skip }, () => {
  const r = enc.encode('{"op":"version"}');
  const shared = new Uint8Array(new SharedArrayBuffer(r.length + 8), 4, r.length);
  shared.set(r);
  assert.equal(text(addon.invoke(shared)), '{"ok":{"abi":1,"version":"0.1.0"}}');
  const padded = new Uint8Array(r.length + 10).fill(0x20);
  padded.set(r, 3);
  assert.equal(text(addon.invoke(padded.subarray(3, 3 + r.length))), '{"ok":{"abi":1,"version":"0.1.0"}}');
});

test('worker threads call the addon at once and each gets its own answers', { skip }, async () => {
  const src = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.url).then((t) => {
      let bad = t.transport() === 'native' ? 0 : 1e6;
      for (let j = 0; j < 2000; j++) {
        const e = t.envelope('RATE_LIMITED', 'worker ' + workerData.i + ' call ' + j + ':' + 'x'.repeat(1 + j * 37 % 70000), { details: { n: j } });
        if (e.details.n !== j || !e.message.startsWith('worker ' + workerData.i + ' call ' + j + ':')) bad++;
      }
      parentPort.postMessage(bad);
    });`;
  const url = new URL('../native.js', import.meta.url).href;
  const results = await Promise.all([0, 1, 2, 3].map((i) => new Promise((resolve, reject) => {
    const w = new Worker(src, { eval: true, workerData: { url, i }, env: { ...process.env, TOOLERR_NATIVE: '' } });
    w.once('message', resolve);
    w.once('error', reject);
  })));
  assert.deepEqual(results, [0, 0, 0, 0]);
});

// Node dlclose()s an addon when the last worker_thread that loaded it exits;
// unmapping the Go runtime under its own threads was a SIGSEGV (exit 139)
// before build-native.sh linked the addon -z nodelete. Here only workers load
// it (the main thread never does), one after another, so each exit is the last.
test('the addon loaded only in workers that exit, one after another: no crash, and a later worker loads it again', { skip }, () => {
  const src = `
    import { Worker } from 'node:worker_threads';
    const url = new URL('./native.js', 'file://' + process.cwd() + '/').href;
    const body = "const { parentPort } = require('node:worker_threads'); import(" + JSON.stringify(url) + ").then((t) => { let s = ''; for (let i = 0; i < 500; i++) s = t.envelope('TIMEOUT', 'w' + i).message; parentPort.postMessage(t.transport() + ' ' + s); });";
    const got = [];
    for (let round = 0; round < 3; round++) {
      const w = new Worker(body, { eval: true, execArgv: ['--no-warnings'] });
      // listened for before the message is awaited: a worker that exits
      // right after posting can emit 'exit' before the await resumes, and a
      // listener added then waits for ever (the child ended with status 13,
      // its top-level await unsettled, in a loaded CI run)
      const exited = new Promise((res) => w.once('exit', res));
      got.push(await new Promise((res, rej) => { w.once('message', res); w.once('error', rej); }));
      await exited;
      await new Promise((res) => setTimeout(res, 300)); // the Go runtime's threads keep running meanwhile
    }
    console.log(got.join(','));`;
  const r = node(src);
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
  assert.equal(r.stdout, 'native w499.,native w499.,native w499.\n');
});

test('the transport: wasm by default, the addon through toolerr/native or TOOLERR_NATIVE=1, the wasm with TOOLERR_NATIVE=0', { skip }, () => {
  const show = "const t = await import(process.env.ENTRY); console.log(t.transport(), t.version().version)";
  const env = (entry, native) => ({ ENTRY: entry, TOOLERR_NATIVE: native });
  assert.equal(node(show, env('./index.js', '')).stdout, 'wasm 0.1.0\n');
  assert.equal(node(show, env('./native.js', '')).stdout, 'native 0.1.0\n');
  assert.equal(node(show, env('./index.js', '1')).stdout, 'native 0.1.0\n');
  assert.equal(node(show, env('./native.js', '0')).stdout, 'wasm 0.1.0\n');
  const bad = node(show, env('./index.js', 'yes'));
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /TOOLERR_NATIVE must be 0 \(the wasm\) or 1 \(the native addon\), not "yes"/);
  // asked for and not there: a clear error at import, never the wasm silently
  const missing = node(show, { ...env('./native.js', ''), TOOLERR_NATIVE_ADDON: '' });
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /the native addon was asked for \(toolerr\/native\) but toolerr-native is not installed/);
  // it names the tarball make packages builds, not a registry name nothing of toolerr's is published under
  assert.match(missing.stderr, /npm install \.\/toolerr-native-<version>\.tgz beside toolerr \(make packages builds it into dist\/packages\//);
  assert.doesNotMatch(missing.stderr, /npm install toolerr-native\b/);
  const notAddon = node(show, { ...env('./index.js', '1'), TOOLERR_NATIVE_ADDON: fileURLToPath(new URL('../package.json', import.meta.url)) });
  assert.notEqual(notAddon.status, 0);
  assert.match(notAddon.stderr, /the native addon \S+package\.json did not load: \S+package\.json: invalid ELF header/);
  // the variable names a native addon only: a script there is never run (require
  // ran a file not ending in .node as JavaScript, and took its forged exports
  // as the transport: version() answered "forged")
  const dir = mkdtempSync(join(tmpdir(), 'toolerr-native-'));
  try {
    for (const name of ['forged.cjs', 'forged.js', 'forged']) {
      const file = join(dir, name);
      writeFileSync(file, 'console.log("the script ran"); module.exports = { abiVersion: 1, invoke: () => Buffer.from(\'{"ok":"forged"}\'), ' +
        'invokeText: () => \'{"ok":{"abi":1,"version":"forged"}}\' };\n');
      const forged = node(show, { ...env('./index.js', '1'), TOOLERR_NATIVE_ADDON: file });
      assert.equal(forged.stdout, '', name);
      assert.notEqual(forged.status, 0, name);
      assert.match(forged.stderr, /did not load: .*invalid ELF header/, name);
    }
    const missingFile = node(show, { ...env('./index.js', '1'), TOOLERR_NATIVE_ADDON: join(dir, 'none.node') });
    assert.notEqual(missingFile.status, 0);
    assert.match(missingFile.stderr, /the native addon \S+none\.node did not load: .*cannot open shared object file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // the C library is a shared object but not an addon: refused, and the process goes on
  const lib = fileURLToPath(new URL('../../../dist/libtoolerr.so', import.meta.url));
  if (existsSync(lib)) {
    const so = node("const { loadAddon } = await import('./native-addon.js'); try { loadAddon(); } catch (e) { console.log(e.message.includes('did not self-register')); } " +
      "process.env.TOOLERR_NATIVE_ADDON = process.env.GOOD; const a = loadAddon(); await new Promise((r) => setTimeout(r, 300)); console.log(a.invokeText('{\"op\":\"version\"}'));",
      { TOOLERR_NATIVE_ADDON: lib, GOOD: process.env.TOOLERR_NATIVE_ADDON });
    assert.equal(so.stderr, '');
    assert.equal(so.stdout, 'true\n{"ok":{"abi":1,"version":"0.1.0"}}\n');
  }
});

// V8 handles SIGSEGV for wasm's out-of-bounds accesses (its trap handler); the
// Go runtime in the addon installs its own handlers when it starts and must
// hand a signal that is not its own on to V8's. A memory access past the end
// of a wasm memory must still be a catchable RuntimeError, after the addon
// loaded and while it is called, and process signals must still reach Node.
test('the Go runtime beside V8: a wasm trap, the wasm binding and the addon in one process', { skip }, () => {
  const src = `
    import { Worker } from 'node:worker_threads';
    const t = await import('./native.js');
    const { loadAddon } = await import('./native-addon.js');
    const addon = loadAddon();
    // this thread alternates between the addon and the wasm (setTransport(null) is the wasm)
    const viaWasm = (f) => { t.setTransport(null); try { return f(); } finally { t.setTransport(addon); } };
    if (t.transport() !== 'native' || viaWasm(() => t.transport()) !== 'wasm') throw new Error('transports');
    // i32.load from the address given, one page of memory: (func (param i32) (result i32) local.get 0 i32.load)
    const bytes = new Uint8Array([0,97,115,109,1,0,0,0,1,6,1,96,1,127,1,127,3,2,1,0,5,3,1,0,1,7,8,1,4,108,111,97,100,0,0,
      10,9,1,7,0,32,0,40,2,0,11]);
    const trap = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.load;
    // the wasm binding in a worker while this thread calls the addon
    const w = new Worker("const { parentPort } = require('node:worker_threads'); import(" + JSON.stringify(new URL('./index.js', 'file://' + process.cwd() + '/').href) + ").then((t) => { let n = 0; for (let i = 0; i < 300; i++) n += t.envelope('TIMEOUT', 'w' + i).message === 'w' + i + '.' ? 1 : 0; parentPort.postMessage(n); });", { eval: true, execArgv: ['--no-warnings'], env: { ...process.env, TOOLERR_NATIVE: '0' } });
    const done = new Promise((res, rej) => { w.once('message', res); w.once('error', rej); });
    let traps = 0, calls = 0;
    for (let i = 0; i < 300; i++) {
      try { trap(1 << 20); } catch (e) { if (e instanceof WebAssembly.RuntimeError && /out of bounds/.test(e.message)) traps++; }
      if (t.envelope('TIMEOUT', 'n' + i).message === 'n' + i + '.') calls++;
      if (viaWasm(() => t.envelope('TIMEOUT', 'm' + i).message) === 'm' + i + '.') calls++;
    }
    const fromWorker = await done;
    if (trap(0) !== 0) throw new Error('an in-bounds load');
    // the signal may reach another thread (the Go runtime's, V8's) and the
    // main loop only later: a timer keeps the loop alive until it does (a
    // signal listener does not: without it the process could end first, exit
    // code 13, unsettled top-level await; 2 runs in 12 at load 11)
    const got = await new Promise((res) => {
      const keep = setTimeout(() => res('no SIGUSR2 within 20 s'), 20_000);
      process.once('SIGUSR2', () => { clearTimeout(keep); res('SIGUSR2'); });
      process.kill(process.pid, 'SIGUSR2');
    });
    console.log(traps, calls, fromWorker, got, t.version().version, t.transport());`;
  const r = node(src);
  assert.equal(r.stderr, '');
  assert.equal(r.status, 0);
  assert.equal(r.stdout, '300 600 300 SIGUSR2 0.1.0 native\n');
});
