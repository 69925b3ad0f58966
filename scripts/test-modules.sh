#!/usr/bin/env bash
# Runs go vet and go test in every nested Go module (oracles/, redisstore/, ...),
# which `go test ./...` at the root does not reach. conformance/ is vetted here
# but tested by scripts/test-conformance.sh, after `make build`, with every target.
set -euo pipefail
cd "$(dirname "$0")/.."
for mod in $(git ls-files '*/go.mod' | xargs -n1 dirname | sort); do
  echo "== module $mod"
  if [ "$mod" = conformance ]; then
    (cd "$mod" && go vet ./...)
  else
    (cd "$mod" && go vet ./... && go test -count=1 ./...)
  fi
done
