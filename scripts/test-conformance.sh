#!/usr/bin/env bash
# test-conformance: the shared fixtures through every build target, after
# `make build` has filled the dist dir (usage: test-conformance.sh [dist-dir]).
#   1. Two builds give identical bytes (reproducible artifacts).
#   2. The conformance module's tests with every artifact required: fixture
#      lint, every fixture on native/wazero/wasmtime/cshared (plus any
#      external target given in TOOLERR_CONFORMANCE_TARGETS as
#      "name=command args" entries separated by ';'), boundary and memory
#      tests, the C header smoke test.
set -euo pipefail
cd "$(dirname "$0")/.."
dist="$(cd "${1:-dist}" && pwd)"
for f in toolerr.wasm libtoolerr.so libtoolerr.a toolerr.h; do
  [ -f "$dist/$f" ] || { echo "test-conformance: $dist/$f missing: run make build" >&2; exit 1; }
done

bash scripts/build-cshared.sh --check-reproducible

flags=()
if [ -n "${TOOLERR_CONFORMANCE_TARGETS:-}" ]; then
  IFS=';' read -ra specs <<<"$TOOLERR_CONFORMANCE_TARGETS"
  for s in "${specs[@]}"; do flags+=("-target=$s"); done
fi
cd conformance
go vet ./...
TOOLERR_DIST="$dist" TOOLERR_REQUIRE_TARGETS=1 go test -json -count=1 -timeout 60m . -args "${flags[@]}" |
  bash ../scripts/testreport.sh go conformance
