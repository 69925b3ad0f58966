#!/usr/bin/env bash
# test-frameworks-py DIST: toolerr.integrations on the agent frameworks' own
# stacks (docs/frameworks.md). Installs, into bindings/python/.venv-frameworks,
# the wheel from `make packages` with its framework extras
# (openai-agents, langgraph, pydantic-ai, mcp, httpx, httpx2) and the provider SDKs of
# bindings/python/tests_frameworks/requirements.txt, every version pinned by
# tests_frameworks/constraints.txt; then mypy --strict on the integrations
# and their examples, then pytest on tests_frameworks/ (each framework's own
# agent loop against a scripted provider and seed 000's search service on
# 127.0.0.1, the examples, and a fresh interpreter showing that `import
# toolerr` loads no framework), and the egress transports with the openai,
# anthropic and google-genai clients, in-process and through dist/toolerr-gateway.
# Idempotent: a second run installs nothing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist_arg=${1:-dist}
dist=$(cd "$root" && cd "$dist_arg" 2>/dev/null && pwd) || {
  echo "test-frameworks-py: no dist directory at '$dist_arg'; run 'make build' first" >&2; exit 1; }
version=$(tr -d '[:space:]' <"$root/VERSION")
whl=$(ls "$dist"/packages/toolerr-"$version"-py3-none-*.whl 2>/dev/null | head -1)
[ -n "$whl" ] || { echo "test-frameworks-py: no toolerr $version wheel in $dist/packages; run 'make packages' first" >&2; exit 1; }

py="$root/bindings/python"
venv="$py/.venv-frameworks"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install -c "$py/tests_frameworks/constraints.txt" -r "$py/tests_frameworks/requirements.txt" \
  "mypy>=1.10,<2" "toolerr[openai-agents,langgraph,pydantic-ai,mcp,httpx,httpx2] @ file://$whl"
"${pip[@]}" install --force-reinstall --no-deps "$whl"
cd "$py"
"$venv/bin/mypy" --strict --no-error-summary toolerr/integrations
echo "test-frameworks-py: mypy --strict clean"
TOOLERR_GATEWAY="$dist/toolerr-gateway" "$venv/bin/pytest" -q -rs -p no:cacheprovider --junitxml="$root/build/pytest-frameworks.xml" tests_frameworks
bash "$root/scripts/testreport.sh" junit python-frameworks "$root/build/pytest-frameworks.xml"
