// Times dist/toolerr.wasm under Node's WASI (node:wasi, preview1): instantiate
// (module compiled once) and one typical request per call, the way a binding
// calls it (request buffer reused; response copied out, then freed).
// Usage: node --no-warnings node.mjs <toolerr.wasm> <request.json>
// Prints one JSON line: {"instantiate_us", "call_us", "call_min_us" (for
// {"op":"version"}), "response"}.
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';

const [wasmPath, requestPath] = process.argv.slice(2);
const module = await WebAssembly.compile(readFileSync(wasmPath));
const request = readFileSync(requestPath);

function instantiate() {
  const wasi = new WASI({ version: 'preview1', args: [], env: {}, returnOnExit: true });
  const instance = new WebAssembly.Instance(module, wasi.getImportObject());
  wasi.initialize(instance);
  return instance.exports;
}

function time(n, fn) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

instantiate(); // warm-up
const instantiateUs = time(20, instantiate);

const x = instantiate();
const reqPtr = x.toolerr_alloc(Math.max(request.length, 4096));
function call(req = request) {
  new Uint8Array(x.memory.buffer, reqPtr, req.length).set(req);
  const res = x.toolerr_invoke(reqPtr, req.length);
  const ptr = Number(BigInt.asUintN(64, res) >> 32n);
  const len = Number(BigInt.asUintN(32, res));
  const out = Buffer.from(new Uint8Array(x.memory.buffer, ptr, len));
  x.toolerr_free(ptr);
  return out;
}
function best(fn) { // best of 5 rounds of 20000 calls, after a warm-up round
  time(20000, fn);
  let us = Infinity;
  for (let round = 0; round < 5; round++) us = Math.min(us, time(20000, fn));
  return us;
}
const response = call().toString('utf8');
const callUs = best(() => call());
const version = Buffer.from('{"op":"version"}');
const callMinUs = best(() => call(version));
console.log(JSON.stringify({ instantiate_us: instantiateUs, call_us: callUs, call_min_us: callMinUs, response }));
