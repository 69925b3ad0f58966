#!/usr/bin/env bash
# test-node DIST: the Node binding. Copies DIST/toolerr.wasm into the package,
# `npm ci` (node_modules under bindings/node), makes sure Debian's chromium is
# installed for the browser test (apt-get, as root), runs the tsc check that
# our outputs are assignable to the official SDKs' parameter types, then
# node:test (smoke, API, conformance fixtures, worker_threads, memory, bad
# input, README example, headless Chromium). Idempotent.
# The optional native addon (DIST/toolerr_native.node, make native): when
# built, test/native.test.mjs runs on it (TOOLERR_NATIVE_ADDON) and the API,
# ops, typed, bodies, egress, smoke and conformance-fixture tests run a second
# time with TOOLERR_NATIVE=1 (the same JS layer over the addon); when not,
# native.test.mjs skips, saying why, and the second pass is left out.
# TOOLERR_EMIT_OUTPUTS=path makes the fixture runner write its outputs there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist_arg=${1:-dist}
dist=$(cd "$root" && cd "$dist_arg" 2>/dev/null && pwd) || {
  echo "test-node: no dist directory at '$dist_arg'; run 'make build' first" >&2; exit 1; }
[ -f "$dist/toolerr.wasm" ] || { echo "test-node: $dist/toolerr.wasm is missing; run 'make build' first" >&2; exit 1; }

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "test-node: /usr/bin/chromium is missing and this is not root; install it with: sudo apt-get install -y chromium" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
echo "test-node: $(/usr/bin/chromium --version 2>/dev/null || echo chromium)"

node_dir="$root/bindings/node"
cp "$dist/toolerr.wasm" "$node_dir/toolerr.wasm"
cd "$node_dir"
npm ci --no-audit --no-fund --loglevel=error
npx tsc -p types-check
echo "test-node: tsc: toolerr's outputs are assignable to the openai, @anthropic-ai/sdk and @google/genai parameter types"
mkdir -p "$root/build"
native=
if [ -f "$dist/toolerr_native.node" ]; then
  export TOOLERR_NATIVE_ADDON="$dist/toolerr_native.node"
  native=1
else
  echo "test-node: $dist/toolerr_native.node not built (make native): the native addon's tests skip"
fi
# --test-timeout bounds each test and each file (15 min): a file whose process is kept alive
# after its tests (a client left open by a failed assertion) fails instead of stopping the run.
node --disable-warning=ExperimentalWarning --test --test-timeout=900000 --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=junit --test-reporter-destination="$root/build/node-junit.xml" test/
bash "$root/scripts/testreport.sh" junit node "$root/build/node-junit.xml"
if [ -n "$native" ]; then
  echo "test-node: the same tests over the native addon (TOOLERR_NATIVE=1, $TOOLERR_NATIVE_ADDON)"
  TOOLERR_NATIVE=1 node --disable-warning=ExperimentalWarning --test --test-timeout=900000 --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=junit --test-reporter-destination="$root/build/node-native-junit.xml" \
    test/api.test.mjs test/ops.test.mjs test/typed.test.mjs test/bodies.test.mjs test/egress.test.mjs test/smoke.test.mjs test/conformance.test.mjs
  bash "$root/scripts/testreport.sh" junit 'node (native addon)' "$root/build/node-native-junit.xml"
fi
