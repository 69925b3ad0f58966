#!/usr/bin/env bash
# bench-bindings DIST: each binding beside the library users would otherwise
# pick, in one process per language, on the work items of issue 12:
#   (a) one failed tool call's envelope to an Anthropic tool_result message;
#   (b) the 40-message OpenAI Chat transcript of the core's own benchmark
#       (core/testdata/bench/transcript-b.json: 10 calls, two parallel pairs,
#       3 failures as envelope JSON, 8.4 KB compact) converted to Anthropic
#       and to Gemini.
# Python beside LiteLLM, Node beside the Vercel AI SDK (ai + @ai-sdk/anthropic),
# Rust beside serde_json; the Node addon (DIST/toolerr_native.node, when
# make build made it) beside the wasm and the AI SDK in the same process.
# Pairs run in interleaved rounds and each line prints
# the medians and the median of the per-round ratios, with the goal.
# The peers are benchmark-only dependencies, pinned and installed here (a venv
# at bindings/python/.venv-bench, node_modules at bindings/node/bench), never
# by the tests. BENCH_ROUNDS (default 41) and BENCH_CALLS (calls per round of
# (a), default 400 (4,000 in Rust); (b) runs a 40th of them) size the runs:
# short rounds, so that both sides of a pair see the same load. BENCH_WORK=a
# (or b) runs one work item only (a: without the instantiate measurement);
# in Rust an s in BENCH_WORK (s, bs) prints the split of the body rows' time (the
# core's call alone, its answer read as a Value alone).
# BENCH_CLOCK=cpu makes the Rust bench time process CPU time, not wall-clock.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist_arg=${1:-dist}
dist=$(cd "$root" && cd "$dist_arg" 2>/dev/null && pwd) || {
  echo "bench-bindings: no dist directory at '$dist_arg'; run 'make build' first" >&2; exit 1; }
for f in libtoolerr.so libtoolerr.a toolerr.wasm; do
  [ -f "$dist/$f" ] || { echo "bench-bindings: $dist/$f is missing; run 'make build' first" >&2; exit 1; }
done
litellm_version=1.110.2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TOOLERR_BENCH_TRANSCRIPT="$root/core/testdata/bench/transcript-b.json"

py="$root/bindings/python"
cp "$dist/libtoolerr.so" "$py/toolerr/libtoolerr.so"
[ -x "$py/.venv-bench/bin/python" ] || python3 -m venv "$py/.venv-bench"
pip=("$py/.venv-bench/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install "litellm==$litellm_version" "orjson>=3.9,<4"  # orjson: the binding's dependency (--no-deps below)
"${pip[@]}" install --force-reinstall --no-deps "$py"
rm -rf "$py/build"

node_dir="$root/bindings/node"
cp "$dist/toolerr.wasm" "$node_dir/toolerr.wasm"
(cd "$node_dir/bench" && npm ci --no-audit --no-fund --loglevel=error)
if [ -f "$dist/toolerr_native.node" ]; then
  export TOOLERR_NATIVE_ADDON="$dist/toolerr_native.node"
else
  echo "bench-bindings: $dist/toolerr_native.node is missing (make native): the Node addon is left out"
fi

(cd "$root/bindings/rust" && TOOLERR_DIST="$dist" cargo build -q --release --locked --example bench)

echo "== bench-bindings: ratio = toolerr / peer"
(cd /tmp && "$py/.venv-bench/bin/python" "$py/bench/bench.py")
echo
node --disable-warning=ExperimentalWarning "$node_dir/bench/bench.mjs"
echo
# Instantiate + first call, fresh processes alternating with the Go floor.
if [[ "${BENCH_WORK:-ab}" == *b* ]]; then
(cd "$root/conformance/bench/floor" && GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false \
  -buildmode=c-shared -ldflags="-s -w -buildid=" -o "$tmp/floor.wasm" .)
first=() floor=() native=()
for _ in 1 2 3 4 5 6 7; do
  first+=("$(node --disable-warning=ExperimentalWarning "$node_dir/bench/first-call.mjs")")
  floor+=("$(node --disable-warning=ExperimentalWarning "$node_dir/bench/first-call.mjs" --floor "$tmp/floor.wasm")")
  [ -z "${TOOLERR_NATIVE_ADDON:-}" ] || native+=("$(node --disable-warning=ExperimentalWarning "$node_dir/bench/first-call.mjs" --native)")
done
median() { printf '%s\n' "$@" | sort -g | sed -n 4p; }
f=$(median "${first[@]}") g=$(median "${floor[@]}")
awk -v f="$f" -v g="$g" 'BEGIN { printf "node: import + instantiate + first toAnthropic %.1f ms (Go wasip1 floor: %.1f ms, %.2fx) (goal <= 20 ms: %s)\n", f, g, f / g, f <= 20 ? "met" : "missed" }'
if [ ${#native[@]} -gt 0 ]; then
  h=$(median "${native[@]}")
  awk -v f="$f" -v h="$h" 'BEGIN { printf "node: import toolerr/native + load the addon + first toAnthropic %.1f ms (%.2fx the wasm path, %.1f ms) (goal <= 20 ms: %s)\n", h, h / f, f, h <= 20 ? "met" : "missed" }'
fi
echo
fi
(cd "$root/bindings/rust" && TOOLERR_DIST="$dist" cargo run -q --release --locked --example bench)
