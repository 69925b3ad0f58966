#!/usr/bin/env bash
# set-version NEW: makes NEW the release version everywhere it is written:
# VERSION (the one source), core.Version, the Python, Node and Rust package
# manifests and lock files, the version fixture, the tests and README
# lines that show the version op's answer, and the package file names in
# the README's install lines. bindings/versions_test.go fails
# when any of them drifts from VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
new=${1:?usage: scripts/set-version.sh NEW (e.g. 0.2.0)}
[[ $new =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.]+)?$ ]] || { echo "set-version: '$new' is not a semantic version" >&2; exit 1; }
old=$(tr -d '[:space:]' <VERSION)
[ "$old" != "$new" ] || { echo "set-version: already $new"; exit 0; }
q=${old//./\\.}
printf '%s\n' "$new" >VERSION
sed -i "s/^const Version = \"$q\"/const Version = \"$new\"/" core/invoke.go
sed -i "0,/^version = \"$q\"/s//version = \"$new\"/" bindings/python/pyproject.toml bindings/rust/Cargo.toml
sed -i "/^name = \"toolerr\"$/{n;s/^version = \"$q\"/version = \"$new\"/}" bindings/rust/Cargo.lock
# package.json (toolerr's and toolerr-native's) and package-lock.json: the package's own "version" (the first
# one in the file, and the root package's in the lock file).
sed -i "0,/\"version\": \"$q\"/s//\"version\": \"$new\"/" bindings/node/package.json bindings/node-native/package.json
sed -i "0,/\"version\": \"$q\"/s//\"version\": \"$new\"/; /\"packages\": {/,/\"node_modules/{s/\"version\": \"$q\"/\"version\": \"$new\"/}" bindings/node/package-lock.json
# The version op's answer, wherever a test, fixture or the README shows it.
git grep -lE "\\\\?\"version\\\\?\": ?\\\\?\"$q\\\\?\"|release $q" -- ':!bindings/node/package*.json' ':!VERSION' |
  xargs -r sed -i -E "s/(\\\\?\"version\\\\?\": ?\\\\?\")$q(\\\\?\")/\\1$new\\2/g; s/release $q/release $new/g"
# The package file names in the README's install lines and the docs.
sed -i "s/toolerr-$q\([.-]\)/toolerr-$new\1/g" README.md docs/bindings.md
echo "set-version: $old -> $new"
go test ./bindings/ -run TestVersionsAgree
