// toolerr in a browser: the core's toolerr.wasm through @bjorn3/browser_wasi_shim.
// Call `await init()` (or init(url | Response | WebAssembly.Module)) once; then
// the same API as in Node.
import { WASI } from '@bjorn3/browser_wasi_shim';
import { setExports } from './core.js';

export * from './core.js';
export * from './runtime.js';

/** Loads toolerr.wasm (default: beside this file) and makes the API usable. */
export async function init(source = new URL('./toolerr.wasm', import.meta.url)) {
  // debug: false, or the shim logs every WASI call to the page's console
  // (its Debug.enable(undefined) turns logging on).
  const wasi = new WASI([], [], [], { debug: false });
  const imports = { wasi_snapshot_preview1: wasi.wasiImport };
  const module = source instanceof WebAssembly.Module ? source
    : await WebAssembly.compileStreaming(source instanceof Response ? source : fetch(source));
  const instance = await WebAssembly.instantiate(module, imports);
  wasi.initialize(instance);
  if (instance.exports.toolerr_abi_version() !== 1) throw new Error('toolerr: unknown ABI version');
  setExports(() => instance.exports);
}
