// toolerr/native: the toolerr API over the optional native addon
// (toolerr-native, an N-API addon of the core for linux-x64 glibc) instead of
// the wasm; the same functions, answers and errors as `toolerr`. Throws at
// import when the addon is not installed, unless TOOLERR_NATIVE=0 (then the
// wasm). The choice is per thread: every import of toolerr in this thread then
// takes the addon too (native-addon.js).
import { selectTransport } from './native-addon.js';

export * from './index.js';

selectTransport(true);
