#!/usr/bin/env bash
# `make bench`: every benchmark, with the baselines beside ours in the same run.
#   1. Go core: serialize per format, classify, sanitize, canonical, transcripts,
#      decisions, each beside encoding/json doing the same work (ratios printed).
#   2. Build targets: wasm size vs the Go floor, instantiate and per-call time
#      under wazero, wasmtime-go and Node, beside native (scripts/bench-targets.sh).
#   3. Decisions through Redis beside sony/gobreaker (scripts/bench-decide.sh).
#   4. Bindings beside plain json.dumps / JSON.stringify / serde_json and peers
#      (scripts/bench-bindings.sh).
#   5. Peak memory per op natively and in the WASI module, and the
#      amplification corpus at 32 MiB through every target (scripts/bench-memory.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist}
count=${BENCH_COUNT:-3}

echo "== 1. Go core benchmarks (ns/op, allocs/op; -count=$count)"
pkgs=$(grep -rl --include='*_test.go' '^func Benchmark' core | xargs -n1 dirname | sort -u | sed 's|^|./|')
go test -run '^$' -bench . -benchmem -count "$count" $pkgs | tee /tmp/toolerr-bench-core.txt
go run ./scripts/benchratio < /tmp/toolerr-bench-core.txt

for part in targets decide bindings memory; do
  script=scripts/bench-$part.sh
  if [ -x "$script" ]; then
    echo
    echo "== bench-$part"
    bash "$script" "$dist"
  fi
done
