#!/usr/bin/env bash
# bench-decide: the decision ops in ns/op (pure core, and through Invoke), then
# breaker decisions per second through Redis with 1, 4 and 16 replicas, toolerr's
# compare-and-swap store beside sony/gobreaker v2's DistributedCircuitBreaker on
# the same redis-server in the same run; before them, one protected call in
# process (resilience.Executor beside gobreaker v2 under a plain retry loop)
# in interleaved rounds. Needs redis-server (scripts/setup-redis.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCHTIME=${BENCHTIME:-1s}  # the pure-core figures and each Redis round
echo "== decisions in the pure core (ns/op)"
go test -run '^$' -bench . -benchmem -benchtime "$BENCHTIME" ./core/internal/decide | grep -E '^Benchmark'
go test -run '^$' -bench 'Invoke_(retry|breaker|budget|stepCall|stepCallFused|stepCallAhead|stepCallGeneral)$|Step_successCall$' -benchmem -benchtime "$BENCHTIME" ./core | grep -E '^Benchmark'
echo "== resilience.Executor per call (its MemoryStore, sleeping switched off; ns/op, allocs/op)"
go test -run '^$' -bench 'Executor_' -benchmem -benchtime "$BENCHTIME" ./resilience | grep -E '^Benchmark'
# Benchmarks of the redisstore test binary, in interleaved rounds: each round
# runs every named sub-benchmark once, in an order that rotates, and prints
# "round name value" for the column whose unit is $2.
bin=$(mktemp -d)/redisstore.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd redisstore && go test -c -o "$bin" .)
rounds=${BENCH_ROUNDS:-7}
interleave() {
  local bench=$1 unit=$2 benchtime=$3
  shift 3
  local names=("$@") r i name out
  for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < ${#names[@]}; i++)); do
      name=${names[$(((i + r) % ${#names[@]}))]}
      out=$(cd redisstore && "$bin" -test.run '^$' -test.bench "^$bench/$name\$" -test.benchtime "$benchtime" 2>&1) || {
        printf 'bench-decide: %s/%s failed:\n%s\n' "$bench" "$name" "$out" >&2
        return 1
      }
      printf '%s\n' "$out" |
        awk -v r="$r" -v n="$name" -v unit="$unit" '/^Benchmark/ {for (i = 2; i <= NF; i++) if ($i == unit) print r, n, $(i-1)}'
    done
  done
}
# median(a, k): the median of a[1..k] (sorts a).
awk_median='function median(a, k,   i, j, t) {
  for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
  return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}'

echo "== one protected call in process beside sony/gobreaker v2 (every fifth attempt fails retryably, the"
echo "   work of scripts/bench-runtime.sh; ns/op, $rounds interleaved rounds, medians of per-round ratios)"
interleave BenchmarkExecutorInProcess ns/op "${BENCH_RUNTIME_CALLS:-20000}x" plain toolerr gobreaker | awk -v rounds="$rounds" "$awk_median"'
  { v[$1, $2] = $3 }
  END {
    for (r = 0; r < rounds; r++) {
      p[r + 1] = v[r, "plain"]; t[r + 1] = v[r, "toolerr"] - v[r, "plain"]; g[r + 1] = v[r, "gobreaker"] - v[r, "plain"]
      q[r + 1] = (v[r, "gobreaker"] - v[r, "plain"]) / (v[r, "toolerr"] - v[r, "plain"])
    }
    m = median(q, rounds)
    printf "  plain retry loop                               %9.0f ns/call\n", median(p, rounds)
    printf "  resilience.Executor (retry, breaker)           %9.0f ns/call above the plain loop\n", median(t, rounds)
    printf "  gobreaker CircuitBreaker under the plain loop  %9.0f ns/call above the plain loop   toolerr %.2fx its speed\n", median(g, rounds), m
    printf "  goal: decision overhead vs gobreaker: toolerr %.2fx the peer'"'"'s, goal >= 1.00x %s\n", m, (m >= 1 ? "met" : "missed")
  }'

echo "== breaker decisions per second through Redis (one protected call = allow + success; $rounds interleaved"
echo "   rounds, medians of per-round ratios)"
subs=()
for n in 1 4 16; do subs+=("toolerr/replicas=$n" "gobreaker/replicas=$n"); done
interleave BenchmarkBreakerRedis decisions/s "$BENCHTIME" "${subs[@]}" | awk -v rounds="$rounds" "$awk_median"'
  { v[$1, $2] = $3 }
  END {
    split("1 4 16", ns, " ")
    for (k = 1; k <= 3; k++) {
      n = ns[k]
      for (r = 0; r < rounds; r++) {
        t[r + 1] = v[r, "toolerr/replicas=" n]; g[r + 1] = v[r, "gobreaker/replicas=" n]
        q[r + 1] = g[r + 1] > 0 ? t[r + 1] / g[r + 1] : 0
      }
      m = median(q, rounds)
      printf "  %2d replicas: toolerr %7.0f, gobreaker %7.0f decisions/s   toolerr %.2fx: goal >= 1.00x %s\n", n, median(t, rounds), median(g, rounds), m, (m >= 1 ? "met" : "missed")
    }
  }'
