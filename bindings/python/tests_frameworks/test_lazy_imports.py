"""`import toolerr` (and toolerr.integrations, toolerr.runtime) loads no
framework, here where every framework is installed; each integration loads
only its own."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import List

import pytest

FRAMEWORKS = ["agents", "langgraph", "langchain_core", "pydantic_ai", "mcp", "openai", "anthropic", "google"]


def loaded_after(code: str) -> List[str]:
    """The framework packages in sys.modules after code runs in a fresh interpreter."""
    probe = f"import json, sys\n{code}\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(FRAMEWORKS)!r})))"
    out = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_import_toolerr_loads_no_framework() -> None:
    assert loaded_after("import toolerr, toolerr.runtime, toolerr.integrations\nimport toolerr.integrations._common") == []


@pytest.mark.parametrize("module,own", [("openai_agents", "agents")])
def test_each_integration_loads_its_own_framework_only(module: str, own: str) -> None:
    loaded = loaded_after(f"import toolerr.integrations.{module}")
    assert own in loaded
    assert not {"agents", "langchain_core", "pydantic_ai", "mcp"} - {own} & set(loaded)
