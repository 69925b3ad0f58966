#!/usr/bin/env bash
# bench-memory: the bounds of issue 9, measured.
#   1. Peak memory per op (conformance/bench/peakmem): every op's largest
#      fixture scaled to the request limit and the amplification corpus, each
#      once in a fresh process (peak RSS growth / request bytes) and once on a
#      fresh wazero instance (linear memory growth / request bytes).
#   2. The whole amplification corpus at 32 MiB through every target (native,
#      .so, wazero, wasmtime-go and, when set up, the Python, Node and Rust
#      bindings), a version call after each request (TestAmplification).
# BENCH_MEMORY_BYTES sets the request size (default 33554432, the limit).
# Usage: bench-memory.sh [dist-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
dist="$(cd "${1:-dist}" && pwd)"
[ -f "$dist/toolerr.wasm" ] || { echo "bench-memory: $dist/toolerr.wasm missing: run make build" >&2; exit 1; }
size=${BENCH_MEMORY_BYTES:-33554432}
cd conformance
go run ./bench/peakmem -size "$size" -wasm "$dist/toolerr.wasm"
echo
echo "== amplification corpus at $size bytes through every target"
TOOLERR_DIST="$dist" TOOLERR_AMPLIFY_BYTES="$size" go test -count=1 -run '^TestAmplification$' -v -timeout 180m . |
  grep -E 'amplify_test.go|^(---|ok|FAIL)' | sed 's/^ *//'
