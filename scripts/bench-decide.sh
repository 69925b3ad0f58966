#!/usr/bin/env bash
# bench-decide: the decision ops in ns/op (pure core, and through Invoke), then
# breaker decisions per second through Redis with 1, 4 and 16 replicas, toolerr's
# compare-and-swap store beside sony/gobreaker v2's DistributedCircuitBreaker on
# the same redis-server in the same run, then one protected call in process
# (resilience.Executor beside gobreaker v2 under a plain retry loop) in
# interleaved rounds. Needs redis-server (scripts/setup-redis.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCHTIME=${BENCHTIME:-1s}
echo "== decisions in the pure core (ns/op)"
go test -run '^$' -bench . -benchmem -benchtime "$BENCHTIME" ./core/internal/decide | grep -E '^Benchmark'
go test -run '^$' -bench 'Invoke_(retry|breaker|budget)$' -benchmem -benchtime "$BENCHTIME" ./core | grep -E '^Benchmark'
echo "== breaker decisions per second through Redis (one protected call = allow + success)"
(cd redisstore && go test -run '^$' -bench BreakerRedis -benchtime "$BENCHTIME" .) | grep -E '^Benchmark' |
  awk '{for (i = 1; i <= NF; i++) if ($i == "decisions/s") r = $(i-1); printf "  %-48s %10.0f decisions/s\n", $1, r}'
echo "== one protected call in process beside sony/gobreaker v2 (every fifth attempt fails retryably; ns/op,"
echo "   interleaved rounds, medians of per-round ratios; the work of scripts/bench-runtime.sh)"
bin=$(mktemp -d)/redisstore.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd redisstore && go test -c -o "$bin" .)
rounds=${BENCH_ROUNDS:-7}
names=(plain toolerr gobreaker)
for ((r = 0; r < rounds; r++)); do
  for ((i = 0; i < ${#names[@]}; i++)); do
    name=${names[$(((i + r) % ${#names[@]}))]}
    (cd redisstore && "$bin" -test.run '^$' -test.bench "^BenchmarkExecutorInProcess/$name\$" -test.benchtime "${BENCH_RUNTIME_CALLS:-20000}x") |
      awk -v r="$r" -v n="$name" '/^Benchmark/ {print r, n, $3}'
  done
done | awk -v rounds="$rounds" '
  { ns[$1, $2] = $3 }
  function median(a, k,   i, j, t) {
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    for (r = 0; r < rounds; r++) {
      p[r + 1] = ns[r, "plain"]; t[r + 1] = ns[r, "toolerr"] - ns[r, "plain"]; g[r + 1] = ns[r, "gobreaker"] - ns[r, "plain"]
      q[r + 1] = (ns[r, "gobreaker"] - ns[r, "plain"]) / (ns[r, "toolerr"] - ns[r, "plain"])
    }
    printf "  plain retry loop                             %9.0f ns/call\n", median(p, rounds)
    printf "  resilience.Executor (retry, breaker)         %9.0f ns/call above the plain loop\n", median(t, rounds)
    printf "  gobreaker CircuitBreaker under the plain loop %8.0f ns/call above the plain loop   toolerr %.2fx its speed\n", median(g, rounds), median(q, rounds)
    m = median(q, rounds)
    printf "  goal: decision overhead vs gobreaker: toolerr %.2fx the peer'"'"'s, goal >= 1.00x %s\n", m, (m >= 1 ? "met" : "missed")
  }'
