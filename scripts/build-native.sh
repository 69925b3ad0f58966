#!/usr/bin/env bash
# build-native DIST: DIST/toolerr_native.node, the Node binding's optional
# N-API addon (bindings/node-native/toolerr_native.c) with DIST/libtoolerr.a
# (Go's c-archive, built position-independent on linux/amd64) linked in: one
# file, no libtoolerr.so beside it, no rpath. Built with gcc against the
# node_api.h that ships with the Node on PATH (no node-gyp, no network).
# Skips, saying so, when there is no gcc or no node_api.h (the wasm path
# needs neither; the Node tests then skip the addon's and say why).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist=$(cd "${1:-dist}" && pwd)
[ -f "$dist/libtoolerr.a" ] || { echo "build-native: $dist/libtoolerr.a is missing; run 'make cshared' first" >&2; exit 1; }
cc=${CC:-gcc}
if ! command -v "$cc" >/dev/null || ! command -v node >/dev/null; then
  echo "build-native: skipped: no $cc or no node on PATH (the addon is optional)"; exit 0
fi
inc=$(dirname "$(readlink -f "$(command -v node)")")/../include/node
if [ ! -f "$inc/node_api.h" ]; then
  echo "build-native: skipped: $inc/node_api.h not found (the addon is optional)"; exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# -Wl,--exclude-libs,ALL keeps the archive's symbols (the Go runtime's and
# toolerr_*) out of the addon's dynamic symbol table; -z noexecstack as the
# Go linker marks its own objects; -z nodelete keeps the addon mapped for
# the process's life: Node dlclose()s an addon when the last worker_thread
# that loaded it exits, and unmapping the Go runtime under its own running
# threads (sysmon, the GC's workers) is a SIGSEGV (the Go runtime can be
# neither stopped nor started twice in one process).
"$cc" -shared -fPIC -O2 -std=c11 -Wall -Wextra -Werror -fvisibility=hidden \
  -I "$inc" -I "$dist" -o "$tmp/toolerr_native.node" "$root/bindings/node-native/toolerr_native.c" \
  "$dist/libtoolerr.a" -lpthread -Wl,--exclude-libs,ALL -Wl,-z,noexecstack -Wl,-z,nodelete -Wl,-s
cp "$tmp/toolerr_native.node" "$dist/toolerr_native.node"
echo "build-native: $dist/toolerr_native.node ($(stat -c %s "$dist/toolerr_native.node") bytes)"
