// Instantiate + first call in a fresh process (issue 12: <= 20 ms): the time
// from importing the binding to the answer of its first toAnthropic, the wasm
// read, compiled, instantiated and its Go runtime started on the way. With
// --floor FILE, the same for the smallest Go wasip1 reactor (compile,
// instantiate, _initialize, one export call), the part no Go module avoids.
// With --native, the same through toolerr/native (the addon from
// TOOLERR_NATIVE_ADDON or toolerr-native: dlopen, the Go runtime started).
// Prints the milliseconds. Run by scripts/bench-bindings.sh, one process each.
const t0 = performance.now();
if (process.argv[2] === '--floor') {
  const { readFileSync } = await import('node:fs');
  const { WASI } = await import('node:wasi');
  const wasi = new WASI({ version: 'preview1', args: [], env: {}, returnOnExit: true });
  const instance = new WebAssembly.Instance(new WebAssembly.Module(readFileSync(process.argv[3])), wasi.getImportObject());
  wasi.initialize(instance);
  instance.exports.floor_version();
} else {
  const toolerr = await import(process.argv[2] === '--native' ? '../native.js' : '../index.js');
  const error = { code: 'TIMEOUT', details: {}, message: 'The get_weather tool timed out.', retryable: true, source: 'tool' };
  toolerr.toAnthropic([{ callId: 'toolu_01', name: 'get_weather', error }]);
}
console.log((performance.now() - t0).toFixed(2));
