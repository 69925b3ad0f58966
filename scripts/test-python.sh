#!/usr/bin/env bash
# test-python DIST: the Python binding, as a user installs it: the wheel that
# `make packages` built (DIST/packages/toolerr-V-py3-none-*.whl, checked to
# be newer than DIST/libtoolerr.so) installed into a venv at
# bindings/python/.venv with pytest and mypy; then mypy --strict on the
# package and its README example, then pytest (smoke, API, conformance
# fixtures, threads, fork, memory, bad input, README example) against the
# installed wheel. Idempotent.
# TOOLERR_EMIT_OUTPUTS=path makes the fixture runner write its outputs there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist_arg=${1:-dist}
dist=$(cd "$root" && cd "$dist_arg" 2>/dev/null && pwd) || {
  echo "test-python: no dist directory at '$dist_arg'; run 'make build' first" >&2; exit 1; }
[ -f "$dist/libtoolerr.so" ] || { echo "test-python: $dist/libtoolerr.so is missing; run 'make build' first" >&2; exit 1; }

version=$(tr -d '[:space:]' <"$root/VERSION")
whl=$(ls "$dist"/packages/toolerr-"$version"-py3-none-*.whl 2>/dev/null | head -1)
[ -n "$whl" ] || { echo "test-python: no toolerr $version wheel in $dist/packages; run 'make packages' first" >&2; exit 1; }
[ "$whl" -nt "$dist/libtoolerr.so" ] || {
  echo "test-python: $whl is older than $dist/libtoolerr.so (stale); run 'make packages'" >&2; exit 1; }

py="$root/bindings/python"
[ -x "$py/.venv/bin/python" ] || python3 -m venv "$py/.venv"
pip=("$py/.venv/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install "pytest>=8,<9" "mypy>=1.10,<2" "redis>=5,<9" "orjson>=3.9,<4"  # redis: the [redis] extra, for tests/test_redis_store.py; orjson: the dependency (--no-deps below)
"${pip[@]}" install --force-reinstall --no-deps "$whl"
cd "$py"
echo "test-python: testing $(basename "$whl"), installed at $(cd /tmp && "$py/.venv/bin/python" -I -c 'import toolerr; print(toolerr.__file__)')"
"$py/.venv/bin/mypy" --strict --no-error-summary toolerr examples/readme_example.py examples/runtime_example.py examples/runtime_async_example.py examples/body_example.py examples/redis_example.py
echo "test-python: mypy --strict clean"
"$py/.venv/bin/pytest" -q -rs -p no:cacheprovider --junitxml="$root/build/pytest.xml" tests
bash "$root/scripts/testreport.sh" junit python "$root/build/pytest.xml"
