"""toolerr.integrations.mcp on the MCP Python SDK's own server (MCPServer)
and client, connected in memory, against seed 000's search service; the
results are checked against the MCP schemas in ../shared/specs."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any, Dict, List

import jsonschema
import pytest
from loopback import Loopback, run_example, search_tool
from mcp.client import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import TextContent

import toolerr
from toolerr.integrations.mcp import declares_output_schema, tool_errors
from toolerr.runtime import AsyncExecutor, Executor

FIVE = ["code", "details", "message", "retryable", "source"]
SPECS = Path(os.environ.get("TOOLERR_SHARED") or Path(__file__).resolve().parents[4] / "shared") / "specs"


def executor() -> AsyncExecutor:
    return AsyncExecutor(retry={"max_attempts": 3, "base_ms": 1, "cap_ms": 2}, draw=lambda: 0.5)


def server(fn: Any, **options: Any) -> MCPServer:
    s = MCPServer("travel")
    s.tool(**options)(fn)
    return s


def listed(s: MCPServer) -> Any:
    """The tool as the client lists it (tools/list)."""
    async def go() -> Any:
        async with Client(s) as c:
            return (await c.list_tools()).tools[0]
    return asyncio.run(go())


def unannotated(fn: Any) -> Any:
    """fn without its return annotation: MCPServer then declares no outputSchema."""
    async def search(q: str, max_results: int):  # type: ignore[no-untyped-def]
        return await fn(q, max_results)
    search.__doc__ = fn.__doc__
    return search


def validate_both(results: List[Dict[str, Any]]) -> None:
    """Check every result against CallToolResult of both MCP schemas in ../shared/specs."""
    if not SPECS.is_dir():
        pytest.skip(f"the MCP schemas are read from {SPECS} (../shared/specs, or $TOOLERR_SHARED/specs), not found")
    for version in ("2025-11-25", "2026-07-28"):
        schema = json.loads((SPECS / f"mcp-schema-{version}.json").read_text())
        defs = schema.get("$defs") or schema["definitions"]
        for r in results:
            jsonschema.validate(r, {"$ref": "#/$defs/CallToolResult", "$defs": defs})


def call(s: MCPServer, times: int = 1) -> List[Dict[str, Any]]:
    """Call search `times` times through an in-memory client; the results as JSON (camelCase, as sent).
    A JSON-RPC error would raise MCPError here: every failure must come back as a result."""
    async def go() -> List[Dict[str, Any]]:
        async with Client(s) as c:
            out = []
            for _ in range(times):
                r = await c.call_tool("search", {"q": "flights", "max_results": 500})
                out.append(r.model_dump(mode="json", by_alias=True, exclude_none=True))
            return out
    return asyncio.run(go())


def test_sdk_default_hides_the_failure_behind_one_sentence(loopback: Loopback) -> None:
    # Before toolerr: MCPServer answers an unexpected exception with isError and a fixed text.
    results = call(server(search_tool(loopback)), times=3)
    assert [r["isError"] for r in results] == [True, True, True]
    assert [r["content"] for r in results] == [[{"type": "text", "text": "Error executing tool search"}]] * 3
    assert all("structuredContent" not in r for r in results)  # 503 and 400 read alike


def test_failures_become_is_error_results_carrying_the_envelope(loopback: Loopback) -> None:
    s = server(tool_errors(search_tool(loopback)))
    assert listed(s).output_schema is not None  # "-> str": MCPServer declares {"result": string}
    results = call(s, times=3)
    assert [r["isError"] for r in results] == [True, True, True]
    assert all("structuredContent" not in r for r in results)  # the declared schema would reject the envelope
    texts = [r["content"][0]["text"] for r in results]
    envs = [json.loads(t) for t in texts]
    assert [(e["code"], e["retryable"]) for e in envs] == [("TRANSPORT", True), ("TRANSPORT", True),
                                                          ("INVALID_ARGS", False)]
    assert all(sorted(e) == FIVE and e["details"]["tool"] == "search" for e in envs)
    # Exactly the core's mcp serialization (beside the _meta the SDK adds: its server's name).
    assert all({k: v for k, v in r.items() if k != "_meta"} ==
               toolerr.invoke({"op": "serialize", "format": "mcp", "output_schema": True, "call": {}, "error": e})[0]
               for r, e in zip(results, envs))
    [back] = toolerr.parse("mcp", [results[2]])
    assert back.error is not None and back.error.code == "INVALID_ARGS"


def test_executor_retries_the_503s_before_the_client_sees_anything(loopback: Loopback) -> None:
    [result] = call(server(tool_errors(search_tool(loopback), executor=executor())))
    assert len(loopback.searches()) == 3
    env = json.loads(result["content"][0]["text"])
    assert result["isError"] is True and env["code"] == "INVALID_ARGS" and env["details"]["status"] == 400


def test_a_sync_tool_runs_under_an_executor_too(loopback: Loopback) -> None:
    ex = Executor(retry={"max_attempts": 3, "base_ms": 1, "cap_ms": 2}, draw=lambda: 0.5)
    [result] = call(server(tool_errors(search_tool(loopback, sync=True), executor=ex)))
    assert len(loopback.searches()) == 3 and json.loads(result["content"][0]["text"])["code"] == "INVALID_ARGS"


def test_success_keeps_the_servers_own_result_and_output_schema(loopback: Loopback) -> None:
    loopback.trace = [(200, {})]
    s = server(tool_errors(search_tool(loopback)))
    [result] = call(s)
    assert result.get("isError") is False and result["structuredContent"] == {
        "result": json.dumps({"results": [f"flight {i}" for i in range(500)]})}

    async def schema() -> Any:
        async with Client(s) as c:
            return (await c.list_tools()).tools[0]
    t = asyncio.run(schema())
    assert t.input_schema["required"] == ["q", "max_results"] and t.output_schema is not None


def test_results_validate_against_both_mcp_schemas(loopback: Loopback) -> None:
    validate_both(call(server(tool_errors(search_tool(loopback))), times=3))


def test_a_tool_without_an_output_schema_gets_the_envelope_as_structured_content(loopback: Loopback) -> None:
    s = server(tool_errors(unannotated(search_tool(loopback))))
    assert listed(s).output_schema is None
    results = call(s, times=3)  # the client validates nothing on errors, and raised nothing
    envs = [json.loads(r["content"][0]["text"]) for r in results]
    assert [r["structuredContent"] for r in results] == envs  # the same envelope as the text
    assert [(e["code"], e["retryable"]) for e in envs] == [("TRANSPORT", True), ("TRANSPORT", True),
                                                          ("INVALID_ARGS", False)]
    assert all({k: v for k, v in r.items() if k != "_meta"} ==
               toolerr.invoke({"op": "serialize", "format": "mcp", "output_schema": False, "call": {}, "error": e})[0]
               for r, e in zip(results, envs))
    validate_both(results)
    [back] = toolerr.parse("mcp", [results[2]])
    assert back.error is not None and back.error.to_dict() == envs[2]


def test_structured_output_false_on_the_server_is_told_to_the_wrapper(loopback: Loopback) -> None:
    s = server(tool_errors(search_tool(loopback), structured_output=False), structured_output=False)
    assert listed(s).output_schema is None
    [result] = call(s)
    assert result["isError"] is True and result["structuredContent"]["code"] == "TRANSPORT"
    validate_both([result])


def test_declares_output_schema_follows_mcpservers_own_derivation() -> None:
    async def none(q: str):  # type: ignore[no-untyped-def]
        return q

    async def text(q: str) -> str:
        return q

    async def obj(q: str) -> Dict[str, int]:
        return {}

    async def with_context(q: str, ctx: Context) -> str:  # type: ignore[type-arg]
        return q

    def block(q: str) -> TextContent:
        return TextContent(type="text", text=q)

    cases = [(none, None), (text, None), (text, False), (obj, None), (with_context, None), (block, None)]
    got = [declares_output_schema(fn, so) for fn, so in cases]
    assert got == [listed(server(fn, **({} if so is None else {"structured_output": so}))).output_schema is not None
                   for fn, so in cases]
    assert got == [False, True, False, True, True, False]


def test_example_serves_seed_000s_search_over_mcp(loopback: Loopback) -> None:
    lines = run_example("mcp_example.py", loopback, model_requests=0)
    assert lines[0] == "isError: True"
    env = json.loads(lines[1])
    assert sorted(env) == FIVE and env["code"] == "INVALID_ARGS"
