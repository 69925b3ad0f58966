// Times dist/toolerr.wasm under Node's WASI (node:wasi, preview1): instantiate
// (module compiled once) and one typical request per call, the way a binding
// calls it (request buffer reused; response copied out, then freed).
// Usage: node --no-warnings node.mjs <toolerr.wasm> <request.json>
// Prints one JSON line: {"instantiate_us", "call_us", "calls", "response"}.
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
const reqPtr = x.toolerr_alloc(request.length);
function call() {
  new Uint8Array(x.memory.buffer, reqPtr, request.length).set(request);
  const res = x.toolerr_invoke(reqPtr, request.length);
  const ptr = Number(BigInt.asUintN(64, res) >> 32n);
  const len = Number(BigInt.asUintN(32, res));
  const out = Buffer.from(new Uint8Array(x.memory.buffer, ptr, len));
  x.toolerr_free(ptr);
  return out;
}
const response = call().toString('utf8');
for (let i = 0; i < 20000; i++) call(); // warm-up
let calls = 20000;
let callUs = time(calls, call);
for (let round = 0; round < 4; round++) callUs = Math.min(callUs, time(calls, call));
console.log(JSON.stringify({ instantiate_us: instantiateUs, call_us: callUs, calls: calls * 5, response }));
