#!/usr/bin/env bash
# make gateway-check-litellm: the LiteLLM proxy (litellm[proxy] from PyPI,
# in build/litellm-venv) held to toolerr-gateway-check on loopback. The proxy
# is launched by the checker with the fakes' URLs in its environment
# (gatewaycheck/litellm/config.yaml reads them), every outbound proxy variable
# points at a closed loopback port so nothing can reach a real provider, and
# the checker stops it by its process group when done. The matrix goes to
# standard output and build/gateway-check-litellm.md, one exchange per test to
# build/gateway-check-litellm/. Exit 0 when the checker ran (LiteLLM's lost
# tests are the finding, not a failure of the target), 2 on a setup error.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${LITELLM_VERSION:-1.108.7}
venv=build/litellm-venv
bash scripts/setup-litellm.sh
(cd gatewaycheck && go build -o ../build/toolerr-gateway-check ./cmd/toolerr-gateway-check)
port=$("$venv/bin/python3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
key="sk-gwcheck-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
proxy_env="LITELLM_MASTER_KEY=$key LITELLM_LOCAL_MODEL_COST_MAP=True LITELLM_TELEMETRY=False DISABLE_AIOHTTP_TRANSPORT=True"
proxy_env="$proxy_env HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 ALL_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1,localhost"
cmd="$proxy_env exec $PWD/$venv/bin/litellm --config $PWD/gatewaycheck/litellm/config.yaml --host 127.0.0.1 --port $port --telemetry False"
rm -rf build/gateway-check-litellm
status=0
build/toolerr-gateway-check \
  --gateway-cmd "$cmd" --gateway-log build/litellm.log --ready-timeout 120s \
  --base-url "http://127.0.0.1:$port" --api-key "$key" \
  --ingress openai-chat,openai-responses,anthropic,gemini --hops all --timeout 60s \
  --format markdown --dump build/gateway-check-litellm > build/gateway-check-litellm.md || status=$?
echo "LiteLLM proxy $version (litellm[proxy] from PyPI) through toolerr-gateway-check:"
cat build/gateway-check-litellm.md
[ "$status" -le 1 ] || { echo "gateway-check-litellm: the checker could not run (exit $status); see build/litellm.log" >&2; exit 2; }
