"""toolerr inside pydantic-ai (the wheel's ``pydantic-ai`` extra).

Two hooks, used together or apart::

    from toolerr.integrations.pydantic_ai import ToolErrors, tool

    agent = Agent(model, tools=[tool(search, executor=AsyncExecutor())], capabilities=[ToolErrors()])

``tool`` wraps one tool function; ``ToolErrors`` is a capability that does
the same for every tool of the agent and also answers pydantic-ai's own
argument-validation failures. Either way a failure reaches the model as the
envelope's canonical JSON, through the exception pydantic-ai turns into a
failed tool result:

- ``INVALID_ARGS`` raises ``ModelRetry``: the model must correct its call,
  exactly what pydantic-ai asks after its own argument validation fails. The
  tool result's outcome is ``retried``, pydantic-ai appends its "Fix the
  errors and try again." and the call counts against the tool's
  ``retries`` (default 1; past it the run ends with UnexpectedModelBehavior),
  the same bound pydantic-ai puts on schema failures.
- every other code raises ``ToolFailed``: the outcome is ``failed``, the
  text is the envelope alone, and no retry budget is spent. A retryable
  failure is retried by the toolerr runtime when an executor is given (the
  model sees only what it could not fix); what is left is the model's to
  read, so it is not dressed as a request to repeat the call.

Before toolerr, an exception raised in a tool ends the run (pydantic-ai
re-raises it out of ``Agent.run``), and the call is never answered.

See https://ai.pydantic.dev/tools-advanced/ (ModelRetry, ToolFailed) and
pydantic_ai.capabilities.AbstractCapability (on_tool_validate_error,
on_tool_execute_error).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, TypeVar

from .. import Envelope
from ._common import AnyExecutor, args_envelope, envelope_of, envelope_text, guard, require

_exc = require("pydantic_ai.exceptions", "pydantic-ai")
_caps = require("pydantic_ai.capabilities", "pydantic-ai")

__all__ = ["ToolErrors", "model_error", "tool"]

F = TypeVar("F", bound=Callable[..., Any])


def model_error(env: Envelope) -> Exception:
    """Return the pydantic-ai exception that shows env to the model:
    ModelRetry(text) for INVALID_ARGS, ToolFailed(text) for any other code,
    text being the envelope's canonical JSON."""
    text = envelope_text(env)
    return _exc.ModelRetry(text) if env.code == "INVALID_ARGS" else _exc.ToolFailed(text)  # type: ignore[no-any-return]


def tool(func: F, *, executor: Optional[AnyExecutor] = None, name: Optional[str] = None) -> F:
    """Return func wrapped for pydantic-ai: a failure raises model_error(envelope).

    Register the result as any tool function (``Agent(tools=[...])``,
    ``@agent.tool_plain``, ``Tool(...)``); its signature and docstring are
    func's. executor (a toolerr.runtime AsyncExecutor, or an Executor for a
    sync function) runs each call: retryable failures are retried before the
    model sees anything. A ModelRetry or ToolFailed the function raises itself
    passes through unchanged. name is the tool's name in the envelope
    (default func.__name__).
    """
    return guard(func, name or func.__name__, executor, failure=model_error,
                 passthrough=(_exc.ModelRetry, _exc.ToolFailed))


class ToolErrors(_caps.AbstractCapability):  # type: ignore[misc,name-defined]
    """The pydantic-ai capability that answers every tool's failure with its envelope.

    ``Agent(model, capabilities=[ToolErrors()])``: an exception raised by any
    tool becomes model_error(envelope) (on_tool_execute_error), and
    arguments that fail a tool's schema become an INVALID_ARGS ModelRetry
    naming each field (on_tool_validate_error) instead of pydantic's own
    error list. A ModelRetry or ToolFailed a tool raises passes through. For
    retries by the runtime, wrap the tool with ``tool(fn, executor=...)``.
    """

    async def on_tool_validate_error(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, error: Any) -> Any:
        """Raise INVALID_ARGS as a ModelRetry for a schema failure; re-raise anything else."""
        env = args_envelope(error, call.tool_name) if not isinstance(error, _exc.ModelRetry) else None
        if env is None:
            raise error
        raise model_error(env) from error

    async def on_tool_execute_error(self, ctx: Any, *, call: Any, tool_def: Any, args: Any, error: Exception) -> Any:
        """Raise model_error of the tool's failure; re-raise a ModelRetry or ToolFailed."""
        if isinstance(error, (_exc.ModelRetry, _exc.ToolFailed)):
            raise error
        raise model_error(envelope_of(error, call.tool_name)) from error
