#!/usr/bin/env bash
# Runs go vet and go test in every nested Go module (oracles/, redisstore/,
# sdktest/ with the official Go provider SDKs, ...),
# which `go test ./...` at the root does not reach. conformance/ is vetted here
# but tested by scripts/test-conformance.sh, after `make build`, with every target.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Bedrock oracle runs botocore's own ParamValidator: a private venv with
# botocore (from PyPI), put first on PATH for the oracles module only.
venv=build/oracles-venv
if [ ! -x "$venv/bin/python3" ] || ! "$venv/bin/python3" -c 'import botocore' 2>/dev/null; then
  python3 -m venv "$venv" && "$venv/bin/python3" -m pip install --disable-pip-version-check -q 'botocore>=1.34' ||
    echo "test-modules: botocore could not be installed; the botocore oracle will skip (the Go walker still runs)" >&2
fi
for mod in $(git ls-files '*/go.mod' | xargs -n1 dirname | sort); do
  echo "== module $mod"
  if [ "$mod" = conformance ]; then
    (cd "$mod" && go vet ./...)
  elif [ "$mod" = oracles ] && [ -x "$venv/bin/python3" ]; then
    (cd "$mod" && go vet ./... && PATH="$PWD/../$venv/bin:$PATH" go test -json -count=1 ./...) | bash scripts/testreport.sh go "go ($mod)"
  else
    (cd "$mod" && go vet ./... && go test -json -count=1 ./...) | bash scripts/testreport.sh go "go ($mod)"
  fi
done
