#!/usr/bin/env bash
# test-modules: placeholder until its issue lands; prints what it skips.
set -euo pipefail
echo "test-modules: nothing to run yet"
