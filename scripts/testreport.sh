#!/usr/bin/env bash
# testreport.sh ARGS: builds scripts/testreport (cached by go build) and runs
# it with ARGS, on the report file of this clone (build/test-report.jsonl
# unless TOOLERR_TEST_REPORT says otherwise). `make test` resets the report
# first and prints `testreport.sh summary` last: every skip with its reason.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export TOOLERR_TEST_REPORT="${TOOLERR_TEST_REPORT:-$root/build/test-report.jsonl}"
(cd "$root" && go build -o build/testreport ./scripts/testreport)
exec "$root/build/testreport" "$@"
