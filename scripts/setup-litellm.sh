#!/usr/bin/env bash
# setup-litellm: the LiteLLM proxy (litellm[proxy] from PyPI, version
# LITELLM_VERSION, default 1.108.7) in build/litellm-venv, installed once and
# again only when the version differs. Used by the optional targets
# gateway-check-litellm and bench-litellm, never by make test.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${LITELLM_VERSION:-1.108.7}
venv=build/litellm-venv
if ! "$venv/bin/python3" -c "import litellm, sys; from importlib.metadata import version as v; sys.exit(v('litellm') != '$version')" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --disable-pip-version-check -q "litellm[proxy]==$version"
fi
