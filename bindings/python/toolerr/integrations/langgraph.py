"""toolerr inside LangGraph and LangChain (the wheel's ``langgraph`` extra).

Two hooks, used together or apart::

    from toolerr.integrations.langgraph import handle_tool_errors, tool

    search = tool(search_fn, executor=Executor())       # a LangChain tool that fails with the envelope
    ToolNode(tools, handle_tool_errors=handle_tool_errors)  # any tool's exception becomes the envelope

Either way a failed call becomes a ``ToolMessage`` with ``status="error"``
and the envelope's canonical JSON as its content. What the chat-model
integrations make of it (measured in tests_frameworks/test_langgraph.py):
langchain-anthropic sends a ``tool_result`` with ``is_error: true`` and the
envelope as its text; langchain-openai sends the envelope as the tool
message's ``content`` (OpenAI has no error flag); langchain-google-genai
ignores ``status`` and, because the content is a JSON object, sends the
envelope itself as ``functionResponse.response``: the five fields arrive,
but not under Google's ``error`` key.

See https://langchain-ai.github.io/langgraph/reference/agents/#langgraph.prebuilt.tool_node.ToolNode
and langchain_core.tools.BaseTool (handle_tool_error, handle_validation_error).
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Optional

from .. import Envelope
from ._common import AnyExecutor, args_envelope, envelope_of, envelope_text, guard, pydantic_failures, invalid_args, \
    require

_tools = require("langchain_core.tools", "langgraph")

__all__ = ["handle_tool_errors", "tool"]


def handle_tool_errors(e: Exception) -> str:
    """Return the ToolMessage content for a tool's exception: the envelope's JSON.

    Pass it as ``ToolNode(tools, handle_tool_errors=handle_tool_errors)``;
    ToolNode then answers every failed call with a ``ToolMessage`` whose
    ``status`` is ``"error"`` and whose content this returns, instead of
    raising the exception out of the graph (its default for anything but
    invalid arguments) and leaving the call unanswered. Arguments that fail
    the tool's schema (ToolNode's ToolInvocationError) become INVALID_ARGS
    naming each field; an HTTP error is classified from its response; a
    ToolFailure keeps its envelope; any other exception becomes TOOL_ERROR
    (its type named, never its text or trace). ToolNode passes the
    exception alone, so an exception from a tool that is not toolerr's
    ``tool`` carries no tool name.

    See langgraph.prebuilt.ToolNode (handle_tool_errors).
    """
    if type(e).__name__ == "ToolInvocationError" and hasattr(e, "tool_name"):
        failures = pydantic_failures(getattr(e, "filtered_errors", None) or [])
        env: Optional[Envelope] = invalid_args(failures, e.tool_name) if failures else \
            args_envelope(getattr(e, "source", None), e.tool_name)
        if env is not None:
            return envelope_text(env)
    return envelope_text(envelope_of(e, None))


class _Failed(_tools.ToolException):  # type: ignore[misc,name-defined]
    """The ToolException a toolerr tool raises: BaseTool answers it with
    handle_tool_error, which reads the envelope back."""

    def __init__(self, envelope: Envelope) -> None:
        super().__init__(f"{envelope.code}: {envelope.message}")
        self.envelope = envelope


def tool(func: Any, *, executor: Optional[AnyExecutor] = None, name: Optional[str] = None,
         description: Optional[str] = None, **options: Any) -> Any:
    """Return a LangChain StructuredTool for func whose failures are envelopes.

    func is a function (sync or async; its signature and docstring give the
    schema, as with langchain_core.tools.tool) or a StructuredTool made by
    @tool, whose function, schema, name and description are kept. Invoked
    with a tool call (as ToolNode and create_agent do), a failure returns a
    ``ToolMessage`` with ``status="error"`` and the envelope as content,
    under any ToolNode setting: an exception through toolerr's
    classification (handle_tool_error), arguments that fail the schema as
    INVALID_ARGS naming each field (handle_validation_error). executor (a
    toolerr.runtime Executor, or an AsyncExecutor) runs each call: retryable
    failures are retried before the model sees anything. options go to
    StructuredTool.from_function (return_direct, response_format, ...).
    """
    if isinstance(func, _tools.StructuredTool):
        name = name or func.name
        description = description or func.description
        options.setdefault("args_schema", func.args_schema)
        fn: Callable[..., Any] = func.coroutine or func.func
    else:
        fn = func
    tool_name = name or fn.__name__
    guarded = guard(fn, tool_name, executor, failure=_Failed)
    is_async = inspect.iscoroutinefunction(guarded)
    return _tools.StructuredTool.from_function(
        func=None if is_async else guarded, coroutine=guarded if is_async else None, name=tool_name,
        description=description, handle_tool_error=lambda e: envelope_text(envelope_of(e, tool_name)),
        handle_validation_error=lambda e: envelope_text(args_envelope(e, tool_name) or envelope_of(e, tool_name)),
        **options)
