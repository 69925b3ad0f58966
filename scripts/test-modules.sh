#!/usr/bin/env bash
# Runs go vet and go test in every nested Go module (oracles/, conformance/, ...),
# which `go test ./...` at the root does not reach.
set -euo pipefail
cd "$(dirname "$0")/.."
for mod in $(git ls-files '*/go.mod' | xargs -n1 dirname | sort); do
  echo "== module $mod"
  (cd "$mod" && go vet ./... && go test -count=1 ./...)
done
