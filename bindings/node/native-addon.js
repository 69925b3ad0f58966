// The choice of transport in Node: the wasm module (the default) or the
// optional native addon, the npm package toolerr-native (linux-x64 glibc; the
// core as an N-API addon, bindings/node-native). The addon is used only when
// asked for: by importing toolerr/native, or with TOOLERR_NATIVE=1 on any
// import; TOOLERR_NATIVE=0 forces the wasm even through toolerr/native.
// TOOLERR_NATIVE_ADDON may point at a toolerr_native.node elsewhere. The
// choice is per thread (each worker_thread makes its own, from the same
// environment), and moves bytes only: core.js is the same either way.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { setTransport } from './core.js';

const nodeRequire = createRequire(import.meta.url);

// The exports of each TOOLERR_NATIVE_ADDON file this thread loaded, by its
// absolute path: a second load of one file would give it a second napi_env and
// a second pair of 64 KiB buffers.
const opened = new Map();

// dlopen loads the file at the absolute path as a native addon
// (process.dlopen), whatever its name ends with: require would run a file not
// ending in .node as JavaScript (or parse it as JSON), so the variable could
// put any script, or a forged transport, in place of the addon. Throws
// process.dlopen's Error when the file is not an addon (not ELF, another
// platform, no N-API module in it).
function dlopen(path) {
  if (!opened.has(path)) {
    const module = { exports: {} };
    process.dlopen(module, path);
    opened.set(path, module.exports);
  }
  return opened.get(path);
}

/**
 * Loads the addon: TOOLERR_NATIVE_ADDON's file (always as a native addon,
 * never as JavaScript or JSON), else the installed package
 * toolerr-native. Returns null when neither is there; throws an Error naming
 * the file when one is there but does not load (another platform, another
 * ABI version).
 */
export function loadAddon() {
  const path = process.env.TOOLERR_NATIVE_ADDON;
  let addon;
  try {
    addon = path ? dlopen(resolve(path)) : nodeRequire('toolerr-native');
  } catch (e) {
    if (!path && e.code === 'MODULE_NOT_FOUND' && String(e.message).includes("'toolerr-native'")) return null;
    throw new Error(`toolerr: the native addon ${path ?? 'toolerr-native'} did not load: ${e.message}`, { cause: e });
  }
  if (addon?.abiVersion !== 1 || typeof addon.invoke !== 'function' || typeof addon.invokeText !== 'function') {
    throw new Error(`toolerr: ${path ?? 'toolerr-native'} is not a toolerr native addon of ABI version 1`);
  }
  return addon;
}

/**
 * Sets this thread's transport: the addon when asked (asked: imported
 * through toolerr/native) or TOOLERR_NATIVE=1, the wasm when
 * TOOLERR_NATIVE=0 or not asked. Throws an Error when the addon is asked for
 * and not installed, or TOOLERR_NATIVE holds anything but 0, 1 or nothing.
 */
export function selectTransport(asked) {
  const force = process.env.TOOLERR_NATIVE ?? '';
  if (!['', '0', '1'].includes(force)) throw new Error(`toolerr: TOOLERR_NATIVE must be 0 (the wasm) or 1 (the native addon), not ${JSON.stringify(force)}`);
  if (force === '0' || (!asked && force === '')) return;
  const addon = loadAddon();
  if (!addon) {
    throw new Error(`toolerr: the native addon was asked for (${asked ? 'toolerr/native' : 'TOOLERR_NATIVE=1'}) but toolerr-native is not installed: ` +
      'npm install ./toolerr-native-<version>.tgz beside toolerr (make packages builds it into dist/packages/; linux-x64, glibc), ' +
      'or set TOOLERR_NATIVE_ADDON, or TOOLERR_NATIVE=0 for the wasm');
  }
  setTransport(addon);
}
