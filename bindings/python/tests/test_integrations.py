"""Without its framework, an integration says which extra to install (the
base package depends on no framework; tests_frameworks/ runs them on theirs)."""

import importlib
import importlib.util
import subprocess
import sys

import pytest


@pytest.mark.parametrize("module,framework,extra", [("openai_agents", "agents", "openai-agents"),
                                                    ("langgraph", "langchain_core", "langgraph"),
                                                    ("pydantic_ai", "pydantic_ai", "pydantic-ai"),
                                                    ("mcp", "mcp", "mcp")])
def test_integration_without_its_framework_names_the_extra(module: str, framework: str, extra: str) -> None:
    if importlib.util.find_spec(framework) is not None:
        pytest.skip(f"{framework} is installed here; tests_frameworks/ tests the integration on it")
    with pytest.raises(ImportError) as e:
        importlib.import_module(f"toolerr.integrations.{module}")
    # the wheel's extra, never a bare 'toolerr[extra]' that would ask PyPI for a package of that name
    assert f"pip install './toolerr-<version>-py3-none-<platform>.whl[{extra}]'" in str(e.value)
    assert f"'toolerr[{extra}]'" not in str(e.value)


def test_import_toolerr_imports_no_integration() -> None:
    probe = "import sys, toolerr, toolerr.runtime, toolerr.integrations; print([m for m in sys.modules if m.startswith('toolerr.integrations.')])"
    out = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
