#!/usr/bin/env bash
# test-rust DIST: the Rust binding. cargo test --features redis,egress (smoke, API, conformance, egress,
# the Redis store on a redis-server it starts
# fixtures, threads, memory, bad input) with DIST/libtoolerr.a linked
# statically (TOOLERR_DIST), then the README example through cargo run,
# its output compared with what docs/bindings.md shows. target/ stays under
# bindings/rust. Idempotent.
# TOOLERR_EMIT_OUTPUTS=path makes the fixture runner write its outputs there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist_arg=${1:-dist}
dist=$(cd "$root" && cd "$dist_arg" 2>/dev/null && pwd) || {
  echo "test-rust: no dist directory at '$dist_arg'; run 'make build' first" >&2; exit 1; }
[ -f "$dist/libtoolerr.a" ] || { echo "test-rust: $dist/libtoolerr.a is missing; run 'make build' first" >&2; exit 1; }

cd "$root/bindings/rust"
export TOOLERR_DIST="$dist"
cargo test --release --locked -q --features redis,egress 2>&1 | bash "$root/scripts/testreport.sh" cargo rust
want=$'RATE_LIMITED true 7\ntool_result true\nINVALID_INPUT op'
got=$(cargo run -q --release --locked --example readme_example)
if [ "$got" != "$want" ]; then
  printf 'test-rust: README example printed:\n%s\nwant:\n%s\n' "$got" "$want" >&2
  exit 1
fi
echo "test-rust: README example ok"
