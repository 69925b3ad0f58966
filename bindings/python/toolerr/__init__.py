"""toolerr: tool-call errors for LLM agents, over the one Go core.

Every function builds one Invoke request, runs it through libtoolerr.so and
returns the "ok" value; an {"error": envelope} response raises ToolerrError.
All rules (codes, retryable defaults, messages, sanitizing, wire shapes,
canonical JSON) live in the core, so Python gets the same bytes as Go, Node
and Rust. See docs/bindings.md and the README's "Invoke reference".
"""

from __future__ import annotations

import builtins
import gc
import json
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Tuple

from ._native import MAX_REQUEST_BYTES, abi_version, invoke_bytes, invoke_length, library_path

__all__ = [
    "Envelope", "Outcome", "ToolerrError", "abi_version", "breaker", "budget", "canonicalize", "check",
    "classify_exception", "classify_http", "classify_response", "codes", "convert", "envelope", "invoke",
    "invoke_bytes", "library_path", "loop_guard", "normalize_ids", "parse", "repair", "replay", "retry_decision",
    "sanitize", "serialize", "to_anthropic", "to_bedrock", "to_gemini", "to_mcp", "to_openai_chat",
    "to_openai_responses", "trim", "version",
]

JSON = Any
Message = Dict[str, Any]
# Built once: json.dumps with options builds one per call.
_encode_finite = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode
_encode_any = json.JSONEncoder(separators=(",", ":")).encode


def _encode(value: Any) -> str:
    """The JSON text of value, as every binding writes a request the
    caller's values flow into: a NaN or an infinity (float or a subclass,
    as numpy.float64) written as null, as JSON.stringify (ECMA-262
    SerializeJSONProperty: a non-finite Number is "null") and serde_json
    (its Serializer writes a non-finite f64 as null; a serde_json::Value
    cannot hold one) write it, where json writes NaN, Infinity and
    -Infinity, which no JSON text holds (RFC 8259 section 6) and the core
    refused as a request that is not JSON. A dict key that is such a float
    is written as its name ("NaN"), as JSON.stringify writes a key
    (String(NaN)). Raises TypeError for a value json cannot write and
    ValueError for one that holds itself or is nested past Python's
    recursion limit (json raised RecursionError for it; the core reads
    512 levels at most). A value with no NaN or infinity is written once,
    by json's C encoder."""
    try:
        try:
            return _encode_finite(value)
        except ValueError:
            _encode_any(value)  # raises ValueError again for a value that holds itself
            return _encode_any(_finite(value))
    except RecursionError:
        raise ValueError("toolerr: a value nested too deep to write as JSON (past Python's recursion limit; "
                         "the core reads at most 512 levels)") from None


def _finite(value: Any) -> Any:
    """value with each NaN or infinite float in it (a dict's value, a list's
    or tuple's item, at any depth) replaced by None; a copy of each
    container that holds one, the other values as they are."""
    if isinstance(value, float):
        return value if value - value == 0.0 else None  # nan - nan and inf - inf are nan
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _dumps(value: Any) -> bytes:
    """Return the request bytes of value: _encode's JSON value, written by
    orjson.dumps where orjson writes the same JSON value json does, and by
    _encode (so with its result, TypeError or ValueError) everywhere else.
    On issue 12's (b) transcript (8,479 B) orjson.dumps took 8-10 us, the
    whole of _dumps with _plain's walk 30-41 us, json's C encoder 72-95 us
    (bench/before_after.py, CPU time, load 8, three runs); with _plain's
    walk in C (gc.get_referents), _dumps 37.1 against 66.6 us before it
    and orjson.dumps 14.7 (interleaved CPU time, load 13).

    orjson writes only where it cannot differ: it raises (and _encode
    writes) for a dict key that is not a str, an int outside [-2**63,
    2**64), a lone surrogate, nesting deeper than 254, a value that holds
    itself, and, through _refuse, any type it does not write natively: a
    subclass of str, int, float, dict or list (OPT_PASSTHROUGH_SUBCLASS;
    json writes an int subclass with int.__repr__, a float subclass as
    numpy.float64 with float.__repr__), a dataclass, a datetime, date or
    time (OPT_PASSTHROUGH_DATACLASS, _DATETIME), a numpy array. What it
    writes natively and json refuses with TypeError (uuid.UUID, enum.Enum,
    orjson.Fragment) is caught after it by _plain, which finds any value
    that is not a dict, list, tuple, str, int, float, bool or None, and
    sends the value to _encode too. Both write NaN and infinities as null
    (orjson's rule, _encode's since conformance/values/nonfinite.json);
    floats are written as the same double (the spelling may differ
    between orjson versions and json, 1e16 against 1e+16; the core reads
    the value); non-ASCII text as UTF-8 where json writes \\u escapes, the
    same string to the core. Without orjson (an install with --no-deps),
    _encode writes every request.
    """
    o = _orjson if _orjson is not None else _reader()
    if o:
        try:
            out: bytes = o.dumps(value, default=_refuse, option=_PASSTHROUGH)
        except o.JSONEncodeError:  # a TypeError: _refuse's, or orjson's own refusal
            pass
        else:
            if _plain(value):  # after dumps: a value that holds itself never reaches it
                return out
    return _encode(value).encode()


def _refuse(value: Any) -> Any:
    """orjson's default: refuse every value it passes on (see _dumps)."""
    raise TypeError


# The exact types both write alike, and the containers that hold them.
_PLAIN = frozenset((dict, list, tuple, str, int, float, bool, type(None)))
_all_plain = _PLAIN.issuperset
_referents = gc.get_referents


def _plain(value: Any) -> bool:
    """Whether value holds only dicts, lists, tuples, str, int, float, bool
    and None, by exact type, at any depth. Terminates only on a value
    without cycles (one orjson.dumps wrote).

    It goes level by level, each in C: the types of a level's objects
    checked against _PLAIN in one issuperset, and the next level got in one
    gc.get_referents call, which returns what each object's tp_traverse
    visits: a list's or tuple's items, a dict's values (and its keys, when
    one is not an exact str: then the walk answers False and _encode writes
    the value, the same JSON text orjson would have written), and nothing
    for str, int, float, bool or None, which have no tp_traverse (the GC
    flag is the type's, so a dict the collector untracked is traversed
    too). 2.5x faster than a Python loop over the values on issue 12's (b)
    request (18.7 against 46.9 us, load 9).
    """
    level = [value]
    try:
        while level:
            if not _all_plain(map(type, level)):
                return False
            level = _referents(*level)
    except Exception:  # an audit hook refusing gc.get_referents: _encode writes the value
        return False
    return True


_string = json.encoder.encode_basestring_ascii  # a str as _encode writes it (ensure_ascii)
_FLAT = frozenset((str, int, float, bool, type(None)))  # the detail types an Envelope keeps its bytes for
# Each ASCII digit to "0", every other byte to ".": _loads finds a run of 19
# digits in the translated answer with one bytes.find of _LONG_RUN.
_DIGIT_RUNS = bytes(0x30 if 0x30 <= c <= 0x39 else 0x2E for c in range(256))
_LONG_RUN = b"0" * 19


def _no_long_run(raw: bytes) -> bool:
    """Whether raw holds no run of 19 or more ASCII digits.

    First on every 4th byte: a run of 19 at raw[i:i+19] holds the bytes at
    4 consecutive multiples of 4 (the first at most i+3, the fourth at most
    i+15), so where raw[::4] holds no 4 digits in a row, raw holds no such
    run. Only where it does is every byte looked at. On issue
    12's (b) answer to Gemini (8,173 B, dates, prices and ids, no run of 19)
    6.1 against 10.1 us, load 10."""
    return raw[::4].translate(_DIGIT_RUNS).find(b"0000") < 0 or raw.translate(_DIGIT_RUNS).find(_LONG_RUN) < 0


def _text(value: Any) -> bytes:
    """Return value as _encode writes it, in bytes: a str through json's C
    string encoder directly (what _encode calls for one, without its Python
    layer: 0.2 against 0.6 us), anything else through _encode."""
    return (_string(value) if type(value) is str else _encode(value)).encode()


# The orjson module, imported by _reader with the first request written or
# answer read (not at import, which it made 7-15% slower at load 12, python
# -X importtime); False when it cannot be imported (an install with
# --no-deps): the requests are then written by _encode and the answers read
# with json.loads.
_orjson: Any = None
_PASSTHROUGH = 0  # _dumps's orjson options, set by _reader


def _reader() -> Any:
    """Import orjson into _orjson (False without it) and return it."""
    global _orjson, _PASSTHROUGH
    try:
        import orjson
        _PASSTHROUGH = (orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
                        | orjson.OPT_PASSTHROUGH_DATETIME)
        _orjson = orjson
    except ImportError:
        _orjson = False
    return _orjson


def _loads(raw: bytes) -> JSON:
    """Return the value of JSON bytes the core wrote, as json.loads returns it.

    With orjson installed, orjson.loads reads them (2-4x faster on the
    answers of issue 12's work items), unless they hold a run of 19 or more
    digits: orjson reads an integer outside [-2**63, 2**64) as a float where
    json.loads keeps an int, and every such integer written as digits (the
    core's canonical JSON writes every number below 1e21 so) has at least 19
    of them; a string with such a run goes to json.loads as well, which costs
    only time. What orjson
    refuses (a lone surrogate escape, nesting deeper than 1024) is read by
    json.loads, which answers as it always did.
    """
    o = _orjson if _orjson is not None else _reader()
    if o and _no_long_run(raw):
        try:
            return o.loads(raw)
        except o.JSONDecodeError:
            pass
    return json.loads(raw)


@dataclass(frozen=True)
class Envelope:
    """The five-field error envelope (README, "The envelope").

    code is an UPPER_SNAKE registry token; message one sanitized sentence for
    the model; retryable whether the orchestrator may retry without the model;
    details machine fields ({} when empty); source "tool", "provider" or
    "orchestrator".
    """

    code: str
    message: str
    retryable: bool
    details: Dict[str, Any] = field(default_factory=dict)
    source: str = "tool"
    # Not a field (fields(), asdict(), == and repr() do not see it): the
    # instance's "_wire" entry, (details items, their types, JSON bytes), the
    # envelope as JSON kept once written (or as the core wrote it) while
    # details holds the same flat items (the types too: True == 1 in Python,
    # not in JSON).

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Envelope:
        """Build an Envelope from the five members of a response."""
        return cls(d["code"], d["message"], d["retryable"], dict(d["details"]), d["source"])

    def wire(self) -> bytes:
        """Return the envelope as JSON bytes, the "error" member of a request.

        The bytes are kept on the envelope (an envelope from the core keeps
        the core's canonical bytes) while the details stay as they were and
        hold only strings, numbers, booleans and nulls; details with nested
        values are written afresh on every call, so a change to them is never
        lost.
        """
        c = self.__dict__.get("_wire")
        d = self.details
        if c is not None and c[0] == tuple(d.items()) and c[1] == tuple(map(type, d.values())):
            kept: bytes = c[2]
            return kept
        out = _encode(self.to_dict()).encode()
        self._keep(out)
        return out

    def _keep(self, out: bytes) -> None:
        types = tuple(map(type, self.details.values()))
        if (type(self.code) is str and type(self.message) is str and type(self.retryable) is bool
                and type(self.source) is str and all(t in _FLAT for t in types)):
            object.__setattr__(self, "_wire", (tuple(self.details.items()), types, out))

    @classmethod
    def _from_wire(cls, raw: bytes) -> Envelope:
        """Build an Envelope from the core's canonical bytes of one, keeping them."""
        env = cls.from_dict(_loads(raw))
        env._keep(raw)
        return env

    def to_dict(self) -> Dict[str, Any]:
        """Return the envelope as the JSON object the core reads."""
        return {"code": self.code, "message": self.message, "retryable": self.retryable,
                "details": self.details, "source": self.source}

    def __getstate__(self) -> Dict[str, Any]:
        """Pickle and copy the five fields, not the kept bytes."""
        return {k: v for k, v in self.__dict__.items() if k != "_wire"}

    def __setstate__(self, state: Dict[str, Any]) -> None:
        self.__dict__.update(state)


class ToolerrError(Exception):
    """An {"error": envelope} response; .envelope holds all five fields.

    Raised for bad requests (code INVALID_INPUT, details.path naming the member)
    and internal failures (INTERNAL), both with source "orchestrator".
    """

    def __init__(self, envelope: Envelope) -> None:
        super().__init__(f"{envelope.code}: {envelope.message}")
        self.envelope = envelope

    def __reduce__(self) -> Tuple[Any, Tuple[Envelope]]:
        return (ToolerrError, (self.envelope,))

    @property
    def code(self) -> str:
        """The envelope's code."""
        return self.envelope.code

    @property
    def message(self) -> str:
        """The envelope's message."""
        return self.envelope.message

    @property
    def retryable(self) -> bool:
        """The envelope's retryable flag."""
        return self.envelope.retryable

    @property
    def details(self) -> Dict[str, Any]:
        """The envelope's details."""
        return self.envelope.details

    @property
    def source(self) -> str:
        """The envelope's source."""
        return self.envelope.source


def invoke(request: Mapping[str, Any]) -> JSON:
    """Run one Invoke request ({"op": ..., ...}) and return its "ok" value.

    Raises ToolerrError carrying the envelope when the core answers {"error": ...};
    TypeError when request holds a value json.dumps cannot write. A NaN or
    an infinity in request is sent as null, as the Node and Rust bindings
    send it (_dumps, written by orjson or json alike).
    """
    return _answer(invoke_bytes(_dumps(request)))


def _answer(out: bytes) -> JSON:
    """Return the "ok" value of a response, or raise its error as ToolerrError.

    The response is canonical JSON (RFC 8785): one member, so an answer is
    the bytes {"ok": then the value then }, read without the wrapper.
    """
    if out.startswith(b'{"ok":'):
        return _loads(out[6:-1])
    raise ToolerrError(Envelope.from_dict(json.loads(out)["error"]))


def _ok_bytes(out: bytes) -> bytes:
    """Return the "ok" value's JSON bytes of a response, or raise its error."""
    if out.startswith(b'{"ok":'):
        return out[6:-1]
    raise ToolerrError(Envelope.from_dict(json.loads(out)["error"]))


# The members a caller's options or members never set: the op's name, and
# the framing of JSON text spliced into a request (core/splice.go).
_FRAME = frozenset(("op", "raw_len"))


def _request(op: str, members: Mapping[str, Any], options: Mapping[str, Any] = {}) -> Dict[str, Any]:
    """The request to op: members (the function's own), then options (the
    caller's keyword arguments), those that are None left out. Raises
    TypeError naming an option (or a member) that would replace "op",
    "raw_len" or one of members: a silently different op or request."""
    for k in members:
        if k in _FRAME:
            raise _reserved(op, k)
    for k in options:
        if k in _FRAME or k in members:
            raise _reserved(op, k)
    req = {"op": op, **{k: v for k, v in members.items() if v is not None}}
    if options:
        req.update((k, v) for k, v in options.items() if v is not None)
    return req


def _reserved(op: str, name: str) -> TypeError:
    return TypeError(f"toolerr: {op}: {name!r} is a member of the request the binding writes; it cannot be an option")


def _op(op: str, members: Mapping[str, Any]) -> JSON:
    return invoke(_request(op, members))


def _op_request(op: str, members: Mapping[str, Any]) -> str:
    """The JSON text of a request to op with members (those that are None left out)."""
    return _encode(_request(op, members))


def _envelope_op(op: str, members: Mapping[str, Any]) -> Envelope:
    """Run an op whose answer is an envelope; the Envelope keeps the core's bytes."""
    return Envelope._from_wire(_ok_bytes(invoke_bytes(_op_request(op, members).encode())))


def version() -> Dict[str, Any]:
    """Return {"abi": int, "version": str} of the loaded core."""
    return _op("version", {})  # type: ignore[no-any-return]


def codes() -> List[Dict[str, Any]]:
    """Return the code registry rows (code, retryable, source, statuses, provider_errors, meaning)."""
    return _op("codes", {})  # type: ignore[no-any-return]


def envelope(code: str, message: str, *, retryable: Optional[bool] = None,
             details: Optional[Mapping[str, Any]] = None, source: Optional[str] = None) -> Envelope:
    """Return an envelope for code with the registry defaults and sanitized text."""
    return _envelope_op("envelope", dict(code=code, message=message, retryable=retryable, details=details,
                                         source=source))


def canonicalize(value: JSON) -> str:
    """Return value as RFC 8785 canonical JSON text (as the core writes it)."""
    out = invoke_bytes(_dumps({"op": "canonicalize", "value": value}))
    if not out.startswith(b'{"ok":'):
        invoke({"op": "canonicalize", "value": value})  # raises the ToolerrError
    return out[len(b'{"ok":'):-1].decode()


def sanitize(text: str, *, max_chars: Optional[int] = None) -> Dict[str, Any]:
    """Return {"text", "truncated", "original_chars"?}: secrets redacted, traces cut, capped."""
    return _op("sanitize", dict(text=text, max_chars=max_chars))  # type: ignore[no-any-return]


def classify_http(status: int, headers: Optional[Mapping[str, str]] = None, body: JSON = None, *,
                  provider: Optional[str] = None, source: Optional[str] = None, tool: Optional[str] = None,
                  attempt: Optional[int] = None, now_ms: Optional[int] = None) -> Envelope:
    """Classify an HTTP failure: status, response headers, body (text or parsed JSON).

    tool names the tool whose call failed: the failure is then the tool's
    (source "tool", its service's own sentence in details.tool_message) unless
    source ("tool" or "provider") says otherwise. provider ("openai",
    "anthropic", "gemini", "bedrock", ...) hints how to read the body. now_ms
    (milliseconds since the Unix epoch) is needed only to turn an HTTP-date
    Retry-After or a reset time into details.retry_after_seconds.
    """
    return _envelope_op(*_http_request(status, headers, body, provider=provider, source=source, tool=tool,
                                       attempt=attempt, now_ms=now_ms))


class _Request(NamedTuple):
    """An op and its members, as _envelope_op takes them."""

    op: str
    members: Dict[str, Any]


def _http_request(status: int, headers: Optional[Mapping[str, str]], body: JSON, *, provider: Optional[str] = None,
                  source: Optional[str] = None, tool: Optional[str] = None, attempt: Optional[int] = None,
                  now_ms: Optional[int] = None) -> _Request:
    """The classify op's request for classify_http's arguments."""
    http = {k: v for k, v in (("status", status), ("headers", dict(headers or {})), ("body", body)) if v is not None}
    return _Request(op="classify", members=dict(http=http, provider=provider, source=source, tool=tool,
                                                attempt=attempt, now_ms=now_ms))


def classify_exception(exc: BaseException, *, tool: Optional[str] = None) -> Envelope:
    """Classify a Python exception from its type and message.

    The core sanitizes: no secret reaches the message. The printed traceback
    is not sent: the classify_exception op reads one only to find the type and
    message when no type is given (docs/classify.md), and a Python exception
    always has its type; formatting one costs more than the classification
    (Python 3.11+ parses each frame's source line for its carets). Its causes
    are (raise ... from e, or raised while handling e: at most 8, each its
    type and the first line of its str), as the Node and Rust bindings send
    an error's cause chain: a RuntimeError raised from a ConnectionRefusedError
    is TRANSPORT, retryable, as in every language.
    """
    return _envelope_op(*_exception_request(exc, tool))


def _exception_request(exc: BaseException, tool: Optional[str]) -> _Request:
    """The classify_exception op's request for exc: its type's name, its str
    and, when it has causes, the traceback of its _cause_chain after its str.
    A str that cannot be read (its __str__ raises, or returns no str) is
    read as "": exc is classified by its type and causes, as the executor
    classifies it, not raised out of the handler that classifies it."""
    try:
        message = str(exc)
    except Exception:
        message = ""
    exception = {"type": _type_name(exc), "message": message}
    chain = _cause_chain(exc)
    if chain:
        exception["traceback"] = message + chain
    return _Request(op="classify_exception", members=dict(exception=exception, tool=tool))


_MAX_CAUSES = 8  # the causes _cause_chain reads, as the Node and Rust bindings read at most 8
_MAX_CAUSE_CHARS = 4096  # the characters of a cause's line it keeps, as Node and Rust cut them


def _causes(exc: BaseException) -> List[Tuple[str, str]]:
    """exc's causes, the outer first, each (its type's name, the first line
    of its str cut at 4,096 characters), at most 8, as the Node binding reads
    an Error.cause chain and the Rust binding a source chain. A cause is the
    one Python's traceback module prints before an exception: its __cause__
    (raise ... from e), else its __context__ (an exception raised while
    handling e) unless __suppress_context__ (raise ... from None). A cycle,
    or a cause whose str cannot be read, ends the chain: the causes before
    it still count. The one reader of a cause chain: _cause_chain and the
    egress transports' error text print what it returns."""
    out: List[Tuple[str, str]] = []
    seen = {id(exc)}
    c: Optional[BaseException] = exc
    try:
        while c is not None and len(out) < _MAX_CAUSES:
            c = c.__cause__ if c.__cause__ is not None else (None if c.__suppress_context__ else c.__context__)
            if c is None or id(c) in seen:
                break
            seen.add(id(c))
            out.append((_type_name(c), _first_line(c)))
    except Exception:  # a cause that cannot be read whole: the causes read so far
        pass
    return out


def _first_line(exc: BaseException) -> str:
    """The first line of str(exc), at most 4,096 characters (a str subclass
    read as its str); raises what str(exc) raises."""
    text = str(exc)
    if type(text) is not str:
        text = str.__str__(text)
    return text.split("\n", 1)[0].split("\r", 1)[0][:_MAX_CAUSE_CHARS]


def _cause_chain(exc: BaseException) -> str:
    """exc's _causes as the "Caused by:" blocks the classify_exception op
    reads for a transport cause (docs/classify.md), each "Type: first line";
    "" when exc has no cause (told without _causes, for the exception most
    often classified: one raised while handling none, with no cause)."""
    if exc.__cause__ is None and (exc.__context__ is None or exc.__suppress_context__):
        return ""
    return "".join(f"\n\nCaused by:\n    {t}: {line}" for t, line in _causes(exc))


def _error_text(exc: BaseException) -> str:
    """The error text of exc and its _causes, each "Type: first line", joined
    by ": " (the egress transports' text of a request that got no answer, as
    the Node and Rust transports write it); a str that raises gives the type
    alone."""
    try:
        head = _type_name(exc) + ": " + _first_line(exc)
    except Exception:
        head = _type_name(exc)
    return ": ".join([head] + [f"{t}: {line}" for t, line in _causes(exc)])


def _http_status(obj: Any) -> Tuple[Any, Optional[int]]:
    """obj's .response (or None) and the HTTP status classify_response reads
    for obj: the first int of .status_code, .response.status_code, .code."""
    resp = getattr(obj, "response", None)
    return resp, next((s for s in (getattr(obj, "status_code", None), getattr(resp, "status_code", None),
                                   getattr(obj, "code", None)) if isinstance(s, int)), None)


# The builtin exception types: none has a member classify_response or the
# runtime reads (.status_code, .response, .code, .envelope), so an instance
# of one with no attributes of its own has no HTTP status and no envelope
# (SystemExit, with its .code, left out).
_PLAIN_EXCEPTIONS = frozenset(
    t for t in vars(builtins).values() if isinstance(t, type) and issubclass(t, BaseException)
    and not any(hasattr(t, m) for m in ("status_code", "response", "code", "envelope")))


def _response_request_text(obj: Any, tool: Optional[str]) -> str:
    """The JSON text of the request classify_response(obj, source="tool",
    tool=tool) sends: _op_request(*_response_request(...)), the
    classify_exception request of an exception with no HTTP status written
    as text (json's own string encoder, as _encode writes each string: the
    same bytes, at a quarter of the cost; a builtin exception with no
    attributes of its own, _PLAIN_EXCEPTIONS, has none, read without its
    three lookups)."""
    if ((type(obj) in _PLAIN_EXCEPTIONS and not obj.__dict__) or _http_status(obj)[1] is None) and \
            isinstance(obj, BaseException) and type(tool) is str:
        try:
            message = str(obj)
        except Exception:  # read as "", as _exception_request reads it
            message = ""
        if type(message) is str:
            chain = _cause_chain(obj)
            return ('{"op":"classify_exception","exception":{"type":' + _string(_type_name(obj)) + ',"message":'
                    + _string(message) + (',"traceback":' + _string(message + chain) if chain else "")
                    + '},"tool":' + _string(tool) + "}")
    return _op_request(*_response_request(obj, source="tool", tool=tool))


def _type_name(exc: BaseException) -> str:
    """The qualified name of exc's type (no module for a builtin, nor for a
    type whose __module__ is not a str: a class may set it to anything, and
    formatting that may raise, which raised out of the executor; nor for a
    metaclass's __module__ property that raises)."""
    t = type(exc)
    try:
        module = t.__module__
    except Exception:
        module = None
    return f"{module}.{t.__qualname__}" if type(module) is str and module != "builtins" else t.__qualname__


def _classify_exception_as(type_name: str, message: str, tool: Optional[str]) -> Envelope:
    return _envelope_op("classify_exception", dict(exception={"type": type_name, "message": message}, tool=tool))


def classify_response(obj: Any, *, provider: Optional[str] = None, source: Optional[str] = None,
                      tool: Optional[str] = None, now_ms: Optional[int] = None) -> Envelope:
    """Classify an httpx/requests response or an openai/anthropic/google-genai SDK error.

    Read by duck typing: status from .status_code (or .code), headers and body
    text from the object or its .response, else the SDK's parsed .body/.details.
    An exception with no HTTP status (a connection error) goes to
    classify_exception.
    """
    return _envelope_op(*_response_request(obj, provider=provider, source=source, tool=tool, now_ms=now_ms))


def _response_request(obj: Any, *, provider: Optional[str] = None, source: Optional[str] = None,
                      tool: Optional[str] = None, now_ms: Optional[int] = None) -> _Request:
    """The request classify_response sends for obj: the classify op's, or classify_exception's."""
    resp, status = _http_status(obj)
    if status is None and isinstance(obj, BaseException):
        return _exception_request(obj, tool)
    carrier = resp if resp is not None else obj
    try:
        body: JSON = getattr(carrier, "text", None)
    except Exception:  # an unread streaming body
        body = None
    if not isinstance(body, str):
        body = getattr(obj, "body", None) or getattr(obj, "details", None)
    headers = {str(k): str(v) for k, v in dict(getattr(carrier, "headers", None) or {}).items()}
    return _http_request(status or 0, headers, body, provider=provider, source=source, tool=tool, now_ms=now_ms)


@dataclass(frozen=True)
class Outcome:
    """One tool call and what came of it: error (an Envelope) or result.

    call_id is the provider's call id ("" where the format has none); name the
    function name (Gemini needs it). result is {} (empty), {"text": s},
    {"json": v} or {"blocks": [{"type": "text", "text": s} |
    {"type": "image", "media_type": m, "data": base64}]}.
    """

    call_id: str = ""
    name: str = ""
    error: Optional[Envelope] = None
    result: Optional[Mapping[str, Any]] = None

    def to_dict(self) -> Dict[str, Any]:
        """Return the neutral {"call", "error"|"result"} object of the serialize op.

        An empty call_id or name is left out, as the parse op leaves it out, so
        that Outcome.from_dict(d).to_dict() == d for every outcome the core returns.
        """
        call = {k: v for k, v in (("id", self.call_id), ("name", self.name)) if v}
        d: Dict[str, Any] = {"call": call}
        if self.error is not None:
            d["error"] = _envelope_of(self.error, "Outcome.error").to_dict()
        if self.result is not None:
            d["result"] = dict(self.result)
        return d

    def wire(self) -> bytes:
        """Return to_dict() as JSON bytes, the envelope's kept bytes spliced in (Envelope.wire)."""
        out = b'{"call":{'
        if self.call_id:
            out += b'"id":' + _text(self.call_id) + (b"," if self.name else b"")
        if self.name:
            out += b'"name":' + _text(self.name)
        out += b"}"
        if self.error is not None:
            out += b',"error":' + _envelope_of(self.error, "Outcome.error").wire()
        if self.result is not None:
            out += b',"result":' + _encode(dict(self.result)).encode()
        return out + b"}"

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Outcome:
        """Build an Outcome from one element of a parse response."""
        e = d.get("error")
        return cls(d["call"].get("id", ""), d["call"].get("name", ""),
                   Envelope.from_dict(e) if e is not None else None, d.get("result"))


def serialize(format: str, outcomes: Iterable[Outcome], *, output_schema: Optional[bool] = None) -> List[Message]:
    """Return the messages to append to a format's history for one turn of outcomes.

    output_schema (mcp only): whether the tool declares an outputSchema; False
    puts a failure's envelope in structuredContent too, True or None (not
    known) keeps it in the text block alone (the serialize op's member).
    """
    if output_schema is not None:
        head = (b'{"op":"serialize","format":' + _encode(format).encode()
                + b',"output_schema":' + (b"true" if output_schema else b"false") + b',"results":[')
        return _answer(invoke_bytes(head + _results(outcomes) + b"]}"))  # type: ignore[no-any-return]
    req = _serialize_head.get(format) if type(format) is str else None
    if req is None:
        req = b'{"op":"serialize","format":' + _encode(format).encode() + b',"results":['
        if type(format) is str and len(_serialize_head) < 64:
            _serialize_head[format] = req
    return _answer(invoke_bytes(req + _results(outcomes) + b"]}"))  # type: ignore[no-any-return]


def _results(outcomes: Iterable[Outcome]) -> bytes:
    """The serialize op's results of outcomes: each one's wire(), joined by
    commas. Raises TypeError for an item that is not an Outcome (a dict, an
    Envelope, None), which has no wire of its own."""
    return b",".join([o.wire() if type(o) is Outcome else _outcome_of(o).wire() for o in outcomes])


def _outcome_of(o: Any) -> Outcome:
    """o, an Outcome (a subclass included); TypeError for anything else."""
    if not isinstance(o, Outcome):
        raise TypeError(f"toolerr: an outcome must be a toolerr.Outcome, not {type(o).__name__}")
    return o


def _envelope_of(e: Any, what: str) -> Envelope:
    """e, an Envelope (a subclass included); TypeError naming what for
    anything else (a dict, a code string, an exception)."""
    if not isinstance(e, Envelope):
        raise TypeError(f"toolerr: {what} must be a toolerr.Envelope, not {type(e).__name__}")
    return e


_serialize_head: Dict[str, bytes] = {}  # format -> the serialize request's bytes up to its results


def parse(format: str, messages: Iterable[Message]) -> List[Outcome]:
    """Read the tool outcomes back from a format's messages (the failure flag restored)."""
    return [Outcome.from_dict(o) for o in _op("parse", {"format": format, "messages": list(messages)})]


def to_openai_chat(outcomes: Iterable[Outcome]) -> List[Message]:
    """Chat Completions tool messages (role "tool"), one per outcome."""
    return serialize("openai-chat", outcomes)


def to_openai_responses(outcomes: Iterable[Outcome]) -> List[Message]:
    """Responses API function_call_output input items, one per outcome."""
    return serialize("openai-responses", outcomes)


def to_anthropic(outcomes: Iterable[Outcome]) -> List[Message]:
    """One Anthropic user message holding a tool_result block per outcome."""
    return serialize("anthropic", outcomes)


def to_gemini(outcomes: Iterable[Outcome]) -> List[Message]:
    """One Gemini user Content holding a functionResponse part per outcome."""
    return serialize("gemini", outcomes)


def to_bedrock(outcomes: Iterable[Outcome]) -> List[Message]:
    """One Bedrock Converse user message holding a toolResult block per outcome."""
    return serialize("bedrock", outcomes)


def to_mcp(outcomes: Iterable[Outcome], *, output_schema: Optional[bool] = None) -> List[Message]:
    """MCP CallToolResult objects, one per outcome; output_schema as for serialize."""
    return serialize("mcp", outcomes, output_schema=output_schema)


Transcript = Any  # a message list, a whole request body (dict), or JSON text (str, bytes, bytearray or memoryview) of one


def _utf8(text: str) -> bytes:
    """Return text as UTF-8 with each lone surrogate as U+FFFD, as the core reads a lone
    \\ud800 escape and as Node's TextEncoder writes one (WHATWG Encoding, "UTF-8 encode");
    two surrogates that form a pair become the one character they stand for. str.encode
    alone raises UnicodeEncodeError on them (a str from surrogateescape or a decoded escape).
    """
    try:
        return text.encode()
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode()


def _transcript_op(op: str, members: Mapping[str, Any], messages: Transcript, body: Transcript,
                   options: Mapping[str, Any] = {}) -> JSON:
    """Run a transcript op on the list (messages) or a whole request body (body).

    JSON text (str, bytes, bytearray or memoryview, as orjson.loads
    takes) goes to the core unparsed, spliced into the
    request: its parser refuses a duplicate key that json.loads would
    resolve silently to the last value. The last text is framed by a
    "raw_len" member after it, its length in bytes, for the core to hold it
    to exactly one JSON value (INVALID_INPUT at its member otherwise: text
    such as '[],"id_rules":...' adds no member). Giving both or neither is
    answered by the core (INVALID_INPUT at "body" or "messages"). options,
    the caller's, may not name "op", "raw_len", "messages", "body" or one
    of members (TypeError, _request).
    """
    req = _request(op, {**members, "messages": None, "body": None}, options)
    raw: List[Tuple[str, Any, int]] = []  # (member, its text: bytes or a byte view, its length)
    for key, value in (("messages", messages), ("body", body)):
        t = type(value)
        if t is list or t is dict:  # as they are, without the Mapping check's 1-2.5 us (an ABC's isinstance)
            req[key] = value
        elif t is bytes or t is str:
            text = _utf8(value) if t is str else value
            raw.append((key, text, len(text)))
        elif isinstance(value, (str, bytes, bytearray, memoryview)):  # a memoryview was list()ed: its bytes as numbers
            if isinstance(value, str):
                text = _utf8(value)
            else:  # its bytes, not copied until they are joined (a byte view of a contiguous one)
                view = memoryview(value)
                text = view.cast("B") if view.c_contiguous else view.tobytes()
            raw.append((key, text, len(text)))
        elif value is not None:
            req[key] = value if isinstance(value, Mapping) else list(value)
    if not raw:
        return invoke(req)
    out = [_encode(req)[:-1].encode()]  # joined once: the text copied once, not at each +
    for key, text, _ in raw:
        out += (b',"', key.encode(), b'":', text)
    out.append(b',"raw_len":%d}' % raw[-1][2])
    n = sum(map(len, out))
    if n > MAX_REQUEST_BYTES:  # the core refuses it by its length alone: not joined into one more copy
        return _answer(invoke_length(n))
    return _answer(invoke_bytes(b"".join(out)))


def check(format: str, messages: Transcript = None, *, body: Transcript = None, **options: Any) -> JSON:
    """Return the findings a provider would reject in a transcript (op "check").

    messages is the list; body instead a whole request body of format (a
    Chat Completions, Responses, Anthropic, Gemini or Bedrock request), its
    previous_response_id and model read by the core. Either may be JSON text.
    """
    return _transcript_op("check", {"format": format}, messages, body, options)


def repair(format: str, messages: Transcript = None, *, body: Transcript = None, **options: Any) -> JSON:
    """Return the repaired transcript and what changed (op "repair").

    With body, the answer holds "body": the whole request body with only the
    list changed, every other member as given.
    """
    return _transcript_op("repair", {"format": format}, messages, body, options)


def convert(messages: Transcript = None, *, from_format: str, to_format: str, body: Transcript = None,
            **options: Any) -> JSON:
    """Translate a transcript between formats, failure flags carried (op "convert").

    With body, a whole request body is translated: system prompt, tools,
    tool choice and generation parameters go to the target's place, and
    "notes" names what the target has no place for.
    """
    return _transcript_op("convert", {"from": from_format, "to": to_format}, messages, body, options)


def trim(format: str, messages: Transcript = None, *, body: Transcript = None, **options: Any) -> JSON:
    """Trim a transcript to a size budget without separating calls from results (op "trim")."""
    return _transcript_op("trim", {"format": format}, messages, body, options)


def normalize_ids(format: str, messages: Transcript = None, *, body: Transcript = None, **options: Any) -> JSON:
    """Rewrite call ids to the target's id rules; returns the messages (or body) and the id map."""
    return _transcript_op("normalize_ids", {"format": format}, messages, body, options)


def loop_guard(**members: Any) -> JSON:
    """Decide whether repeated failing calls form a loop (op "loop_guard"); state is the caller's."""
    return _op("loop_guard", members)


def retry_decision(error: Envelope, attempt: int, *, draw: float,
                   policy: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Decide whether and when to retry: {"retry", "delay_ms", "reason"} (op "retry").

    attempt is the 1-based number of the attempt that just failed; draw a
    uniform random number in [0, 1) (full jitter); policy overrides defaults.
    """
    return _op("retry", dict(error=_envelope_of(error, "error").to_dict(), attempt=attempt, draw=draw,  # type: ignore[no-any-return]
                             policy=policy))


def breaker(state: Optional[Mapping[str, Any]], event: str, *, now_ms: int,
            settings: Optional[Mapping[str, Any]] = None, error: Optional[Envelope] = None,
            tool: Optional[str] = None) -> Dict[str, Any]:
    """Advance a circuit breaker for one event ("allow", "success", "failure") at now_ms.

    state is the previous "state" (None for a new breaker); returns {"state",
    "allowed"?, "error"?}. Keep the state yourself (memory, Redis).
    """
    return _op("breaker", dict(state=state, event=event, now_ms=now_ms, settings=settings,  # type: ignore[no-any-return]
                               error=_envelope_of(error, "error").to_dict() if error is not None else None, tool=tool))


def budget(state: Optional[Mapping[str, Any]], *, limits: Mapping[str, Any], now_ms: int,
           charge: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
    """Charge a step/token/time budget before spending: {"allowed", "state", "remaining", "error"?}."""
    return _op("budget", dict(state=state, limits=limits, now_ms=now_ms, charge=charge))  # type: ignore[no-any-return]


def replay(trace: Mapping[str, Any], format: str) -> Dict[str, Any]:
    """Replay a recorded failure trace through a format with the scripted model (op "replay")."""
    return _op("replay", dict(trace=trace, format=format))  # type: ignore[no-any-return]
