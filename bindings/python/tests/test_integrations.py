"""Without its framework, an integration says which extra to install, and so does
the Redis store without redis (the base package depends on neither;
tests_frameworks/ runs the integrations on their frameworks)."""

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


@pytest.mark.parametrize("store", ["RedisStore", "AsyncRedisStore"])
def test_redis_store_without_redis_names_the_extra(store: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Redis store imports redis in from_url; without it, the wheel's redis extra is named."""
    from toolerr import redis_store

    for name in ("redis", "redis.asyncio"):  # None in sys.modules: the import fails, as with redis not installed
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError) as e:
        getattr(redis_store, store).from_url("redis://127.0.0.1:1/0")
    assert str(e.value).startswith(f"toolerr: {store} needs 'redis")
    assert "pip install './toolerr-<version>-py3-none-<platform>.whl[redis]'" in str(e.value)
