#!/usr/bin/env bash
# build-wasm: placeholder until its issue lands; prints what it skips.
set -euo pipefail
echo "build-wasm: nothing to run yet"
