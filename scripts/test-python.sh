#!/usr/bin/env bash
# test-python DIST: the Python binding. Copies DIST/libtoolerr.so into the
# package, installs it (pip install ./bindings/python) into a venv at
# bindings/python/.venv with pytest and mypy, runs mypy --strict on the package
# and its README example, then pytest (smoke, API, conformance fixtures,
# threads, fork, memory, bad input, README example). Idempotent.
# TOOLERR_EMIT_OUTPUTS=path makes the fixture runner write its outputs there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dist_arg=${1:-dist}
dist=$(cd "$root" && cd "$dist_arg" 2>/dev/null && pwd) || {
  echo "test-python: no dist directory at '$dist_arg'; run 'make build' first" >&2; exit 1; }
[ -f "$dist/libtoolerr.so" ] || { echo "test-python: $dist/libtoolerr.so is missing; run 'make build' first" >&2; exit 1; }

py="$root/bindings/python"
cp "$dist/libtoolerr.so" "$py/toolerr/libtoolerr.so"
[ -x "$py/.venv/bin/python" ] || python3 -m venv "$py/.venv"
pip=("$py/.venv/bin/python" -m pip --disable-pip-version-check -q)
"${pip[@]}" install "pytest>=8,<9" "mypy>=1.10,<2"
"${pip[@]}" install --force-reinstall --no-deps "$py"
rm -rf "$py/build"
cd "$py"
echo "test-python: testing $(cd /tmp && "$py/.venv/bin/python" -c 'import toolerr; print(toolerr.__file__)')"
"$py/.venv/bin/mypy" --strict --no-error-summary toolerr examples/readme_example.py examples/runtime_example.py
echo "test-python: mypy --strict clean"
"$py/.venv/bin/pytest" -q -rs -p no:cacheprovider --junitxml="$root/build/pytest.xml" tests
bash "$root/scripts/testreport.sh" junit python "$root/build/pytest.xml"
