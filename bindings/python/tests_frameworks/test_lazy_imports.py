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


@pytest.mark.parametrize("module,own", [("openai_agents", "agents"), ("langgraph", "langchain_core"),
                                        ("pydantic_ai", "pydantic_ai"), ("mcp", "mcp")])
def test_each_integration_loads_its_framework_and_no_other_integration(module: str, own: str) -> None:
    probe = (f"import sys, toolerr.integrations.{module}\n"
             "print(sorted(m for m in sys.modules if m.startswith('toolerr.integrations.')))")
    out = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(sorted(["toolerr.integrations._common", f"toolerr.integrations.{module}"]))
    assert own in loaded_after(f"import toolerr.integrations.{module}")
