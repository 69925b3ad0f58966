// toolerr for Node.js: the core's toolerr.wasm through node:wasi (preview1),
// instantiated on the first call of each thread (worker_threads get their own).
// TOOLERR_WASM may point at another toolerr.wasm. TOOLERR_NATIVE=1 takes the
// optional native addon (toolerr-native) instead, as importing toolerr/native
// does (native-addon.js).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setExports } from './core.js';
import { selectTransport } from './native-addon.js';
import { nodeVersionWarning } from './node-version.js';

export * from './core.js';
export * from './runtime.js';

const tooOld = nodeVersionWarning(process.versions.node);
if (tooOld) {
  // Emitted at once: process.emitWarning waits for the next tick, and the Executor's ReferenceError, thrown in
  // the importing module's top-level await, ended the process before it (Node 18.20.8).
  process.emit('warning', Object.assign(new Error(tooOld), { name: 'Warning', code: 'TOOLERR_NODE_VERSION' }));
}

let wasmExports;

// node:wasi's functions, imported into wasm as they are, are called through
// V8's fast API path, where one that allocates (poll_oneoff, which the Go
// scheduler calls) reports the allocation to V8 and can start a garbage
// collection in the middle of the fast call. The heap is then corrupt and the
// process dies later, with SIGSEGV or a V8 CHECK failure, typically once a
// large ArrayBuffer is alive (https://github.com/nodejs/node/issues/46777).
// Each import is wrapped in a JS function that calls it through one shared
// call site: fed eight targets while the module starts, that site is
// megamorphic, so optimized code never turns it back into a fast call.
const callThrough = (f, args) => f(...args);
const plainCalls = (imports) =>
  Object.fromEntries(Object.entries(imports).map(([name, f]) => [name, (...args) => callThrough(f, args)]));

// node:wasi is loaded with the module, on the first call, not at import: a
// thread on the native addon never loads it (nor prints its experimental
// warning).
const nodeRequire = createRequire(import.meta.url);

function load() {
  const { WASI } = nodeRequire('node:wasi');
  const path = process.env.TOOLERR_WASM || new URL('./toolerr.wasm', import.meta.url);
  const wasi = new WASI({ version: 'preview1', args: [], env: {}, returnOnExit: true });
  let bytes;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    if (e.code !== 'ENOENT') throw e;
    // A bundler (esbuild, Rollup) may have moved this file without toolerr.wasm.
    throw new Error(`toolerr: ${path} not found; ship toolerr.wasm beside the bundled code (node_modules/toolerr/toolerr.wasm) or set TOOLERR_WASM`, { cause: e });
  }
  const module = new WebAssembly.Module(bytes);
  const instance = new WebAssembly.Instance(module, { wasi_snapshot_preview1: plainCalls(wasi.wasiImport) });
  wasi.initialize(instance); // runs _initialize once
  if (instance.exports.toolerr_abi_version() !== 1) throw new Error(`toolerr: ${path} has an unknown ABI version`);
  return instance.exports;
}

setExports(() => (wasmExports ??= load()));
selectTransport(false);
