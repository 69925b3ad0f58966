"""toolerr inside the OpenAI Agents SDK (the wheel's ``openai-agents`` extra).

Two hooks, used together or apart::

    from toolerr.integrations.openai_agents import failure_error_function, function_tool

    @function_tool(executor=AsyncExecutor())   # toolerr's failure function, retries by the runtime
    async def search(q: str, max_results: int) -> str: ...

    agents.function_tool(fn, failure_error_function=failure_error_function)  # the function alone

``failure_error_function`` is the SDK's ``ToolErrorFunction``: the SDK calls it
with the exception a function tool raised and sends the string it returns to
the model as the tool's output (the Responses ``function_call_output.output``
or the Chat Completions tool message ``content``). It returns the envelope's
canonical JSON instead of the SDK's default "An error occurred while running
the tool. Please try again." (``agents.tool.default_tool_error_function``),
which tells the model to repeat a call that can never succeed.

See https://openai.github.io/openai-agents-python/tools/#handling-errors-in-function-tools
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, TypeVar, Union, overload

from ._common import AnyExecutor, args_failures, envelope_of, envelope_text, guard, invalid_args, require

_agents = require("agents", "openai-agents")

__all__ = ["failure_error_function", "function_tool"]

F = TypeVar("F", bound=Callable[..., Any])


def failure_error_function(ctx: Any, error: Exception) -> str:
    """Return the text the model reads for a failed function tool: the envelope's JSON.

    ctx is the SDK's RunContextWrapper (a ToolContext during a tool call; its
    tool_name names the tool in the envelope); error is what the tool raised:
    an HTTP error (httpx, requests, urllib, an SDK's APIStatusError) is
    classified from its status, headers and body, a ToolFailure keeps its
    envelope, the SDK's ModelBehaviorError for arguments that are not JSON or
    fail the tool's schema becomes INVALID_ARGS (naming each field when the
    SDK keeps pydantic's error as the cause, with OPENAI_AGENTS_DONT_LOG_TOOL_DATA=0;
    by default it drops it, and the envelope names the arguments as a whole), and any
    other exception becomes TOOL_ERROR (or TIMEOUT and TRANSPORT for
    well-known transient types), never its raw text.

    See agents.tool.ToolErrorFunction.
    """
    tool = getattr(ctx, "tool_name", None)
    if isinstance(error, _agents.ModelBehaviorError):  # the arguments are not JSON or fail the tool's schema
        return envelope_text(invalid_args(args_failures(error) or [_WHOLE_ARGUMENTS], tool))
    return envelope_text(envelope_of(error, tool))


# The failure of arguments that broke the tool's schema when the SDK keeps
# pydantic's error to itself (its default, agents._debug.DONT_LOG_TOOL_DATA).
_WHOLE_ARGUMENTS: Dict[str, Any] = {"path": "", "keyword": "schema"}


@overload
def function_tool(func: F, *, executor: Optional[AnyExecutor] = None, **options: Any) -> Any: ...


@overload
def function_tool(*, executor: Optional[AnyExecutor] = None, **options: Any) -> Callable[[F], Any]: ...


def function_tool(func: Optional[F] = None, *, executor: Optional[AnyExecutor] = None,
                  **options: Any) -> Union[Any, Callable[[F], Any]]:
    """agents.function_tool with toolerr's failure_error_function, as a decorator with or without arguments.

    executor (a toolerr.runtime AsyncExecutor, or an Executor for a sync
    function) runs every call of the tool: retryable failures (a 503, a
    timeout, a reset connection) are retried with full jitter before the model
    sees anything, the breaker and the run's budget and loop guard apply, and
    only the final failure reaches failure_error_function. Without one, each
    failure goes to the model at once, as its envelope. options are
    agents.function_tool's (name_override, timeout, strict_mode, ...); a
    failure_error_function among them replaces toolerr's.

    Returns an agents.FunctionTool (or a decorator making one).
    """
    options.setdefault("failure_error_function", failure_error_function)

    def make(f: F) -> Any:
        name = options.get("name_override") or f.__name__
        return _agents.function_tool(guard(f, name, executor), **options)

    return make(func) if func is not None else make
