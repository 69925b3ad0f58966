#!/usr/bin/env bash
# test-packages PKGS: installs each artifact of `make packages` (in PKGS,
# default dist/packages) the way the README's install lines say, each into a
# fresh virtualenv / npm project / cargo project in a temporary folder, and
# runs the README's example files there:
#   - the wheel (pip install), README, body, resilience and runtime examples
#     (threads and asyncio);
#   - the sdist with Go present (built from source) and without Go (must
#     fail saying what is missing);
#   - the npm tarball (npm install), README, body and runtime examples, then the README example
#     over the optional native addon (toolerr-native-V.tgz installed beside it, when
#     make packages built it: toolerr/native and TOOLERR_NATIVE=1, the same output),
#     bundled by esbuild for Node and run from a folder with no node_modules,
#     and a browser bundle (esbuild) run in headless Chromium when present;
#   - the crate (cargo add --path on the unpacked .crate), README example,
#     linking the bundled libtoolerr.a, then built from the bundled Go source;
#     the runtime example (cargo add minreq@2);
#   - every README code block shown from an example file is that file's
#     text (each line, in order, indentation aside);
#   - the README's Redis breaker examples (its redis-install lines: the wheel's
#     redis extra, ioredis, the crate's redis feature) against a redis-server
#     on a free loopback port, started and stopped here by pid (skipped
#     without redis-server, failed under CI=true: scripts/setup-redis.sh).
# The runtime examples call seed 000's search service (search_service.py) on
# 127.0.0.1, started and stopped here by pid.
# Only the artifacts, the example files, VERSION and the README's install
# lines leave the clone. As root the tests then run in a private mount
# namespace in which the clone is hidden under an empty tmpfs, so nothing
# can resolve back into it; in any case every installed module's real path
# is checked to be inside the temporary folder. Network: the package
# registries only (setuptools for the sdist builds, esbuild, redis-py, ioredis,
# crates).
set -euo pipefail

if [ "${1:-}" = "--inner" ]; then
  tmp=$2 clone=$3
  if [ -n "$clone" ]; then
    mount -t tmpfs -o size=1m,mode=0555 toolerr-clone-hidden "$clone"
    [ -z "$(ls -A "$clone")" ] || { echo "test-packages: could not hide $clone" >&2; exit 1; }
    echo "test-packages: the clone ($clone) is hidden (empty tmpfs) for the rest of the run"
  fi
else
  root=$(cd "$(dirname "$0")/.." && pwd)
  pkgs=$(cd "$root" && cd "${1:-dist/packages}" 2>/dev/null && pwd) || {
    echo "test-packages: no packages at '${1:-dist/packages}'; run 'make packages' first" >&2; exit 1; }
  tmp=$(mktemp -d /tmp/toolerr-packages.XXXXXX)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/artifacts" "$tmp/examples"
  version=$(tr -d '[:space:]' <"$root/VERSION")
  for f in "toolerr-$version-py3-none-"*.whl "toolerr-$version.tar.gz" "toolerr-$version.tgz" "toolerr-$version.crate"; do
    # shellcheck disable=SC2086
    ls "$pkgs"/$f >/dev/null 2>&1 || { echo "test-packages: $pkgs/$f is missing; run 'make packages'" >&2; exit 1; }
    cp "$pkgs"/$f "$tmp/artifacts/"
  done
  # optional: the Node addon's package (make native)
  [ ! -f "$pkgs/toolerr-native-$version.tgz" ] || cp "$pkgs/toolerr-native-$version.tgz" "$tmp/artifacts/"
  cp "$root/VERSION" "$tmp/"
  for f in readme_example body_example resilience_example runtime_example runtime_async_example redis_example search_service; do
    cp "$root/bindings/python/examples/$f.py" "$tmp/examples/"
  done
  for f in readme_example body_example runtime_example redis_example; do cp "$root/bindings/node/examples/$f.mjs" "$tmp/examples/"; done
  for f in readme_example runtime_example redis_example; do cp "$root/bindings/rust/examples/$f.rs" "$tmp/examples/"; done
  # The README's install lines, between the install markers.
  sed -n '/<!-- install:begin/,/<!-- install:end/p' "$root/README.md" | grep -E '^(pip|npm|tar|cargo) ' >"$tmp/install.txt" || true
  [ "$(wc -l <"$tmp/install.txt")" -eq 3 ] || {
    echo "test-packages: README.md must hold one install line per language (pip, npm, cargo) between <!-- install:begin --> and <!-- install:end -->" >&2; exit 1; }
  # The README's lines that add each language's Redis client, between the redis-install markers.
  sed -n '/<!-- redis-install:begin/,/<!-- redis-install:end/p' "$root/README.md" | grep -E '^(pip|npm|cargo) ' >"$tmp/redis-install.txt" || true
  [ "$(wc -l <"$tmp/redis-install.txt")" -eq 3 ] || {
    echo "test-packages: README.md must hold one Redis install line per language (pip, npm, cargo) between <!-- redis-install:begin --> and <!-- redis-install:end -->" >&2; exit 1; }
  # The README's code blocks that show an example file (the paragraph before
  # the block names it, e.g. `bindings/python/examples/runtime_example.py`):
  # each line of the block must be in that file, in order (indentation
  # aside), so what the README shows is what the examples below run. One
  # "ok|bad TEXT" line per block, reported by the inner part.
  python3 - "$root" >"$tmp/readme-blocks.txt" <<'PY'
import os, re, sys
root = sys.argv[1]
lines = open(os.path.join(root, "README.md"), encoding="utf-8").read().split("\n")
named = re.compile(r"`((?:bindings|resilience|redisstore|mcptool)/[\w/.-]+\.(?:py|mjs|rs|go))`")
i = 0
while i < len(lines):
    if not re.fullmatch(r"```(python|js|rust|go)", lines[i]):
        i += 1
        continue
    j = next(k for k in range(i + 1, len(lines)) if lines[k].startswith("```"))
    k = i - 1
    while k >= 0 and not lines[k].strip():
        k -= 1
    para = []
    while k >= 0 and lines[k].strip():
        para.insert(0, lines[k])
        k -= 1
    files = named.findall(" ".join(para))
    if files:
        want = [line.strip() for line in lines[i + 1:j] if line.strip()]
        path = os.path.join(root, files[-1])
        have = iter([line.strip() for line in open(path, encoding="utf-8")] if os.path.exists(path) else [])
        missing = next((w for w in want if not any(h == w for h in have)), None)
        what = f"README block at line {i + 1} is in {files[-1]}"
        print(f"ok {what}" if missing is None else f"bad {what}: not found there (in order): {missing}")
    i = j + 1
PY
  [ "$(grep -c '' "$tmp/readme-blocks.txt")" -ge 20 ] || {
    echo "test-packages: found $(grep -c '' "$tmp/readme-blocks.txt") README blocks naming an example file, expected at least 20" >&2; exit 1; }
  # The sizes the README's Install table gives, against the packages tested here.
  python3 "$root/scripts/readme-sizes.py" "$root/README.md" "$pkgs" "$version" >>"$tmp/readme-blocks.txt"
  # redis-server for the Redis examples (installed as root when missing; the examples skip without it).
  bash "$root/scripts/setup-redis.sh" || true
  cp "$0" "$tmp/test-packages.sh"
  hide=""
  if [ "$(id -u)" -eq 0 ] && unshare -m true 2>/dev/null; then
    hide=$root
  else
    echo "test-packages: not root or no unshare: the clone stays visible; only the path checks below prove nothing resolves into it"
  fi
  cd "$tmp"
  rc=0
  if [ -n "$hide" ]; then
    unshare -m bash "$tmp/test-packages.sh" --inner "$tmp" "$hide" || rc=$?
  else
    bash "$tmp/test-packages.sh" --inner "$tmp" "" || rc=$?
  fi
  # The counts and skips join make test's summary (scripts/testreport.sh).
  if [ -f "$tmp/report.xml" ]; then
    bash "$root/scripts/testreport.sh" junit packages "$tmp/report.xml" || rc=1
  fi
  exit "$rc"
fi

# ---- inner: everything below sees only $tmp, the toolchains and the
# registries. A failed step is counted and the run goes on (no set -e).
set +e
cd "$tmp" || exit 1
unset TOOLERR_LIB TOOLERR_WASM TOOLERR_DIST TOOLERR_GO TOOLERR_BUILD_FROM_SOURCE PYTHONPATH NODE_PATH \
  CARGO_TARGET_DIR RUSTFLAGS VIRTUAL_ENV
version=$(cat VERSION)
passed=0 failed=0
# Each check is also a JUnit test case in $tmp/report.xml (read by testreport).
xmlattr() { sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g; s/"/\&quot;/g' <<<"$1"; }
ok() { passed=$((passed + 1)); echo "ok   $*"; echo "<testcase name=\"$(xmlattr "$*")\"/>" >>"$tmp/cases.xml"; }
bad() {
  failed=$((failed + 1)); echo "FAIL $*" >&2
  echo "<testcase name=\"$(xmlattr "$*")\"><failure/></testcase>" >>"$tmp/cases.xml"
}
skip() {
  echo "skip $1: $2"
  echo "<testcase name=\"$(xmlattr "$1")\"><skipped message=\"$(xmlattr "$2")\"/></testcase>" >>"$tmp/cases.xml"
}
# check NAME WANT GOT: equal strings, or a failure showing both.
check() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1"; printf '  want:\n%s\n  got:\n%s\n' "$2" "$3" >&2; fi; }
# inside NAME PATH...: each real path lies in $tmp.
inside() {
  local name=$1; shift
  [ $# -gt 0 ] || { bad "$name: nothing to check (the step before failed)"; return; }
  for p in "$@"; do
    case "$(realpath "$p")" in "$tmp"/*) ;; *) bad "$name: $p resolves to $(realpath "$p"), outside $tmp"; return;; esac
  done
  ok "$name: $(realpath "$1")"
}
line() { grep -E "^$1 " "$tmp/install.txt"; }
redis_line() { grep -E "^$1 " "$tmp/redis-install.txt"; }
# digits_ms TEXT: TEXT with each "after N ms" as "after … ms" (the runtime examples' delays).
digits_ms() { sed -E 's/after [0-9]+ ms/after … ms/g' <<<"$1"; }
runtime_out() { printf 'attempt 1: TRANSPORT -> retried silently after … ms\nattempt 2: TRANSPORT -> retried silently after … ms\nattempt 3: INVALID_ARGS -> not retried (not_retryable)\nthe model gets: INVALID_ARGS not retryable after 3 calls\ntool_result is_error: %s' "$1"; }
redis_out=$'replica A, call 1: TRANSPORT\nreplica A, call 2: TRANSPORT\nreplica A, call 3: TRANSPORT\nreplica B: CIRCUIT_OPEN - the tool ran 3 times'
body_py="1 claude-sonnet-4-5 Answer briefly.
{'parts': [{'text': 'Answer briefly.'}]} {'maxOutputTokens': 1024}
['dropped the model parameter: gemini takes the model in the URL, not the body']"
body_out='1 claude-sonnet-4-5 Answer briefly.
{"parts":[{"text":"Answer briefly."}]} {"maxOutputTokens":1024}
dropped the model parameter: gemini takes the model in the URL, not the body'

# Seed 000's search service (503, 503, then 400, over again) for the runtime
# examples, and later a redis-server: both on 127.0.0.1, stopped by pid.
svc_pid="" redis_pid=""
trap '[ -z "$svc_pid" ] || kill "$svc_pid" 2>/dev/null; [ -z "$redis_pid" ] || kill "$redis_pid" 2>/dev/null' EXIT
python3 -u examples/search_service.py >service.log 2>&1 &
svc_pid=$!
search_url=""
for _ in $(seq 100); do search_url=$(grep -oE '^http://127\.0\.0\.1:[0-9]+/search' service.log || true); [ -n "$search_url" ] && break; sleep 0.05; done
[ -n "$search_url" ] || bad "search service: no URL printed ($(cat service.log))"
# The README's example blocks, checked against the example files before the clone was hidden.
while read -r verdict text; do
  if [ "$verdict" = ok ]; then ok "$text"; else bad "$text"; fi
done <readme-blocks.txt
readme_py=$'RATE_LIMITED True 7\ntool_result True\nINVALID_INPUT op'
readme_out=$'RATE_LIMITED true 7\ntool_result true\nINVALID_INPUT op'

# where_py PYTHON: the installed package's files and the library mapped after a call.
where_py() {
  "$1" -I - <<'EOF'
import toolerr, toolerr._native as n
toolerr.version()
maps = [l.split()[-1] for l in open("/proc/self/maps") if "libtoolerr" in l]
print(toolerr.__file__); print(n.library_path()); print(maps[0])
EOF
}

# ---- Python: the wheel, as the README installs it.
mkdir -p py/wheel && cd py/wheel
cp ../../artifacts/*.whl .
python3 -m venv venv
(PATH="$PWD/venv/bin:$PATH"; export PATH; eval "$(line pip) --disable-pip-version-check -q") && ok "wheel: $(line pip)" || bad "wheel: $(line pip)"
cp ../../examples/readme_example.py ../../examples/resilience_example.py .
check "wheel: README example" "$readme_py" "$(venv/bin/python readme_example.py 2>&1)"
res=$(venv/bin/python resilience_example.py 2>&1)
check "wheel: resilience example" "attempt 3: 3 hits
breaker closed failures 0" "$(tail -n 2 <<<"$res")"
cp ../../examples/body_example.py ../../examples/runtime_example.py ../../examples/runtime_async_example.py .
check "wheel: body example" "$body_py" "$(venv/bin/python body_example.py 2>&1)"
check "wheel: runtime example" "$(runtime_out True)" "$(digits_ms "$(venv/bin/python runtime_example.py "$search_url" 2>&1)")"
check "wheel: asyncio runtime example" "$(runtime_out True)" \
  "$(digits_ms "$(venv/bin/python runtime_async_example.py "$search_url" 2>&1)")"
mapfile -t where < <(where_py venv/bin/python)
inside "wheel: toolerr, its libtoolerr.so and the mapped library" "${where[@]}"
check "wheel: installed version" "$version $version" \
  "$(venv/bin/python -I -c 'import importlib.metadata as m, toolerr; print(m.version("toolerr"), toolerr.version()["version"])')"
cd "$tmp"

# ---- Python: the sdist, with Go (setup.py builds libtoolerr.so) ...
mkdir -p py/sdist && cd py/sdist
cp ../../artifacts/toolerr-"$version".tar.gz .
python3 -m venv venv
if out=$(venv/bin/python -m pip install --disable-pip-version-check --no-cache-dir "./toolerr-$version.tar.gz" 2>&1); then
  ok "sdist with Go: pip install ./toolerr-$version.tar.gz"
else
  bad "sdist with Go: pip install"; echo "$out" | tail -20 >&2
fi
cp ../../examples/readme_example.py .
check "sdist with Go: README example" "$readme_py" "$(venv/bin/python readme_example.py 2>&1)"
mapfile -t where < <(where_py venv/bin/python)
inside "sdist with Go: toolerr and the libtoolerr.so it built" "${where[@]}"
# ... and without Go on PATH: the build stops and says what is missing.
nogo=$(tr ':' '\n' <<<"$PATH" | grep -vxF "$(dirname "$(command -v go)")" | paste -sd: -)
python3 -m venv venv-nogo
if out=$(PATH="$nogo" venv-nogo/bin/python -m pip install --disable-pip-version-check --no-cache-dir "./toolerr-$version.tar.gz" 2>&1); then
  bad "sdist without Go: pip install succeeded"
elif grep -q "missing Go (https://go.dev/dl" <<<"$out"; then
  ok "sdist without Go: fails with: $(grep -o 'toolerr: no prebuilt.*' <<<"$out" | head -1 | cut -c1-110)..."
else
  bad "sdist without Go: the failure does not say Go is missing"; echo "$out" | tail -20 >&2
fi
cd "$tmp"

# ---- Node: the tarball, as the README installs it.
mkdir -p node/app && cd node/app
cp ../../artifacts/toolerr-"$version".tgz .
npm init -y >/dev/null
eval "$(line npm) --no-audit --no-fund --loglevel=error" >/dev/null && ok "npm: $(line npm)" || bad "npm: $(line npm)"
cp ../../examples/readme_example.mjs .
check "npm: README example" "$readme_out" "$(node --no-warnings readme_example.mjs 2>&1)"
cp ../../examples/body_example.mjs ../../examples/runtime_example.mjs .
check "npm: body example" "$body_out" "$(node --no-warnings body_example.mjs 2>&1)"
check "npm: runtime example" "$(runtime_out true)" "$(digits_ms "$(node --no-warnings runtime_example.mjs "$search_url" 2>&1)")"
mapfile -t where < <(node --input-type=module -e "
import { fileURLToPath } from 'node:url';
console.log(fileURLToPath(import.meta.resolve('toolerr')));
console.log(fileURLToPath(import.meta.resolve('toolerr/toolerr.wasm')));
console.log(fileURLToPath(import.meta.resolve('@bjorn3/browser_wasi_shim')));")
inside "npm: toolerr, its toolerr.wasm and the declared @bjorn3/browser_wasi_shim" "${where[@]}"
[ ! -L node_modules/toolerr ] && ok "npm: node_modules/toolerr is a copy, not a symlink" || bad "npm: node_modules/toolerr is a symlink"
check "npm: installed version" "$version" "$(node -p "require('./node_modules/toolerr/package.json').version")"
# The optional addon, installed beside toolerr as its README says; the README
# example then gives the same output over it, and toolerr/native loads it
# from the project (the clone is hidden).
if [ -f ../../artifacts/toolerr-native-"$version".tgz ]; then
  cp ../../artifacts/toolerr-native-"$version".tgz .
  npm install --no-audit --no-fund --loglevel=error ./toolerr-native-"$version".tgz >/dev/null &&
    ok "npm: npm install ./toolerr-native-$version.tgz" || bad "npm: npm install ./toolerr-native-$version.tgz"
  check "npm + toolerr-native: README example with TOOLERR_NATIVE=1" "$readme_out" "$(TOOLERR_NATIVE=1 node --no-warnings readme_example.mjs 2>&1)"
  mapfile -t where < <(node --no-warnings --input-type=module -e "
import { fileURLToPath } from 'node:url';
const t = await import('toolerr/native');
console.log(t.transport() === 'native' ? fileURLToPath(import.meta.resolve('toolerr-native')) : 'not native: ' + t.transport());")
  inside "npm: toolerr/native takes the installed toolerr-native" "${where[@]}"
else
  skip "npm + toolerr-native" "toolerr-native-$version.tgz was not built (make native needs gcc and Node's node_api.h)"
fi
# A bundler: esbuild (pinned) bundles the example for Node; the bundle runs
# from a folder with no node_modules, toolerr.wasm copied beside it (esbuild
# does not copy assets named by new URL(..., import.meta.url)).
npm install --no-audit --no-fund --loglevel=error --save-dev esbuild@0.28.2 >/dev/null
npx esbuild readme_example.mjs --bundle --platform=node --format=esm --log-level=warning --outfile=../bundle-node/app.mjs
cp node_modules/toolerr/toolerr.wasm ../bundle-node/
check "esbuild, Node bundle (no node_modules beside it): README example" "$readme_out" \
  "$(cd ../bundle-node && node --no-warnings app.mjs 2>&1)"
# The browser build: esbuild picks the "browser" export (browser.js and the
# WASI shim from node_modules); headless Chromium runs it from a loopback server.
cat >browser_example.mjs <<'EOF'
import * as toolerr from 'toolerr';

await toolerr.init();
const err = toolerr.classifyHttp(429, { 'retry-after': '7' }, undefined, { tool: 'get_weather' });
const [msg] = toolerr.toAnthropic([{ callId: 'toolu_01', name: 'get_weather', error: err }]);
document.getElementById('out').textContent = `${err.code} ${err.retryable} ${msg.content[0].is_error}`;
EOF
npx esbuild browser_example.mjs --bundle --platform=browser --format=esm --log-level=warning --outfile=../bundle-web/app.js
cp node_modules/toolerr/toolerr.wasm ../bundle-web/
printf '<!doctype html><pre id="out">not run</pre><script type="module" src="app.js"></script>\n' >../bundle-web/index.html
grep -q 'browser_wasi_shim\|WASI' ../bundle-web/app.js && ok "esbuild, browser bundle: includes the WASI shim" || bad "esbuild, browser bundle: no WASI shim inside"
if [ -x /usr/bin/chromium ]; then
  python3 -m http.server --bind 127.0.0.1 --directory ../bundle-web 0 >../http.log 2>&1 &
  http=$!
  port=""
  for _ in $(seq 50); do port=$(grep -oE 'port [0-9]+' ../http.log | grep -oE '[0-9]+' || true); [ -n "$port" ] && break; sleep 0.1; done
  dom=$(timeout 60 /usr/bin/chromium --headless --no-sandbox --disable-gpu --virtual-time-budget=20000 \
    --dump-dom "http://127.0.0.1:$port/index.html" 2>/dev/null || true)
  kill "$http"; wait "$http" 2>/dev/null || true
  check "esbuild, browser bundle in headless Chromium" "RATE_LIMITED true true" \
    "$(grep -oE '<pre id="out">[^<]*' <<<"$dom" | sed 's/<pre id="out">//')"
else
  skip "esbuild, browser bundle in headless Chromium" "/usr/bin/chromium is missing (scripts/test-node.sh installs it)"
fi
cd "$tmp"

# ---- Rust: the crate, as the README adds it.
mkdir -p rust && cd rust
cargo new -q --vcs none app && cd app
cp ../../artifacts/toolerr-"$version".crate .
eval "$(line 'tar xzf')" 2>/dev/null && ok "crate: $(line 'tar xzf')" || bad "crate: $(line 'tar xzf')"
cp ../../examples/readme_example.rs src/main.rs
got=$(cargo run --locked 2>build.log) || true
check "crate (bundled libtoolerr.a): README example" "$readme_out" "$got"
if grep -q "warning: toolerr@$version: toolerr: linking $tmp/.*/native/.*/libtoolerr.a from the bundled static library" build.log; then
  ok "crate: build.rs says it linked the bundled static library"
else
  bad "crate: build.rs did not say it linked the bundled library"; tail -20 build.log >&2
fi
inside "crate: the toolerr package cargo built" \
  "$(cargo metadata --format-version 1 --locked | python3 -c 'import json,sys; print(next(p["manifest_path"] for p in json.load(sys.stdin)["packages"] if p["name"]=="toolerr"))')"
got=$(TOOLERR_BUILD_FROM_SOURCE=1 cargo run --locked 2>build.log) || true
check "crate (built from the bundled Go source): README example" "$readme_out" "$got"
if grep -q "warning: toolerr@$version: toolerr: linking $tmp/.*/out/libtoolerr.a from the Go source, built with go version go" build.log; then
  ok "crate: build.rs says it built libtoolerr.a from the Go source"
else
  bad "crate: build.rs did not say it built from the Go source"; tail -20 build.log >&2
fi
# The runtime example, in the project's examples/ with minreq (as the README says).
mkdir -p examples && cp ../../examples/runtime_example.rs examples/
cargo add -q minreq@2 && ok "crate: cargo add minreq@2" || bad "crate: cargo add minreq@2"
got=$(cargo run -q --example runtime_example -- "$search_url" 2>build.log) || tail -20 build.log >&2
check "crate: runtime example" "$(runtime_out true)" "$(digits_ms "$got")"
cd "$tmp"
[ -z "$svc_pid" ] || { kill "$svc_pid"; wait "$svc_pid" 2>/dev/null; svc_pid=""; }

# ---- Redis: the README's Redis breaker examples, each in its language's
# project above after the README's line that adds the client, against one
# redis-server on a free loopback port.
redis_bin=$(command -v redis-server || true)
if [ -z "$redis_bin" ]; then
  for n in "wheel[redis]" "npm + ioredis" "crate, feature redis"; do
    if [ "${CI:-}" = "true" ]; then
      bad "$n: README Redis example: redis-server not found under CI=true (scripts/setup-redis.sh installs it)"
    else
      skip "$n: README Redis example" "redis-server not found: scripts/setup-redis.sh installs it (apt-get install -y redis-server)"
    fi
  done
else
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  mkdir -p redis
  "$redis_bin" --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp/redis" >redis/server.log 2>&1 &
  redis_pid=$!
  up=""
  for _ in $(seq 200); do
    up=$( (exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'PING\r\n' >&3 && head -c 5 <&3) 2>/dev/null || true)
    [ "$up" = "+PONG" ] && break; sleep 0.05
  done
  [ "$up" = "+PONG" ] || bad "redis-server on 127.0.0.1:$port did not answer PING ($(tail -3 redis/server.log))"
  redis_url="redis://127.0.0.1:$port/0"

  cd py/wheel
  (PATH="$PWD/venv/bin:$PATH"; export PATH; eval "$(redis_line pip) --disable-pip-version-check -q") &&
    ok "wheel: $(redis_line pip)" || bad "wheel: $(redis_line pip)"
  cp ../../examples/redis_example.py .
  check "wheel[redis]: README Redis example" "$redis_out" "$(venv/bin/python redis_example.py "$redis_url" 2>&1)"
  cd "$tmp/node/app"
  eval "$(redis_line npm) --no-audit --no-fund --loglevel=error" >/dev/null && ok "npm: $(redis_line npm)" || bad "npm: $(redis_line npm)"
  cp ../../examples/redis_example.mjs .
  check "npm + ioredis: README Redis example" "$redis_out" "$(node --no-warnings redis_example.mjs "$redis_url" 2>&1)"
  cd "$tmp/rust/app"
  eval "$(redis_line cargo) -q" && ok "crate: $(redis_line cargo)" || bad "crate: $(redis_line cargo)"
  cp ../../examples/redis_example.rs examples/
  got=$(cargo run -q --example redis_example -- "$redis_url" 2>build.log) || tail -20 build.log >&2
  check "crate, feature redis: README Redis example" "$redis_out" "$got"
  cd "$tmp"
  kill "$redis_pid"; wait "$redis_pid" 2>/dev/null; redis_pid=""
fi

{ echo '<testsuite name="packages">'; cat "$tmp/cases.xml"; echo '</testsuite>'; } >"$tmp/report.xml"
echo "test-packages: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
