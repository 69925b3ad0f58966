"""toolerr inside MCP servers built with the MCP Python SDK (``pip install 'toolerr[mcp]'``).

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

The envelope is not put in ``structuredContent``: that member must conform
to the tool's ``outputSchema`` when one is declared (MCP schema 2026-07-28,
CallToolResult.structuredContent; MCPServer declares one for every tool
with a return annotation), and clients that validate it on error results
(@modelcontextprotocol/sdk 1.x, modelcontextprotocol/typescript-sdk#2748)
would raise instead of showing the model the failure. docs/frameworks.md
gives the whole reasoning.

See https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable, Optional, TypeVar, Union, overload

from .. import Envelope, Outcome, serialize
from ._common import AnyExecutor, guard, require
from ..runtime import ToolFailure

_types = require("mcp.types", "mcp")

__all__ = ["call_tool_result", "tool_errors"]

F = TypeVar("F", bound=Callable[..., Any])


def call_tool_result(env: Envelope) -> Any:
    """Return the mcp.types.CallToolResult of a failure: the core's mcp
    serialization of env (isError, the envelope as text)."""
    [result] = serialize("mcp", [Outcome(error=env)])
    return _types.CallToolResult.model_validate(result)


@overload
def tool_errors(func: F, *, executor: Optional[AnyExecutor] = None, name: Optional[str] = None) -> F: ...


@overload
def tool_errors(*, executor: Optional[AnyExecutor] = None, name: Optional[str] = None) -> Callable[[F], F]: ...


def tool_errors(func: Optional[F] = None, *, executor: Optional[AnyExecutor] = None,
                name: Optional[str] = None) -> Union[F, Callable[[F], F]]:
    """Wrap a tool function so that a failure returns its CallToolResult (a decorator, with or without arguments).

    Put it under the server's tool decorator: the wrapper keeps func's
    signature, docstring and annotations, so the server derives the same
    input and output schemas; on success it returns func's value, on
    failure call_tool_result(envelope), which the server passes through
    unchanged (MCPServer validates only successful results against the
    output schema). executor (a toolerr.runtime AsyncExecutor, or an
    Executor for a sync function) runs each call: retryable failures are
    retried before the client sees anything. name is the tool's name in the
    envelope (default func.__name__; give the server's when you rename it).
    """
    def wrap(f: F) -> F:
        guarded = guard(f, name or f.__name__, executor)
        if inspect.iscoroutinefunction(guarded):
            @functools.wraps(f)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                try:
                    return await guarded(*args, **kwargs)
                except ToolFailure as e:
                    return call_tool_result(e.envelope)
            return run_async  # type: ignore[return-value]

        @functools.wraps(f)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return guarded(*args, **kwargs)
            except ToolFailure as e:
                return call_tool_result(e.envelope)
        return run  # type: ignore[return-value]

    return wrap(func) if func is not None else wrap
