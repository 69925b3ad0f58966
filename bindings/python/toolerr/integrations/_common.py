"""What every framework integration shares: a failure's envelope, the text the
model reads, and a tool function run under a toolerr.runtime executor.

Nothing here decides: the envelope comes from the core (classify_response,
classify_exception, the envelope op), and retries, breakers and budgets from
the executor's step op.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import json
from types import ModuleType
from typing import Any, Callable, Dict, Optional, TypeVar, Union, cast

from .. import Envelope, canonicalize, envelope
from ..runtime import AsyncExecutor, Executor, ToolFailure, failure_envelope

F = TypeVar("F", bound=Callable[..., Any])
AnyExecutor = Union[Executor, AsyncExecutor]


def require(module: str, extra: str) -> ModuleType:
    """Import a framework module, or raise ImportError naming toolerr's extra for it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"toolerr: this integration needs {module!r}: pip install 'toolerr[{extra}]'") from e


def envelope_of(exc: BaseException, tool: Optional[str]) -> Envelope:
    """Return the envelope of a tool's failure.

    A ToolFailure (or any exception with an .envelope, e.g. one the runtime
    raised) keeps its own; an HTTP error or SDK exception is classified by
    toolerr.classify_response as the tool's failure; any other exception by
    toolerr.classify_exception (type, message and traceback, sanitized).
    """
    return failure_envelope(exc, tool or "")


def envelope_text(env: Envelope) -> str:
    """Return the envelope as the text the model reads: its canonical JSON
    (RFC 8785), after the core's envelope op has sanitized its strings again
    (a hand-built envelope may carry what a model must never read)."""
    clean = envelope(env.code, env.message, retryable=env.retryable, details=env.details, source=env.source)
    return canonicalize(clean.to_dict())


def call_args(args: Any, kwargs: Dict[str, Any]) -> Any:
    """Return a call's arguments as JSON for the loop guard, or None when they
    are not JSON (a context object, a model instance)."""
    value: Any = kwargs if not args else {"args": list(args), **kwargs}
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return None


def guard(func: F, tool: str, executor: Optional[AnyExecutor] = None) -> F:
    """Return func wrapped so that every failure raises ToolFailure(envelope).

    Without an executor the function is called once. With one, each call runs
    under it (executor.call): retryable failures are retried, the breaker,
    budget and loop guard apply, and only the final failure is raised. The
    wrapper keeps func's signature, docstring and annotations (frameworks
    build the tool's schema from them) and its kind: an async function stays
    async; a sync one stays sync under an Executor and becomes async under an
    AsyncExecutor (the call then runs in a worker thread). An async function
    needs an AsyncExecutor (TypeError otherwise).
    """
    if inspect.iscoroutinefunction(func):
        if executor is not None and not isinstance(executor, AsyncExecutor):
            raise TypeError(f"toolerr: {tool} is async: run it under a toolerr.runtime.AsyncExecutor")

        @functools.wraps(func)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            if executor is None:
                try:
                    return await func(*args, **kwargs)
                except Exception as e:
                    raise ToolFailure(envelope_of(e, tool)) from e
            assert isinstance(executor, AsyncExecutor)
            r = await executor.call(tool, lambda: func(*args, **kwargs), args=call_args(args, kwargs))
            if r.error is not None:
                raise ToolFailure(r.error) from r.exception
            return r.value

        return cast(F, run_async)

    if isinstance(executor, AsyncExecutor):
        async_executor = executor

        @functools.wraps(func)
        async def run_thread(*args: Any, **kwargs: Any) -> Any:
            r = await async_executor.call(tool, lambda: asyncio.to_thread(func, *args, **kwargs),
                                          args=call_args(args, kwargs))
            if r.error is not None:
                raise ToolFailure(r.error) from r.exception
            return r.value

        return cast(F, run_thread)

    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        if executor is None:
            try:
                return func(*args, **kwargs)
            except Exception as e:
                raise ToolFailure(envelope_of(e, tool)) from e
        r = executor.call(tool, lambda: func(*args, **kwargs), args=call_args(args, kwargs))
        if r.error is not None:
            raise ToolFailure(r.error) from r.exception
        return r.value

    return cast(F, run)
