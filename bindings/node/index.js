// toolerr for Node.js: the core's toolerr.wasm through node:wasi (preview1),
// instantiated on the first call of each thread (worker_threads get their own).
// TOOLERR_WASM may point at another toolerr.wasm.
import { readFileSync } from 'node:fs';
import { WASI } from 'node:wasi';
import { setExports } from './core.js';

export * from './core.js';
export * from './runtime.js';

let wasmExports;

function load() {
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
  const instance = new WebAssembly.Instance(module, { wasi_snapshot_preview1: wasi.wasiImport });
  wasi.initialize(instance); // runs _initialize once
  if (instance.exports.toolerr_abi_version() !== 1) throw new Error(`toolerr: ${path} has an unknown ABI version`);
  return instance.exports;
}

setExports(() => (wasmExports ??= load()));
