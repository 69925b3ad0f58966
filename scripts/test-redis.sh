#!/usr/bin/env bash
# test-redis DIST: one breaker shared through a real redis-server by replicas
# in every language, and the chaos test, with Go, Python, Node and Rust
# replicas (separate processes) at once: redisstore's TestCrossLanguage_oneBreaker
# and TestChaos_sickRedis, which start their own server on a free loopback
# port and stop it (and every replica) by pid. Runs after test-python
# (bindings/python/.venv with toolerr[redis]), test-node (node_modules with
# ioredis) and with DIST from `make build`; builds the Rust replica
# (examples/redis_replica, feature redis). About 20 s.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist_arg=${1:-dist}
dist=$(cd "$root" && cd "$dist_arg" 2>/dev/null && pwd) || {
  echo "test-redis: no dist directory at '$dist_arg'; run 'make build' first" >&2; exit 1; }
bash "$root/scripts/setup-redis.sh"
py="$root/bindings/python/.venv/bin/python"
"$py" -I -c 'import toolerr.redis_store, redis' 2>/dev/null || {
  echo "test-redis: $py has no toolerr[redis]; run scripts/test-python.sh first" >&2; exit 1; }
node_dir="$root/bindings/node"
[ -d "$node_dir/node_modules/ioredis" ] && [ -f "$node_dir/toolerr.wasm" ] || {
  echo "test-redis: bindings/node has no node_modules/ioredis or toolerr.wasm; run scripts/test-node.sh first" >&2; exit 1; }
(cd "$root/bindings/rust" && TOOLERR_DIST="$dist" cargo build -q --release --locked --features redis --example redis_replica)
export TOOLERR_REDIS_LANGS="go python node rust"
export TOOLERR_REPLICA_PYTHON="$py" TOOLERR_REPLICA_NODE_DIR="$node_dir"
export TOOLERR_REPLICA_RUST="$root/bindings/rust/target/release/examples/redis_replica"
cd "$root/redisstore"
set -o pipefail
go test -json -count=1 -run '^(TestCrossLanguage_oneBreaker|TestChaos_sickRedis)$' -v . |
  tee "$root/build/test-redis.json" | bash "$root/scripts/testreport.sh" go 'redis (go, python, node, rust replicas)'
grep -ho '"Output":"[^"]*chaos [^"]*' "$root/build/test-redis.json" | sed 's/^"Output":"//; s/\\n$//; s/\\t/ /g'
