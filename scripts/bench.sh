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
#   6. toolerr-gateway beside going direct to the same fake upstream: added
#      latency at concurrency 1 and 64, memory over 100,000 requests
#      (scripts/bench-gateway.sh).
#   7. Each language's runtime (executor, Redis breaker store) beside pybreaker
#      and tenacity in Python, opossum and cockatiel in Node, failsafe in Rust
#      (the Go runtime beside gobreaker is part 3) (scripts/bench-runtime.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist}
count=${BENCH_COUNT:-3}

echo "== 1. Go core benchmarks (ns/op, allocs/op; -count=$count)"
pkgs=$(grep -rl --include='*_test.go' '^func Benchmark' core | xargs -n1 dirname | sort -u | sed 's|^|./|')
go test -run '^$' -bench . -benchmem -count "$count" $pkgs | tee /tmp/toolerr-bench-core.txt
go run ./scripts/benchratio < /tmp/toolerr-bench-core.txt

# The core goals of issue 12: each benchmark runs toolerr and its baseline
# in alternating chunks so that a busy machine slows both alike, in several
# rounds; benchratio prints the median ratio and whether each goal is met.
rounds=${BENCH_ROUNDS:-9}
echo
echo "== 1b. core goals (issue 12): work item (b) vs encoding/json, serialize via Invoke vs the codec ($rounds rounds)"
go test -c -o /tmp/toolerr-core.test ./core
for _ in $(seq "$rounds"); do
  (cd core && /tmp/toolerr-core.test -test.run '^$' -test.bench '^Benchmark(WorkB|SerializeA)$' -test.benchtime 500ms)
done | tee /tmp/toolerr-bench-goals.txt | grep -E '^Benchmark' || true
go run ./scripts/benchratio < /tmp/toolerr-bench-goals.txt

for part in targets decide bindings memory gateway runtime; do
  script=scripts/bench-$part.sh
  if [ -x "$script" ]; then
    echo
    echo "== bench-$part"
    bash "$script" "$dist"
  fi
done
