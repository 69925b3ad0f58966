#!/usr/bin/env bash
# build-wasm: dist/toolerr.wasm, the core as a WASI reactor (GOOS=wasip1,
# -buildmode=c-shared, exports via go:wasmexport). Reproducible: -trimpath,
# -buildvcs=false and no symbol/DWARF sections, so two builds are identical
# (scripts/build-cshared.sh --check-reproducible checks every artifact).
set -euo pipefail
cd "$(dirname "$0")/.."
dist="${1:-dist}"
mkdir -p "$dist"
GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 go build -trimpath -buildvcs=false \
  -buildmode=c-shared -tags toolerr_nocontext -ldflags="-s -w -buildid=" -o "$dist/toolerr.wasm" ./wasm
echo "build-wasm: $dist/toolerr.wasm ($(wc -c <"$dist/toolerr.wasm") bytes)"
