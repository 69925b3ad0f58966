#!/usr/bin/env bash
# bench-bindings DIST: per-call time of one typical serialize (a failed
# envelope to an Anthropic tool_result message) in each binding, beside the
# same serialization written plainly in that language (json.dumps,
# JSON.stringify, serde_json) and beside the peers users would otherwise pick:
# LiteLLM's conversion in Python, the Vercel AI SDK (ai + @ai-sdk/anthropic) in
# Node. The peers are benchmark-only dependencies, installed here (a venv at
# bindings/python/.venv-bench, node_modules at bindings/node/bench), never by
# the tests. BENCH_CALLS sets the iterations (default 100000).
# Goals: each binding at most 3x its plain version and faster than each peer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist_arg=${1:-dist}
dist=$(cd "$root" && cd "$dist_arg" 2>/dev/null && pwd) || {
  echo "bench-bindings: no dist directory at '$dist_arg'; run 'make build' first" >&2; exit 1; }
for f in libtoolerr.so libtoolerr.a toolerr.wasm; do
  [ -f "$dist/$f" ] || { echo "bench-bindings: $dist/$f is missing; run 'make build' first" >&2; exit 1; }
done

py="$root/bindings/python"
cp "$dist/libtoolerr.so" "$py/toolerr/libtoolerr.so"
[ -x "$py/.venv-bench/bin/python" ] || python3 -m venv "$py/.venv-bench"
pip=("$py/.venv-bench/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install "litellm>=1.70,<2"
"${pip[@]}" install --force-reinstall --no-deps "$py"
rm -rf "$py/build"

node_dir="$root/bindings/node"
cp "$dist/toolerr.wasm" "$node_dir/toolerr.wasm"
(cd "$node_dir/bench" && npm ci --no-audit --no-fund --loglevel=error)

(cd "$root/bindings/rust" && TOOLERR_DIST="$dist" cargo build -q --release --locked --example bench_serialize)

echo "== bench-bindings: per call, one failed envelope serialized to an Anthropic tool_result message"
(cd /tmp && "$py/.venv-bench/bin/python" "$py/bench/bench_serialize.py")
echo
node --disable-warning=ExperimentalWarning "$node_dir/bench/bench_serialize.mjs"
echo
(cd "$root/bindings/rust" && TOOLERR_DIST="$dist" cargo run -q --release --locked --example bench_serialize)
