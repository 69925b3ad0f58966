#!/usr/bin/env bash
# bench-runtime DIST: each language's runtime beside the resilience libraries
# its users would otherwise pick, on the same work in the same run (a tool
# call whose every fifth attempt fails retryably; sleeping switched off):
#   Python: toolerr.runtime.Executor and toolerr.redis_store.RedisStore beside
#           pybreaker (in memory and with CircuitRedisStorage) and tenacity
#           (bindings/python/bench/bench_runtime.py);
#   Node:   the toolerr Executor and toolerr/redis (ioredis) beside opossum
#           and cockatiel (bindings/node/bench/bench_runtime.mjs);
#   Rust:   toolerr::runtime::Executor beside failsafe, a circuit breaker
#           crate, under the plain retry loop (bindings/rust/bench, a crate of
#           its own with the peer pinned in its Cargo.lock; in process only:
#           failsafe keeps its state in the process);
#   Go:     resilience/ and redisstore/ beside sony/gobreaker v2 (bench-decide.sh,
#           run by bench.sh; not repeated here).
# The peers are benchmark-only, installed here at pinned versions: a venv at
# build/bench-runtime/venv (bindings/python/bench/requirements-runtime.txt)
# and `npm ci` in bindings/node/bench (its package-lock.json), and cargo in
# bindings/rust/bench (its Cargo.lock). A redis-server
# (scripts/setup-redis.sh) is started on a free loopback port for the run and
# stopped by its pid. BENCH_ROUNDS and BENCH_RUNTIME_CALLS set the size.
# BENCH_BEFORE=<git revision> also runs that revision's Python and Node
# runtimes (its bindings/python/toolerr and bindings/node, from git archive,
# over this DIST's core) as one more contender in the same rounds, so a
# change to a runtime is measured before and after in one run; Rust's two
# crates cannot link into one binary (one core each), so that revision's
# bindings/rust is built with this bench and the two binaries run in turn,
# BENCH_RUST_PROCESSES (default 3) times each, medians of their figures
# (the work's, and the successful calls' alone).
# When DIST holds the Node addon (toolerr_native.node, make native), the Node
# Executor (and BENCH_BEFORE's) also runs over it, as TOOLERR_NATIVE_ADDON
# names it to bench_runtime.mjs (what an import of toolerr/native takes).
# BENCH_LANGS (default "python node rust") picks the languages run, e.g.
# BENCH_LANGS=python for the Python rows alone; BENCH_THREADS (default 4) is
# how many threads share one store in the Python row that measures them.
# Goal: toolerr's decision overhead and Redis-backed throughput at least the
# peer's in each language; every ratio is printed with met or missed.
set -euo pipefail
langs=" ${BENCH_LANGS:-python node rust} "
root=$(cd "$(dirname "$0")/.." && pwd)
dist_arg=${1:-dist}
dist=$(cd "$root" && cd "$dist_arg" 2>/dev/null && pwd) || {
  echo "bench-runtime: no dist directory at '$dist_arg'; run 'make build' first" >&2; exit 1; }
for f in libtoolerr.so toolerr.wasm; do
  [ -f "$dist/$f" ] || { echo "bench-runtime: $dist/$f is missing; run 'make build' first" >&2; exit 1; }
done

py="$root/bindings/python"
venv="$root/build/bench-runtime/venv"
cp "$dist/libtoolerr.so" "$py/toolerr/libtoolerr.so"
cp "$root/redisstore/cas.lua" "$py/toolerr/cas.lua"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install -r "$py/bench/requirements-runtime.txt"
"${pip[@]}" install --force-reinstall --no-deps "$py"
rm -rf "$py/build"

node_dir="$root/bindings/node"
cp "$dist/toolerr.wasm" "$node_dir/toolerr.wasm"
cp "$root/redisstore/cas.lua" "$node_dir/cas.lua"
[[ $langs != *" node "* ]] || (cd "$node_dir/bench" && npm ci --no-audit --no-fund --loglevel=error)

before=
if [ -n "${BENCH_BEFORE:-}" ]; then
  before="$root/build/bench-runtime/before"
  rm -rf "$before" && mkdir -p "$before"
  git -C "$root" archive "$BENCH_BEFORE" bindings/python/toolerr bindings/node bindings/rust | tar -x -C "$before"
  cp "$root/redisstore/cas.lua" "$before/bindings/python/toolerr/cas.lua"
  cp "$dist/toolerr.wasm" "$root/redisstore/cas.lua" "$before/bindings/node/"
  ln -s "$node_dir/bench/node_modules" "$before/bindings/node/node_modules"
  export TOOLERR_BENCH_BEFORE="$before/bindings/python/toolerr"
  echo "bench-runtime: before is $(git -C "$root" rev-parse --short "$BENCH_BEFORE")'s runtimes, over this core"
fi

bash "$root/scripts/setup-redis.sh" >/dev/null
redis_pid=
if command -v redis-server >/dev/null 2>&1; then
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --daemonize no \
    >"$root/build/bench-runtime/redis.log" 2>&1 &
  redis_pid=$!
  trap 'kill "$redis_pid" 2>/dev/null || true; wait "$redis_pid" 2>/dev/null || true' EXIT
  for _ in $(seq 50); do
    redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.1
  done
  export TOOLERR_BENCH_REDIS="127.0.0.1:$port"
  echo "bench-runtime: $(redis-server --version | cut -d' ' -f1-3) on $TOOLERR_BENCH_REDIS (pid $redis_pid)"
else
  echo "bench-runtime: no redis-server; the Redis-backed figures are skipped"
fi

if [[ $langs == *" python "* ]]; then
  (cd /tmp && "$venv/bin/python" "$py/bench/bench_runtime.py")
  echo
fi
if [[ $langs == *" node "* ]]; then
  [ -z "$before" ] || export TOOLERR_BENCH_BEFORE="$before/bindings/node"
  [ ! -f "$dist/toolerr_native.node" ] || export TOOLERR_NATIVE_ADDON="$dist/toolerr_native.node"
  node --disable-warning=ExperimentalWarning "$node_dir/bench/bench_runtime.mjs"
  echo
fi
[[ $langs == *" rust "* ]] || exit 0
rust_bench="$root/bindings/rust/bench"
export CARGO_TARGET_DIR="$root/build/bench-runtime/rust-target"
(cd "$rust_bench" && TOOLERR_DIST="$dist" cargo build -q --release --locked)
after_bin="$root/build/bench-runtime/rust-after"
cp "$CARGO_TARGET_DIR/release/toolerr-bench-runtime" "$after_bin"
if [ -z "$before" ]; then
  "$after_bin"
else
  rm -rf "$before/bindings/rust/bench" && cp -r "$rust_bench" "$before/bindings/rust/bench"
  rm -rf "$before/bindings/rust/bench/target"
  (cd "$before/bindings/rust/bench" && TOOLERR_DIST="$dist" cargo build -q --release --locked)
  before_bin="$root/build/bench-runtime/rust-before"
  cp "$CARGO_TARGET_DIR/release/toolerr-bench-runtime" "$before_bin"
  records="$root/build/bench-runtime/rust-records.txt"
  : >"$records"
  for i in $(seq "${BENCH_RUST_PROCESSES:-3}"); do
    for which in after before; do
      bin="$root/build/bench-runtime/rust-$which"
      out=$("$bin")
      [ "$i" -gt 1 ] || [ "$which" = before ] || echo "$out" | grep -v '^record '
      echo "$which $(echo "$out" | grep '^record ')" >>"$records"
    done
  done
  python3 - "$records" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    which, _, *kv = line.split()
    rows.setdefault(which, []).append({k: float(v) for k, v in (x.split("=") for x in kv)})
med = lambda which, k: statistics.median(r[k] for r in rows[which])
a, b = med("after", "toolerr_us"), med("before", "toolerr_us")
print(f"== rust, before and after ({len(rows['after'])} processes each, in turn; medians of their medians)")
print(f"  toolerr before (BENCH_BEFORE)  {b:9.2f} µs/call   after {a:9.2f} µs/call   ({b / a:.2f}x)")
print(f"  failsafe                       {med('before', 'failsafe_us'):9.3f} / {med('after', 'failsafe_us'):.3f} µs/call"
      f"   toolerr {med('before', 'ratio'):.4f}x -> {med('after', 'ratio'):.4f}x its speed")
if all("ok_toolerr_us" in r for w in rows for r in rows[w]):  # the bench crate's successful calls alone
    a, b = med("after", "ok_toolerr_us"), med("before", "ok_toolerr_us")
    print(f"  successful calls alone: toolerr before {b:9.3f} µs/call   after {a:9.3f} µs/call   ({b / a:.2f}x)")
    print(f"  failsafe                       {med('before', 'ok_failsafe_us'):9.3f} / {med('after', 'ok_failsafe_us'):.3f} µs/call"
          f"   toolerr {med('before', 'ok_ratio'):.4f}x -> {med('after', 'ok_ratio'):.4f}x its speed")
PY
fi
