#!/usr/bin/env bash
# Runs every Go fuzz target in the root module for $1 (default 10s) each.
# Targets are discovered with `go test -list`, so a new Fuzz function needs no edit here.
# The committed seed corpora (testdata/fuzz/) also run in plain `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-10s}
for pkg in $(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u); do
  for target in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    echo "== $pkg $target ($fuzztime)"
    go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime"
  done
done
