#!/usr/bin/env bash
# bench-decide: the decision ops in ns/op (pure core, and through Invoke), then
# breaker decisions per second through Redis with 1, 4 and 16 replicas, toolerr's
# compare-and-swap store beside sony/gobreaker v2's DistributedCircuitBreaker on
# the same redis-server in the same run. Needs redis-server (scripts/setup-redis.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCHTIME=${BENCHTIME:-1s}
echo "== decisions in the pure core (ns/op)"
go test -run '^$' -bench . -benchmem -benchtime "$BENCHTIME" ./core/internal/decide | grep -E '^Benchmark'
go test -run '^$' -bench 'Invoke_(retry|breaker|budget)$' -benchmem -benchtime "$BENCHTIME" ./core | grep -E '^Benchmark'
echo "== breaker decisions per second through Redis (one protected call = allow + success)"
(cd redisstore && go test -run '^$' -bench BreakerRedis -benchtime "$BENCHTIME" .) | grep -E '^Benchmark' |
  awk '{for (i = 1; i <= NF; i++) if ($i == "decisions/s") r = $(i-1); printf "  %-48s %10.0f decisions/s\n", $1, r}'
