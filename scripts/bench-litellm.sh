#!/usr/bin/env bash
# make bench-litellm (optional, not in make test or make bench): toolerr-gateway
# beside the LiteLLM proxy (build/litellm-venv, scripts/setup-litellm.sh) on the
# same fake upstream and the same 40-message request (bench/gatewaybench
# -litellm-cmd): latency interleaved at concurrency 1, throughput at
# concurrency 64, and the ratio (goal: toolerr-gateway >= 10x LiteLLM's
# throughput). The proxy listens on 127.0.0.1, every outbound proxy variable
# points at a closed loopback port so nothing reaches a real provider, and the
# bench stops it by its process group. The report also goes to
# build/bench-litellm.md.
#   LITELLM_BENCH_LOAD   requests of each throughput run (default 2000)
set -euo pipefail
cd "$(dirname "$0")/.."
dist=${1:-dist}
bash scripts/setup-litellm.sh
bin=$(realpath "$dist/toolerr-gateway")
[ -x "$bin" ] || { echo "bench-litellm: $bin missing; run make build" >&2; exit 2; }
venv=$PWD/build/litellm-venv
key="sk-bench-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
closed=http://127.0.0.1:9
env="LITELLM_MASTER_KEY=$key LITELLM_LOCAL_MODEL_COST_MAP=True LITELLM_TELEMETRY=False DISABLE_AIOHTTP_TRANSPORT=True"
env="$env HTTP_PROXY=$closed HTTPS_PROXY=$closed ALL_PROXY=$closed NO_PROXY=127.0.0.1,localhost"
env="$env GWCHECK_ANTHROPIC_URL=$closed GWCHECK_GEMINI_URL=$closed GWCHECK_BEDROCK_URL=$closed"
# gatewaybench puts GWCHECK_OPENAI_URL (its upstream) and BENCH_PORT in the
# command's environment.
# shellcheck disable=SC2016 # $BENCH_PORT is expanded by the command's shell
cmd="$env exec $venv/bin/litellm --config $PWD/gatewaycheck/litellm/config.yaml --host 127.0.0.1"' --port $BENCH_PORT --telemetry False'
cd bench
go build -o ../build/gatewaybench ./gatewaybench
../build/gatewaybench -gateway-bin "$bin" -gateway-log ../build/bench-gateway.log \
  -rounds-c1 500 -rounds-c64 2000 -warmup 1000 -load 10000 \
  -litellm-cmd "$cmd" -litellm-key "$key" -litellm-log ../build/bench-litellm.log -litellm-load "${LITELLM_BENCH_LOAD:-2000}" \
  -out ../build/bench-litellm.md
