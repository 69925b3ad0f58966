#!/usr/bin/env bash
# bench-gateway: what toolerr-gateway adds to a request (bench/gatewaybench).
# A 40-message Chat Completions request with 10 tool calls
# (bench/fixtures/openai-chat-40.json) goes straight to a fake upstream and
# through a real toolerr-gateway process to the same upstream, interleaved, at
# concurrency 1 and 64 (added p50/p99); then 100,000 requests through the
# gateway with its resident set sampled (start, peak, end: flat or not). Each
# goal is printed met or not met. Everything listens on 127.0.0.1; the bench
# starts the gateway and the upstream and stops them by pid. The report also
# goes to build/bench-gateway.md.
#   GATEWAY_BENCH_LOAD   requests of the memory run (default 100000)
#   GATEWAY_BENCH_ARGS   more flags for gatewaybench (e.g. -rounds-c64 5000, or
#                        -baseline-bin OLD to measure a build from before a
#                        change in the same interleaved rounds)
#   GATEWAY_BENCH_FLOOR  1: measure net/http's ReverseProxy alone
#                        (bench/reverseproxy, the gateway's transport
#                        settings, no ops) as the baseline, the floor under
#                        the gateway on this machine
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist}
bin=$(realpath "$dist/toolerr-gateway")
[ -x "$bin" ] || { echo "bench-gateway: $bin missing; run make build" >&2; exit 2; }
mkdir -p build
out=$PWD/build/bench-gateway.md
cd bench
go build -o ../build/gatewaybench ./gatewaybench
floor=()
if [ "${GATEWAY_BENCH_FLOOR:-}" = 1 ]; then
  go build -o ../build/reverseproxy ./reverseproxy
  floor=(-baseline-bin ../build/reverseproxy -baseline-name "net/http ReverseProxy alone (bench/reverseproxy)")
fi
echo "== the gateway's handler in process (ns/op), beside encoding/json reading the same body"
go test -run '^$' -bench . -benchmem ./gatewaybench | grep -E '^Benchmark'
echo
# shellcheck disable=SC2086 # GATEWAY_BENCH_ARGS is a list of flags
../build/gatewaybench -gateway-bin "$bin" -gateway-log ../build/bench-gateway.log \
  -load "${GATEWAY_BENCH_LOAD:-100000}" -out "$out" "${floor[@]}" ${GATEWAY_BENCH_ARGS:-}
