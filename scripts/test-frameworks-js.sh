#!/usr/bin/env bash
# test-frameworks-js DIST: toolerr's JavaScript integrations
# (toolerr/integrations/*) on the agent frameworks' own stacks
# (docs/frameworks.md). Installs, into bindings/node/test-frameworks/node_modules,
# the frameworks and provider packages of bindings/node/test-frameworks/package.json
# at the exact versions of its package-lock.json (npm ci, skipped when the lock
# is unchanged since the last install), then the npm tarball from `make
# packages` as node_modules/toolerr, so the tests import what would be
# published. Then tsc on the integrations' types against the frameworks'
# own, then node:test on test-frameworks/ (each framework's own agent loop
# with the real provider packages against a scripted provider and seed 000's
# search service on 127.0.0.1, the examples in bindings/node/examples/frameworks,
# and a fresh process showing that `import 'toolerr'` loads no framework).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist_arg=${1:-dist}
dist=$(cd "$root" && cd "$dist_arg" 2>/dev/null && pwd) || {
  echo "test-frameworks-js: no dist directory at '$dist_arg'; run 'make build' first" >&2; exit 1; }
version=$(tr -d '[:space:]' <"$root/VERSION")
tgz="$dist/packages/toolerr-$version.tgz"
[ -f "$tgz" ] || { echo "test-frameworks-js: no $tgz; run 'make packages' first" >&2; exit 1; }

dir="$root/bindings/node/test-frameworks"
cd "$dir"
if ! cmp -s package-lock.json node_modules/.toolerr-installed-lock 2>/dev/null; then
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json node_modules/.toolerr-installed-lock
fi
rm -rf node_modules/toolerr
mkdir -p node_modules/toolerr
tar -xzf "$tgz" -C node_modules/toolerr --strip-components=1
node_modules/.bin/tsc -p .
echo "test-frameworks-js: tsc: the integrations' types check against the frameworks' own"
mkdir -p "$root/build"
node --disable-warning=ExperimentalWarning --test --test-timeout=900000 --test-concurrency=1 --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=junit --test-reporter-destination="$root/build/node-frameworks-junit.xml" ./*.test.mjs
bash "$root/scripts/testreport.sh" junit node-frameworks "$root/build/node-frameworks-junit.xml"
