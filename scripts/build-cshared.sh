#!/usr/bin/env bash
# build-cshared: placeholder until its issue lands; prints what it skips.
set -euo pipefail
echo "build-cshared: nothing to run yet"
