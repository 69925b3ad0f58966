#!/usr/bin/env bash
# build-cshared: dist/libtoolerr.so (-buildmode=c-shared), dist/libtoolerr.a
# (-buildmode=c-archive) and dist/toolerr.h, the hand-written public header
# (cgo's generated header is not published; cshared/header_test.go checks the
# two agree). Reproducible: -trimpath, -buildvcs=false, empty build id.
#
# With --check-reproducible as the first argument, builds every artifact
# (these and dist/toolerr.wasm) twice into temporary dirs and fails unless
# the sha256 sums are identical.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--check-reproducible" ]; then
  a=$(mktemp -d) b=$(mktemp -d)
  trap 'rm -rf "$a" "$b"' EXIT
  # The second build uses an empty build cache, so nothing is reused.
  bash scripts/build-wasm.sh "$a" >/dev/null
  bash scripts/build-cshared.sh "$a" >/dev/null
  mkdir -p "$b/cache"
  GOCACHE="$b/cache" bash scripts/build-wasm.sh "$b" >/dev/null
  GOCACHE="$b/cache" bash scripts/build-cshared.sh "$b" >/dev/null
  (cd "$a" && sha256sum toolerr.wasm libtoolerr.so libtoolerr.a toolerr.h) >"$a.sums"
  (cd "$b" && sha256sum toolerr.wasm libtoolerr.so libtoolerr.a toolerr.h) >"$b.sums"
  cat "$a.sums"
  if ! diff "$a.sums" "$b.sums"; then
    rm -f "$a.sums" "$b.sums"
    echo "build: two builds differ" >&2
    exit 1
  fi
  rm -f "$a.sums" "$b.sums"
  echo "build: reproducible (two builds give identical bytes)"
  exit 0
fi

dist="${1:-dist}"
mkdir -p "$dist"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-trimpath -buildvcs=false -ldflags="-buildid=")
CGO_ENABLED=1 go build "${flags[@]}" -buildmode=c-shared -o "$tmp/libtoolerr.so" ./cshared
CGO_ENABLED=1 go build "${flags[@]}" -buildmode=c-archive -o "$tmp/libtoolerr.a" ./cshared
cp "$tmp/libtoolerr.so" "$tmp/libtoolerr.a" "$dist/"
cp cshared/toolerr.h "$dist/toolerr.h"
echo "build-cshared: $dist/libtoolerr.so $dist/libtoolerr.a $dist/toolerr.h"
