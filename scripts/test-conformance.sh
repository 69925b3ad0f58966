#!/usr/bin/env bash
# test-conformance: placeholder until its issue lands; prints what it skips.
set -euo pipefail
echo "test-conformance: nothing to run yet"
