#!/usr/bin/env bash
# bench-targets: the build targets side by side, in one run:
#   1. dist/toolerr.wasm size, raw and gzipped, beside the floor (the smallest
#      Go wasip1 reactor, built by the same toolchain with the same flags);
#   2. instantiate time (module compiled once) under wazero, wasmtime-go and
#      Node's WASI (when node is installed);
#   3. per-call time of one typical request (an openai-chat serialize of one
#      envelope; an envelope op if the codec is not built yet) on every target
#      beside native core.Invoke, and the cost of one boundary crossing.
# Goals (issue 3): wasm <= 1.5x the floor; per call <= 5 us under Node and
# wasmtime, <= 10 us under wazero. Usage: bench-targets.sh [dist-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
dist="$(cd "${1:-dist}" && pwd)"
for f in toolerr.wasm libtoolerr.so; do
  [ -f "$dist/$f" ] || { echo "bench-targets: $dist/$f missing: run make build" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The typical request; fall back to an envelope op while the codec is a stub.
req="$tmp/request.json"
printf '%s' '{"op":"serialize","format":"openai-chat","call":{"id":"call_abc123","name":"get_weather"},"error":{"code":"RATE_LIMITED","details":{"retry_after_seconds":12,"status":429,"tool":"get_weather"},"message":"The get_weather tool was rate limited (HTTP 429); retry after 12 seconds.","retryable":true,"source":"tool"}}' >"$req"
what="openai-chat serialize of one RATE_LIMITED envelope"
if ! go run ./cmd/toolerr invoke <"$req" 2>/dev/null | grep -q '^{"ok":'; then
  printf '%s' '{"op":"envelope","code":"TIMEOUT","message":"Search timed out after 10 s"}' >"$req"
  what="envelope op (the openai-chat codec returned an error)"
fi

# 1. Sizes.
(cd conformance/bench/floor && GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false \
  -buildmode=c-shared -ldflags="-s -w -buildid=" -o "$tmp/floor.wasm" .)
raw=$(wc -c <"$dist/toolerr.wasm"); gz=$(gzip -9c "$dist/toolerr.wasm" | wc -c)
# The same module with its name section, for the per-package breakdown.
GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false -buildmode=c-shared -tags toolerr_nocontext \
  -o "$tmp/named.wasm" ./wasm
(cd conformance/bench/floor && GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false \
  -buildmode=c-shared -o "$tmp/floor-named.wasm" .)
sizes=$(cd conformance && go run ./bench/wasmsize -n 10 -f 10 "$tmp/named.wasm")
floorsizes=$(cd conformance && go run ./bench/wasmsize -n 0 "$tmp/floor-named.wasm")
floor=$(wc -c <"$tmp/floor.wasm"); floorgz=$(gzip -9c "$tmp/floor.wasm" | wc -c)

# 2 and 3. Go benchmarks (best of 3 runs each), then Node.
bench=$(cd conformance && TOOLERR_DIST="$dist" TOOLERR_BENCH_REQUEST="$req" \
  go test -run '^$' -bench 'Invoke|ABIVersion|Instantiate' -benchtime=1s -count=3 . 2>&1) || {
  echo "$bench" >&2; exit 1; }
best() { # best ns/op of benchmark $1, in microseconds
  echo "$bench" | awk -v name="^$1(-[0-9]+)?\$" '$1 ~ name {v = $3 + 0; if (min == "" || v < min) min = v} END {if (min == "") print "n/a"; else printf "%.2f", min / 1000}'
}
node_inst="n/a" node_call="n/a" node_min="n/a"
if command -v node >/dev/null; then
  out=$(node --no-warnings conformance/bench/node.mjs "$dist/toolerr.wasm" "$req")
  node_inst=$(echo "$out" | sed -n 's/.*"instantiate_us":\([0-9.]*\).*/\1/p' | awk '{printf "%.2f", $1 / 1000}')
  node_call=$(echo "$out" | sed -n 's/.*"call_us":\([0-9.]*\).*/\1/p' | awk '{printf "%.2f", $1}')
  node_min=$(echo "$out" | sed -n 's/.*"call_min_us":\([0-9.]*\).*/\1/p' | awk '{printf "%.2f", $1}')
fi
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2fx", a / b}'; }
goal() { awk -v v="$1" -v g="$2" 'BEGIN {if (v == "n/a") print "not measured"; else if (v + 0 <= g) print "goal <= " g ": met"; else print "goal <= " g ": MISSED"}'; }
ms() { awk -v v="$1" 'BEGIN {if (v == "n/a") print v; else printf "%.2f", v / 1000}'; }

echo "== toolerr build targets ($(go env GOVERSION), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "wasm size (bytes)            raw        gzip -9"
printf '  %-24s %10d %12d\n' "dist/toolerr.wasm" "$raw" "$gz"
printf '  %-24s %10d %12d\n' "floor (Go runtime only)" "$floor" "$floorgz"
printf '  %-24s %10s %12s   %s\n' "ratio" "$(ratio "$raw" "$floor")" "$(ratio "$gz" "$floorgz")" \
  "$(awk -v r="$raw" -v f="$floor" 'BEGIN {print (r <= 1.5 * f) ? "goal <= 1.5x: met" : "goal <= 1.5x: MISSED"}')"
echo "where the bytes go (function bodies by package; data segments):"
echo "$sizes"
echo "  the floor:${floorsizes#  }"
echo
echo "instantiate, module compiled once (ms)"
printf '  %-10s %10s\n' wazero "$(ms "$(best 'BenchmarkInstantiate/wazero')")"
printf '  %-10s %10s\n' wasmtime "$(ms "$(best 'BenchmarkInstantiate/wasmtime')")"
printf '  %-10s %10s\n' node "$node_inst"
echo
echo "per call (us): $what"
printf '  %-10s %10s\n' native "$(best 'BenchmarkInvoke/native')"
printf '  %-10s %10s\n' cshared "$(best 'BenchmarkInvoke/cshared')"
w=$(best 'BenchmarkInvoke/wazero'); printf '  %-10s %10s   %s\n' wazero "$w" "$(goal "$w" 10)"
w=$(best 'BenchmarkInvoke/wasmtime'); printf '  %-10s %10s   %s\n' wasmtime "$w" "$(goal "$w" 5)"
printf '  %-10s %10s   %s\n' node "$node_call" "$(goal "$node_call" 5)"
echo
echo "per call (us): {\"op\":\"version\"}, the fixed cost of a call"
for t in native cshared wazero wasmtime; do printf '  %-10s %10s\n' "$t" "$(best "BenchmarkInvokeMinimal/$t")"; done
printf '  %-10s %10s\n' node "$node_min"
echo
echo "one boundary crossing, toolerr_abi_version (us)"
for t in cshared wazero wasmtime; do printf '  %-10s %10s\n' "$t" "$(best "BenchmarkABIVersion/$t")"; done
