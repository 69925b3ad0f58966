"""toolerr inside MCP servers built with the MCP Python SDK (the wheel's ``mcp`` extra).

A decorator under the server's own::

    from toolerr.integrations.mcp import tool_errors

    @server.tool()                              # mcp.server.mcpserver.MCPServer (FastMCP in mcp 1.x)
    @tool_errors(executor=AsyncExecutor())      # retries by the runtime, then the envelope
    async def search(q: str, max_results: int) -> str: ...

A failing call then returns the ``CallToolResult`` the core's ``mcp`` format
writes: ``isError: true`` and one text block holding the envelope's
canonical JSON, never a JSON-RPC error (the MCP schema's CallToolResult.isError:
errors that originate from the tool are reported inside the result so the
model can see them and self-correct). The SDK's own answer to an exception
is ``isError: true`` with "Error executing tool search" (the exception's
text kept on the server) or, for a ToolError, its message.

The envelope is also the result's ``structuredContent`` when the tool
declares no ``outputSchema``. When it declares one (MCPServer does for every
tool with a return annotation, unless ``structured_output=False``) the
envelope stays in the text block alone: ``structuredContent`` must conform
to the declared schema (MCP schema 2026-07-28,
CallToolResult.structuredContent), which the envelope does not, and clients
that validate it on error results (@modelcontextprotocol/sdk 1.x,
modelcontextprotocol/typescript-sdk#2748) would raise instead of showing the
model the failure. The decision is the core's (the serialize op's
``output_schema``); this module only tells it what the server declares,
derived with the SDK's own ``func_metadata``. docs/frameworks.md gives the
whole reasoning.

See https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
"""

from __future__ import annotations

import functools
import importlib
import inspect
from typing import Any, Callable, Optional, TypeVar, Union, overload

from .. import Envelope, invoke
from ._common import AnyExecutor, guard, require
from ..runtime import ToolFailure

_types = require("mcp.types", "mcp")

__all__ = ["call_tool_result", "declares_output_schema", "tool_errors"]

F = TypeVar("F", bound=Callable[..., Any])


def call_tool_result(env: Envelope, *, output_schema: bool = True) -> Any:
    """Return the mcp.types.CallToolResult of a failure: the core's mcp
    serialization of env (isError, the envelope as text, and as
    structuredContent when output_schema is False: the tool declares none).
    output_schema says whether the tool declares an outputSchema; the
    default, True, is right for a tool nothing is known of."""
    [result] = invoke({"op": "serialize", "format": "mcp", "output_schema": output_schema,
                       "call": {}, "error": env.to_dict()})
    return _types.CallToolResult.model_validate(result)


def declares_output_schema(func: Callable[..., Any], structured_output: Optional[bool] = None) -> bool:
    """Report whether MCPServer's tool decorator declares an outputSchema for
    func given the same structured_output (None: derived from the return
    annotation, as ``server.tool()`` does by default). It asks the SDK's own
    derivation (mcp.server.mcpserver.utilities.func_metadata); a function
    it cannot read counts as declaring one, so that nothing is put in
    structuredContent that a schema could reject."""
    try:
        meta = importlib.import_module("mcp.server.mcpserver.utilities.func_metadata")
        ctx = importlib.import_module("mcp.server.mcpserver.utilities.context_injection")
        skip = [name for name in [ctx.find_context_parameter(func)] if name is not None]
        return meta.func_metadata(func, skip_names=skip, structured_output=structured_output).output_schema is not None
    except Exception:
        return True


@overload
def tool_errors(func: F, *, executor: Optional[AnyExecutor] = None, name: Optional[str] = None,
                structured_output: Optional[bool] = None) -> F: ...


@overload
def tool_errors(*, executor: Optional[AnyExecutor] = None, name: Optional[str] = None,
                structured_output: Optional[bool] = None) -> Callable[[F], F]: ...


def tool_errors(func: Optional[F] = None, *, executor: Optional[AnyExecutor] = None,
                name: Optional[str] = None, structured_output: Optional[bool] = None) -> Union[F, Callable[[F], F]]:
    """Wrap a tool function so that a failure returns its CallToolResult (a decorator, with or without arguments).

    Put it under the server's tool decorator: the wrapper keeps func's
    signature, docstring and annotations, so the server derives the same
    input and output schemas; on success it returns func's value, on
    failure call_tool_result(envelope), which the server passes through
    unchanged (MCPServer validates only successful results against the
    output schema). The envelope is the structuredContent too when the
    server declares no outputSchema for func (declares_output_schema);
    structured_output is the value given to ``server.tool()``, if any.
    executor (a toolerr.runtime AsyncExecutor, or an Executor for a sync
    function) runs each call: retryable failures are retried before the
    client sees anything. name is the tool's name in the envelope (default
    func.__name__; give the server's when you rename it).
    """
    def wrap(f: F) -> F:
        guarded = guard(f, name or f.__name__, executor)
        declared = declares_output_schema(f, structured_output)
        if inspect.iscoroutinefunction(guarded):
            @functools.wraps(f)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await guarded(*args, **kwargs)
                except ToolFailure as e:
                    return call_tool_result(e.envelope, output_schema=declared)
            return run_async  # type: ignore[return-value]

        @functools.wraps(f)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return guarded(*args, **kwargs)
            except ToolFailure as e:
                return call_tool_result(e.envelope, output_schema=declared)
        return run  # type: ignore[return-value]

    return wrap(func) if func is not None else wrap
