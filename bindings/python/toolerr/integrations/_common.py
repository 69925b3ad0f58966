"""What every framework integration shares: a failure's envelope, the text the
model reads, and a tool function run under a toolerr.runtime executor.

Nothing here decides: the envelope comes from the core (classify_response,
classify_exception, the envelope op), and retries, breakers and budgets from
the executor's step op.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import re
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Type, TypeVar, Union, cast

from .. import Envelope, _encode, canonicalize, envelope, invoke
from .._extras import require as require  # each integration's framework import (re-exported)
from ..runtime import AsyncExecutor, CallResult, Executor, ToolFailure, failure_envelope

F = TypeVar("F", bound=Callable[..., Any])
AnyExecutor = Union[Executor, AsyncExecutor]


def envelope_of(exc: BaseException, tool: Optional[str]) -> Envelope:
    """Return the envelope of a tool's failure.

    A ToolFailure (or any exception with an .envelope, e.g. one the runtime
    raised) keeps its own; an HTTP error or SDK exception is classified by
    toolerr.classify_response as the tool's failure; any other exception by
    toolerr.classify_exception (type, message and traceback, sanitized).
    """
    return failure_envelope(exc, tool or None)


# pydantic's error types (pydantic_core.ErrorType) named by the JSON Schema
# keyword they check, with the member of the error's ctx that holds the
# keyword's value in the schema: the neutral failure form of docs/args.md.
# Every Python framework here validates a tool's arguments with pydantic.
# See https://docs.pydantic.dev/latest/errors/validation_errors/
_PYDANTIC_KEYWORDS: Dict[str, Tuple[str, Optional[str]]] = {
    "missing": ("required", None), "missing_argument": ("required", None),
    "extra_forbidden": ("additionalProperties", None), "unexpected_keyword_argument": ("additionalProperties", None),
    "less_than_equal": ("maximum", "le"), "greater_than_equal": ("minimum", "ge"),
    "less_than": ("exclusiveMaximum", "lt"), "greater_than": ("exclusiveMinimum", "gt"),
    "multiple_of": ("multipleOf", "multiple_of"),
    "string_too_short": ("minLength", "min_length"), "string_too_long": ("maxLength", "max_length"),
    "too_short": ("minItems", "min_length"), "too_long": ("maxItems", "max_length"),
    "string_pattern_mismatch": ("pattern", "pattern"), "literal_error": ("enum", None), "enum": ("enum", None),
    "json_invalid": ("json", None), "json_type": ("json", None),
}
# The JSON Schema type an error type of the form <kind>_type / <kind>_parsing expects.
_PYDANTIC_TYPES = {"string": "string", "int": "integer", "float": "number", "decimal": "number", "bool": "boolean",
                   "list": "array", "tuple": "array", "set": "array", "dict": "object", "model": "object",
                   "model_attributes": "object", "none": "null"}


def _pointer(loc: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in loc)


def _failure(err: Mapping[str, Any]) -> Dict[str, Any]:
    typ = str(err.get("type", ""))
    keyword, ctx_key = _PYDANTIC_KEYWORDS.get(typ, (typ, None))
    f: Dict[str, Any] = {"path": _pointer(err.get("loc", ())), "keyword": keyword}
    kind = typ.rsplit("_", 1)[0] if typ.endswith(("_type", "_parsing")) else None
    if kind is not None and kind in _PYDANTIC_TYPES:
        f["keyword"], f["expected"] = "type", _PYDANTIC_TYPES[kind]
    elif ctx_key is not None and ctx_key in (err.get("ctx") or {}):
        f["expected"] = err["ctx"][ctx_key]
    if keyword == "json":
        f["path"] = ""
    if not re.fullmatch(r"[A-Za-z0-9$_-]{1,64}", str(f["keyword"])):
        f["keyword"] = "invalid"
    return f


def pydantic_failures(errors: Any) -> Optional[List[Dict[str, Any]]]:
    """Return pydantic's error dicts (ValidationError.errors()) as argument
    failures in the neutral form (see args_failures), or None for none."""
    return [_failure(e) for e in errors] or None


def args_failures(exc: Any) -> Optional[List[Dict[str, Any]]]:
    """Return the argument failures, in the neutral form of docs/args.md, of a
    pydantic ValidationError (or a json.JSONDecodeError: arguments that are
    not JSON) found in exc or its causes (a framework's own argument-validation
    error wraps one), or None when there is none.

    Each pydantic error becomes {"path": its loc as a JSON Pointer, "keyword":
    the JSON Schema keyword its type checks, "expected"?: the keyword's value
    from its ctx}: missing is required, less_than_equal maximum (ctx le),
    int_parsing type integer, ... Pydantic's own text is never kept. Call it
    only on a framework's argument-validation error: a tool's own
    ValidationError is the tool's failure, not the model's.
    """
    seen = 0
    while exc is not None and seen < 8:
        errors = getattr(exc, "errors", None)
        if isinstance(exc, json.JSONDecodeError):
            return [{"path": "", "keyword": "json"}]
        if callable(errors) and type(exc).__name__ == "ValidationError":
            try:
                return pydantic_failures(errors())
            except Exception:
                return None
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def invalid_args(failures: List[Dict[str, Any]], tool: Optional[str]) -> Envelope:
    """Return the core's INVALID_ARGS envelope for argument failures (op args_error)."""
    req: Dict[str, Any] = {"op": "args_error", "failures": failures}
    if tool:
        req["tool"] = tool
    return Envelope.from_dict(invoke(req))


def args_envelope(exc: Any, tool: Optional[str]) -> Optional[Envelope]:
    """Return the INVALID_ARGS envelope of the argument failures in exc (see
    args_failures), or None when it holds none."""
    failures = args_failures(exc)
    return None if failures is None else invalid_args(failures, tool)


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
        return json.loads(_encode(value))  # a NaN or an infinity as null, as in every request
    except (TypeError, ValueError):
        return None


def _outcome(r: CallResult[Any], failure: Callable[[Envelope], Exception], passthrough: Tuple[Type[BaseException], ...]) -> Any:
    """Return a call's value, or raise: a passthrough exception as it was, else failure(envelope)."""
    if r.error is None:
        return r.value
    if passthrough and isinstance(r.exception, passthrough):
        raise r.exception
    raise failure(r.error) from r.exception


def guard(func: F, tool: str, executor: Optional[AnyExecutor] = None,
          failure: Callable[[Envelope], Exception] = ToolFailure,
          passthrough: Tuple[Type[BaseException], ...] = ()) -> F:
    """Return func wrapped so that every failure raises failure(envelope)
    (ToolFailure by default; a framework's own exception type where the
    framework handles only that one). An exception of a passthrough type
    (a framework's own signal to the model, such as pydantic-ai's ModelRetry)
    is raised unchanged and never retried.

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
                except passthrough:
                    raise
                except Exception as e:
                    raise failure(envelope_of(e, tool)) from e
            assert isinstance(executor, AsyncExecutor)
            r = await executor.call(tool, lambda: func(*args, **kwargs), args=call_args(args, kwargs))
            return _outcome(r, failure, passthrough)

        return cast(F, run_async)

    if isinstance(executor, AsyncExecutor):
        async_executor = executor

        @functools.wraps(func)
        async def run_thread(*args: Any, **kwargs: Any) -> Any:
            r = await async_executor.call(tool, lambda: asyncio.to_thread(func, *args, **kwargs),
                                          args=call_args(args, kwargs))
            return _outcome(r, failure, passthrough)

        return cast(F, run_thread)

    @functools.wraps(func)
    def run(*args: Any, **kwargs: Any) -> Any:
        if executor is None:
            try:
                return func(*args, **kwargs)
            except passthrough:
                raise
            except Exception as e:
                raise failure(envelope_of(e, tool)) from e
        r = executor.call(tool, lambda: func(*args, **kwargs), args=call_args(args, kwargs))
        return _outcome(r, failure, passthrough)

    return cast(F, run)
