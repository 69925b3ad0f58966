"""Run one tool call under toolerr's decisions: retries, breaker, budget, loop guard.

``Executor`` (threads) and ``AsyncExecutor`` (asyncio) give what Go's
resilience.Executor gives: full-jitter retries that honour wait hints and
attempt and deadline limits, one circuit breaker per tool (in memory, or
shared through a store), the run's step/token/time budget and loop guard,
and the outcome ready to serialize (a failure as an Envelope).

Every decision is the core's ``step`` op (docs/resilience.md, "The step
op"): this module only reads the clock, draws jitter, sleeps, honours
cancellation, moves bytes to and from the stores and logs the core's
decision records, so Python decides exactly as Go, Node and Rust do
(conformance/runtime/*.json proves it).
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
import json.scanner
import logging
import math
import numbers
import random
import threading
import time
from dataclasses import dataclass
from typing import (Any, Awaitable, Callable, Dict, Generator, Generic, List, Mapping, Optional, Protocol, Tuple,
                    TypeVar, Union)

from . import (_PLAIN_EXCEPTIONS, Envelope, _encode, Outcome, ToolerrError, _answer, _classify_exception_as,
               _response_request_text, _type_name, classify_exception, classify_response, invoke_bytes)

__all__ = ["AsyncExecutor", "AsyncStore", "Budget", "CallResult", "Executor", "LoopGuard", "MemoryStore", "Store",
           "ToolFailure", "failure_envelope"]

T = TypeVar("T")
Record = Dict[str, Any]
_log = logging.getLogger("toolerr")
# A library adds no output of its own: without a handler configured by the
# application, decisions are not printed by logging's last-resort handler
# (https://docs.python.org/3/howto/logging.html#configuring-logging-for-a-library).
_log.addHandler(logging.NullHandler())
_levels = {"debug": logging.DEBUG, "info": logging.INFO, "warn": logging.WARNING}


def _heard(logger: Any) -> bool:
    """Whether a WARNING record logged through logger would be seen by anyone:
    the logger enabled for WARNING, and on the record's way (Logger.handle,
    then callHandlers: the logger's filters, each handler up the chain while
    propagate holds, logging.lastResort when there is none) a filter or a
    handler other than a plain logging.NullHandler, whose handle does nothing
    (https://docs.python.org/3/library/logging.handlers.html#nullhandler).
    An application that configured no logging has only the package's
    NullHandler on the way: its records are then neither made nor logged, as
    nothing would show them. A logger of another type (a subclass, a
    LoggerAdapter) is taken as heard whenever it is enabled."""
    if not logger.isEnabledFor(logging.WARNING):
        return False
    if type(logger) is not logging.Logger and type(logger) is not logging.RootLogger:
        return True
    if logger.filters:
        return True
    found = False
    c: Optional[logging.Logger] = logger
    while c is not None:
        for h in c.handlers:
            if type(h) is not logging.NullHandler:
                return True
            found = True
        c = c.parent if c.propagate else None
    return not found  # no handler at all: logging.lastResort prints a WARNING


_record_json = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
_json = _encode  # a NaN or an infinity as null, as the Node and Rust executors write them
# json's own C scanner (what json.loads runs), called at a member's offset:
# it returns the value there and where the value ends.
_scan: Callable[[str, int], Tuple[Any, int]] = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[arg-type]
# A str as a JSON string literal (json's C encoder, as json.dumps writes it).
_string = json.encoder.encode_basestring_ascii

# The JSON text of a value written with no NaN or Infinity (json writes
# them, and no JSON reader takes them): ValueError for those.
_json_strict = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


def _draw_text(draw: Any) -> str:
    """The JSON text of a draw for a failure event: a finite float as repr
    writes it; a NaN, an infinity or anything json cannot write as null, as
    the Node and Rust executors write them (JSON.stringify, serde_json), so
    that the step op refuses every draw outside [0, 1) in the same words
    ("event.draw: is required: a uniform random number in [0, 1)"): a NaN
    was sent as the text nan, which is no JSON, and refused as such."""
    if type(draw) is float and draw - draw == 0.0:  # finite: nan - nan and inf - inf are nan
        return float.__repr__(draw)
    try:
        return _json_strict(draw)
    except (TypeError, ValueError):
        return "null"
# The events that may carry a load made ahead ("loaded", docs/resilience.md).
_AHEAD = frozenset(("start", "success", "failure", "slept"))
# An event as the runtime sends it: its kind, and its JSON text without the
# closing brace (a load made ahead is appended before it).
Event = Tuple[str, str]
_START: Event = ("start", '{"kind":"start"')
_SUCCESS: Event = ("success", '{"kind":"success"')
_SLEPT: Event = ("slept", '{"kind":"slept"')
_CANCELLED: Event = ("cancelled", '{"kind":"cancelled"')
# What the executor sends its step loop: the event; its load made ahead
# (the stored bytes, or None; the text of its event, a store_error; or
# _NO_LOAD: none), closed into the event's text only for a step that
# carries it (_closed); for a start, a success or a slept the value its
# load made ahead answered (the stored bytes as text, or None), for a cas
# that swapped _SWAPPED, else _NO_LOAD (what an answer decided ahead, or a
# start's answer kept, is checked against); and for a failure classified
# inside the step, the event with the envelope classified as before, sent
# instead when the core refuses the classify request.
_NO_LOAD: Any = object()
_SWAPPED: Any = object()
Sent = Tuple[Event, Any, Any, Optional[Callable[[], Event]]]
_START_ACTION: Dict[str, Any] = {"kind": "start"}  # only read
_DEADLINE: Event = ("cancelled", '{"kind":"cancelled","cause":"deadline"')


class Store(Protocol):
    """The byte-level compare-and-swap port every breaker store implements.

    load returns the bytes stored under key, or None. compare_and_swap stores
    new only if the key holds exactly old (None: holds nothing) and returns
    (swapped, current): when not swapped, current is what the key holds now
    (None for nothing). Errors are raised; the executor then decides on the
    last breaker state it saw (the core's fallback). Go's resilience.Store and the Redis stores are the same port.
    """

    def load(self, key: str) -> Optional[bytes]: ...

    def compare_and_swap(self, key: str, old: Optional[bytes], new: bytes) -> Tuple[bool, Optional[bytes]]: ...


class AsyncStore(Protocol):
    """Store with coroutine methods (for AsyncExecutor, e.g. over redis.asyncio)."""

    async def load(self, key: str) -> Optional[bytes]: ...

    async def compare_and_swap(self, key: str, old: Optional[bytes], new: bytes) -> Tuple[bool, Optional[bytes]]: ...


class MemoryStore:
    """The in-process Store: a dict, its compare-and-swap under a lock, safe across threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: Dict[str, bytes] = {}

    def load(self, key: str) -> Optional[bytes]:
        """Return the bytes stored under key, or None.

        Read without the lock: a dict's get is one step (under the GIL, or
        the dict's own lock in a free-threaded build), and compare_and_swap
        stores the new bytes in one step, so a load sees the bytes before or
        after a swap, never a part of one (the lock cost a load as much as
        its reading, about 0.3 us)."""
        return self._data.get(key)

    def compare_and_swap(self, key: str, old: Optional[bytes], new: bytes) -> Tuple[bool, Optional[bytes]]:
        """Store new under key if it holds exactly old; else return (False, what it holds)."""
        with self._lock:
            cur = self._data.get(key)
            if cur != old:
                return False, cur
            self._data[key] = bytes(new)
            return True, None


def _number(name: str, v: Any) -> Any:
    """v, a real number (int or float; a bool is none), as it was: the core
    checks its range. Anything else is a TypeError naming name."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(v).__name__}")
    return v


def _ms(name: str, seconds: Any) -> Any:
    """seconds (a number: _number) in milliseconds as the step op takes them,
    rounded up (1 µs is 1 ms, never 0). A 0, a negative, a NaN or an
    infinity (written as null) is passed on for the core to refuse with
    INVALID_INPUT at the member's path; so is a value past int64, as a float."""
    ms = _number(name, seconds) * 1000
    if not math.isfinite(ms) or abs(ms) >= 2**63:
        return float(ms)
    return math.ceil(ms)


class Budget:
    """One agent run's step, token and wall-time budget, shared by its calls (thread-safe).

    limits is {"steps"?, "tokens"?, "wall_ms"?} (0 or absent: no limit), each
    a number (TypeError otherwise, a bool included); the core refuses one out
    of range (INVALID_INPUT at budget.limits.<name>) on the first call. The
    core charges one step (and the call's tokens) before every attempt;
    state is what was spent so far ({"steps", "tokens", "started_ms"}).
    """

    def __init__(self, limits: Mapping[str, int]) -> None:
        if not isinstance(limits, Mapping):
            raise TypeError(f"limits must be a mapping, got {type(limits).__name__}")
        self.limits = {k: _number(f"limits[{k!r}]", v) for k, v in limits.items()}
        self.state: Optional[Dict[str, Any]] = None
        self._lock = threading.Lock()


class LoopGuard:
    """One agent run's loop guard (thread-safe): a call that failed threshold times
    in a row with the same arguments is refused with LOOP_DETECTED.

    threshold is a number (TypeError otherwise, a bool included); the core
    refuses one that is not a whole number from 1 (INVALID_INPUT at
    loop.threshold) on the first call: 0 is no default."""

    def __init__(self, threshold: int = 3) -> None:
        self.threshold = _number("threshold", threshold)
        self.state: Optional[Dict[str, Any]] = None
        self._lock = threading.Lock()


class ToolFailure(Exception):
    """Raise it from a tool to hand the executor your own envelope (e.g. from
    toolerr.classify_http on the tool's HTTP response)."""

    def __init__(self, envelope: Envelope) -> None:
        super().__init__(f"{envelope.code}: {envelope.message}")
        self.envelope = envelope


def failure_envelope(exc: BaseException, tool: Optional[str]) -> Envelope:
    """Return the envelope of a tool's exception, as the executor reports it.

    An exception with an .envelope (a ToolFailure, a ToolerrError) keeps its
    own; anything else goes to toolerr.classify_response as the tool's
    failure (HTTP errors and SDK exceptions by their status, headers and
    body; other exceptions through classify_exception).
    """
    env = _own_envelope(exc)
    if env is not None:
        return env
    # An exception that cannot be read whole (its __str__ or a property
    # raises, a status outside 100-599, a body json cannot write, a message
    # past the core's request limit) is classified with less of it, never
    # raised out of the executor: without its HTTP members, then by its type
    # alone.
    try:
        return classify_response(exc, source="tool", tool=tool)
    except Exception:
        pass
    try:
        return classify_exception(exc, tool=tool)
    except Exception:
        return _classify_exception_as(_type_name(exc), "", tool)


def _own_envelope(exc: BaseException) -> Optional[Envelope]:
    """The Envelope exc carries as .envelope (a ToolFailure, a ToolerrError), else None
    (also when reading .envelope raises)."""
    if type(exc) in _PLAIN_EXCEPTIONS and not exc.__dict__:
        return None
    try:
        env = getattr(exc, "envelope", None)
    except Exception:
        return None
    return env if isinstance(env, Envelope) else None


@dataclass(frozen=True)
class CallResult(Generic[T]):
    """How one call ended: value on success, else error (the envelope for the
    model); attempts is how many calls were made, exception the tool's last."""

    value: Optional[T]
    error: Optional[Envelope]
    attempts: int
    exception: Optional[BaseException] = None

    @property
    def ok(self) -> bool:
        """Whether the call succeeded."""
        return self.error is None

    def outcome(self, call_id: str, name: str) -> Outcome:
        """Return the Outcome to serialize: the envelope, or the value as text
        (a str), JSON (anything else) or empty (None)."""
        if self.error is not None:
            return Outcome(call_id, name, error=self.error)
        if self.value is None:
            return Outcome(call_id, name, result={})
        if isinstance(self.value, str):
            return Outcome(call_id, name, result={"text": self.value})
        return Outcome(call_id, name, result={"json": self.value})


def _result(stop: Mapping[str, Any], value: Any, exc: Optional[BaseException]) -> CallResult[Any]:
    """The CallResult of a call that ended with stop (the stop action): value
    on success, else the stop's error (copied when a nested detail may be
    shared) and exc. Its fields are set in its __dict__ as the frozen
    dataclass's __init__ sets them (each through object.__setattr__, about
    twice the cost of a successful call's own work), with no __post_init__
    to run."""
    r: CallResult[Any] = object.__new__(CallResult)
    d = r.__dict__
    if "error" in stop:
        err = stop["error"]
        if any(type(v) is dict or type(v) is list for v in err["details"].values()):
            err = copy.deepcopy(err)  # a stop read before may hold it (_ahead_read): the caller's own
        d["value"], d["error"], d["attempts"], d["exception"] = None, Envelope.from_dict(err), stop["attempts"], exc
    else:
        d["value"], d["error"], d["attempts"], d["exception"] = value, None, stop["attempts"], None
    return r


class _RecordText:
    """A record as the log message's argument, written as JSON only when a
    handler formats the message (a NullHandler never does)."""

    __slots__ = ("rec",)

    def __init__(self, rec: Record) -> None:
        self.rec = rec

    def __str__(self) -> str:
        return _record_json(self.rec)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


# The most stored bytes a step event carries (64 KiB; a breaker state is
# under 200). Longer ones, never a breaker state, go as a text that names
# their length (_oversized), the same in every binding: carried whole, a
# value past the core's request limit (32 MiB; Redis holds up to 512 MiB)
# made every call of the tool raise INVALID_INPUT, on every replica, and the
# key was never repaired.
_MAX_STORED_BYTES = 64 << 10


def _oversized(n: int) -> str:
    """The text stored bytes longer than _MAX_STORED_BYTES go as (n: their length)."""
    return f"toolerr: {n} stored bytes, more than a breaker state takes ({_MAX_STORED_BYTES})"


def _text(b: Optional[bytes]) -> Optional[str]:
    if b is None:
        return None
    return _oversized(len(b)) if len(b) > _MAX_STORED_BYTES else b.decode("utf-8", "replace")


def _literal(b: Optional[bytes], raw: Dict[str, bytes]) -> str:
    """The stored bytes as the JSON value a step event carries: a string, or null.

    A step carries the stored bytes as a JSON string, which holds UTF-8 text
    only (RFC 8259, section 8.1): bytes that are not UTF-8 go as their text
    with U+FFFD for each bad sequence (the core finds no breaker state in it
    and repairs the key), and raw maps that text to the bytes, so that the
    compare-and-swap from it compares against the bytes the store holds
    (_cas_old), not the text's, which no store holds. So do bytes longer than
    _MAX_STORED_BYTES, as the text _oversized names them by."""
    if b is None:
        return "null"
    if len(b) > _MAX_STORED_BYTES:
        text = _oversized(len(b))
        raw[text] = bytes(b)
        return _string(text)
    try:
        text = b.decode()
        if raw:
            raw.pop(text, None)
    except UnicodeDecodeError:
        text = b.decode("utf-8", "replace")
        raw[text] = bytes(b)
    return _string(text)


class _Answer:
    """The members of one step answer the runtime reads: the action, the
    decision records (None when nobody listens), the state as the core's
    JSON text (sent back as it is, never parsed; for an answer decided
    ahead, its value, written only if a step must carry it), budget, loop and replica
    when the step changed them, ahead, the answer to the event the
    action expects when the step decided it ahead (on_success, on_swapped or
    on_slept, an _Ahead), and stands, a start's {"if_loaded"} when its answer stands
    (its records are then always read, for the calls it is applied to)."""

    __slots__ = ("action", "records", "state", "budget", "loop", "replica", "ahead", "stands")

    def __init__(self, action: Dict[str, Any], records: Optional[List[Record]], state: Any, budget: Any = None,
                 loop: Any = None, replica: Any = None, ahead: Any = None, stands: Any = None) -> None:
        self.action, self.records, self.state = action, records, state
        self.budget, self.loop, self.replica, self.ahead, self.stands = budget, loop, replica, ahead, stands


class _Ahead(_Answer):
    """An answer decided ahead ({action, decisions, if_loaded, state,
    replica?} and the answer decided ahead inside it, docs/resilience.md,
    "The step op"), as the runtime applies it: action, replica and state
    (a value, written only if a step must carry it) as json reads them,
    if_loaded (the stored bytes as text, or None) it was decided on, ahead
    the _Ahead its action names (on_success, on_swapped, on_slept) or None,
    and decisions, its records as the core's JSON text (a list when the
    answer was read whole), read only for a call that hears them
    (own_records). records is None: one _Ahead is shared by every call its
    text repeats in (_read_at), and only read."""

    __slots__ = ("if_loaded", "decisions")

    def __init__(self, action: Dict[str, Any], decisions: Union[str, List[Record]], if_loaded: Optional[str],
                 replica: Any, state: Any, ahead: Optional[_Ahead]) -> None:
        # _Answer's members set here (its __init__ through super() and by
        # keyword cost a retried call about 1 µs).
        self.action, self.records, self.state, self.budget, self.loop = action, None, state, None, None
        self.replica, self.ahead, self.stands = replica, ahead, None
        self.if_loaded, self.decisions = if_loaded, decisions

    def own_records(self) -> List[Record]:
        """The decision records, in a list and dicts of the caller's own."""
        d = self.decisions
        if isinstance(d, str):
            records: List[Record] = _scan(d, 0)[0]
            return records
        return [dict(rec) for rec in d]


# The members an answer decided ahead comes in, named after the event it
# answers (one at most: the action's), in canonical key order.
_AHEAD_MEMBERS = (',"on_slept":', ',"on_success":', ',"on_swapped":')


_AHEAD_OF = {"call": "on_success", "cas": "on_swapped", "sleep": "on_slept"}


def _inner(answer: Mapping[str, Any]) -> Any:
    """The answer decided ahead inside an answer read whole (the member its action names), or None."""
    m = _AHEAD_OF.get(answer["action"]["kind"])
    return None if m is None else answer.get(m)


def _ahead_of(d: Mapping[str, Any]) -> _Ahead:
    """The _Ahead of an answer decided ahead read whole (a dict)."""
    inner = _inner(d)
    return _Ahead(d["action"], d["decisions"], d["if_loaded"], d.get("replica"), d["state"],
                  None if inner is None else _ahead_of(inner))


_OK_ACTION = '{"ok":{"action":'
_STANDS = ',"stands":'
_AHEAD_NAMES = frozenset(m[2:-2] for m in _AHEAD_MEMBERS)
# Per member name (action, if_loaded, replica, state and those of
# _AHEAD_NAMES), the texts of values read before and the values, by their
# first _KEY characters (those of the text, and of what follows a shorter
# one), newest first (_read_at): a retried call's chain repeats, from its
# sleep on, the text of the last retried call on the same breaker state,
# and the levels before it repeat their actions, if_loaded, replicas and
# states. A sleep's action, and an answer decided ahead whose action is a
# sleep, are not kept: their delay comes from the draw, so their texts
# seldom repeat. Bounded: _TEXTS_PER_KEY texts per key, and a member's
# texts are dropped when a key past _KEYS_KEPT comes. The values are shared: only read (an _Ahead's records are read
# for each call that hears them, the envelope of a stop is copied by
# _result); the budget and loop members, which a Budget and LoopGuard hand
# out, are never kept.
_KEY = 64
_KEYS_KEPT = 32
_TEXTS_PER_KEY = 2
_ahead_read: Dict[str, Dict[str, List[Tuple[str, Any]]]] = {}


def _read_at(s: str, i: int, name: str) -> Tuple[Any, int]:
    """The value of member name whose JSON text starts at s[i] (an _Ahead
    for an answer decided ahead, read by _level), and where it ends. A text
    read before is taken from _ahead_read: a JSON object, array or string
    ends at its closing brace, bracket or quote, and null is no prefix of
    another value, so when s holds one read before at i, the value at i is
    that one, ending where it ends (numbers, never these members' values,
    are not kept)."""
    key = s[i:i + _KEY]
    kept = _ahead_read.get(name)
    if kept is None:
        kept = _ahead_read[name] = {}
    else:
        texts = kept.get(key)
        if texts is not None:
            for text, value in texts:
                if s.startswith(text, i):
                    return value, i + len(text)
    value, end = _level(s, i) if name in _AHEAD_NAMES else _tail(s, i) if name == _TAIL else _scan(s, i)
    action = value.action if type(value) is _Ahead else value
    if end > 0 and s[i] in '{["n' and not (type(action) is dict and action.get("kind") == "sleep"):
        if len(kept) >= _KEYS_KEPT:
            kept.clear()
        # A new list, stored whole: another thread may be reading the old one.
        texts = kept.get(key)
        kept[key] = [(s[i:end], value)] + (texts[:_TEXTS_PER_KEY - 1] if texts else [])
    return value, end


def _level(s: str, i: int) -> Tuple[_Ahead, int]:
    """The answer decided ahead whose JSON text starts at s[i], and where it
    ends: read member by member in canonical key order, its action,
    if_loaded, replica, state and own answer decided ahead through
    _read_at, its records kept as their text (a flat list of flat objects:
    it ends at the first '],"if_loaded":' and holds no other '[', which the
    records of an answer inside it would). Anything unexpected is read
    whole by json's scanner."""
    if s.startswith('{"action":', i):
        action, j = _scan(s, i + 10) if s.startswith(_SLEEP, i + 10) else _read_at(s, i + 10, "action")
        if type(action) is dict and s.startswith(',"decisions":[', j):
            at = j + 13
            k = s.find('],"if_loaded":', at)
            if k > 0 and s.find("[", at + 1, k) < 0:
                name = _AHEAD_OF.get(action.get("kind"))  # type: ignore[arg-type]
                # A sleep's level, never kept whole (its delay comes from the
                # draw), has its members after the records kept as one text.
                tail, j = _read_at(s, k + 14, _TAIL) if name == "on_slept" else _tail(s, k + 14, name)
                if j > 0:
                    if_loaded, ahead, replica, state = tail
                    return _Ahead(action, s[at:k + 1], if_loaded, replica, state, ahead), j
    value, end = _scan(s, i)
    return _ahead_of(value), end


# How a sleep's action starts (canonical key order): its level, and the
# action, are never kept (_read_at), so they are read without looking them up.
_SLEEP = '{"delay_ms":'
# The name the members of a sleep's level after its records are kept by in
# _ahead_read (_tail): from its if_loaded to its closing brace.
_TAIL = "tail"


def _tail(s: str, i: int, name: Optional[str] = "on_slept") -> Tuple[Any, int]:
    """The members of a level after its records, its if_loaded's JSON text
    starting at s[i]: (if_loaded, the answer decided ahead under name or
    None, replica or None, state), each through _read_at, and where the
    level's closing brace ends; (None, -1) for any other shape. Read as one
    value (_read_at, _TAIL) for a sleep's level: a JSON value ends at its
    closing brace, bracket or quote, so the same text gives the same
    members, however it was read."""
    if_loaded, j = _read_at(s, i, "if_loaded")
    ahead = replica = None
    if name is not None and s.startswith(',"' + name + '":', j):
        ahead, j = _read_at(s, j + len(name) + 4, name)
    if s.startswith(',"replica":', j):
        replica, j = _read_at(s, j + 11, "replica")
    if s.startswith(',"state":', j):
        state, j = _read_at(s, j + 9, "state")
        if s.startswith("}", j):
            return (if_loaded, ahead, replica, state), j + 1
    return None, -1


def _read_answer(out: bytes, records: bool) -> _Answer:
    """Read a step answer: canonical JSON (RFC 8785), so its members come in
    key order (action, budget?, decisions, loop?, on_slept? | on_success? |
    on_swapped?, replica?, stands?, state), each value
    read where it starts by json's scanner, the action, the replica and the
    answer decided ahead through _read_at (taken from the last ones read
    when their text repeats). The decision records are flat
    objects, so when they are not wanted the list ends at the first "],\"" (a
    quote inside a string is escaped); they are read all the same, from
    where they start, in an answer that stands (its "stands" member, which
    only the top level holds). An answer of any other shape, an error
    included, goes through the whole-answer reader."""
    s = out.decode()
    if s.startswith(_OK_ACTION) and s.endswith("}}"):
        action, i = _read_at(s, 16, "action")
        budget = loop = replica = recs = ahead = stands = None
        if s.startswith(',"budget":', i):
            budget, i = _scan(s, i + 10)
        if s.startswith(',"decisions":', i):
            at = i + 13  # where the records start, read after all if the answer stands
            if records:
                recs, i = _scan(s, at)
            else:
                i = s.find('],"', at) + 1
            if i and s.startswith(',"loop":', i):
                loop, i = _scan(s, i + 8)
            if i:
                for m in _AHEAD_MEMBERS:
                    if s.startswith(m, i):
                        i += len(m)
                        ahead, i = _level(s, i) if s.startswith(_SLEEP, i + 10) else _read_at(s, i, m[2:-2])
                        break
            if i and s.startswith(',"replica":', i):
                replica, i = _read_at(s, i + 11, "replica")
            if i and s.startswith(_STANDS, i):
                stands, i = _scan(s, i + 10)
                if recs is None:
                    recs = _scan(s, at)[0]
            if i and s.startswith(',"state":', i):
                return _Answer(action, recs, s[i + 9:-2], budget, loop, replica, ahead, stands)
    r = _answer(out)
    stands, inner = r.get("stands"), _inner(r)
    return _Answer(r["action"], r["decisions"] if records or stands is not None else None, _json(r["state"]),
                   r.get("budget"), r.get("loop"), r.get("replica"), None if inner is None else _ahead_of(inner),
                   stands)


def _own_records(r: _Answer) -> _Answer:
    """r with its decision records in dicts of their own (a start answer
    kept, applied to many calls; the records of the answer it decided ahead
    are read for each call, _Ahead.own_records)."""
    records = None if r.records is None else [dict(rec) for rec in r.records]
    return _Answer(r.action, records, r.state, ahead=r.ahead, stands=r.stands)


class _Base:
    """What Executor and AsyncExecutor share: the request, the run's states,
    classification, reporting, and the loop as a generator of actions."""

    def __init__(self, *, store: Any = None, key_prefix: Optional[str] = None,
                 retry: Optional[Mapping[str, int]] = None, breaker: Optional[Mapping[str, int]] = None,
                 timeout: Optional[float] = None, budget: Optional[Budget] = None,
                 loop_guard: Optional[LoopGuard] = None,
                 classify: Optional[Callable[[BaseException, str], Envelope]] = None,
                 on_decision: Optional[Callable[[Record], None]] = None,
                 logger: Optional[logging.Logger] = None, clock: Optional[Callable[[], int]] = None,
                 draw: Optional[Callable[[], float]] = None, store_backoff: Optional[float] = None) -> None:
        self._shared: Any = store if store is not None else MemoryStore()
        # The replica's state (the step op's "replica"): one back-off window,
        # and per breaker key the last state seen in the store.
        self._replica_lock = threading.Lock()
        self._down_until_ms = 0
        self._seen: Dict[str, Optional[str]] = {}
        # Per key, a state of _seen and its JSON value, as a request carries
        # it: written by the step that sends it (_seen_json), not by every
        # change of the state (a retried call changes it twice, and sends it
        # once, as it was before the call).
        self._seen_text: Dict[str, Tuple[Optional[str], str]] = {}
        # _seen while down_until_ms is 0, else None: what an answer decided
        # ahead that changes no replica state, or a start answer kept, is
        # checked against without the lock (_decided, _kept). Written under
        # the lock; replaced whole, and the old one never changed again, when
        # down_until_ms changes, so that one read of it is a state the
        # replica was in.
        self._clear: Optional[Dict[str, Optional[str]]] = {}
        self._tools: Dict[str, Tuple[str, str]] = {}  # per tool: its requests' constant head and its key
        # Per tool, the last start answer that stood (the step op's "stands"),
        # for the tool's head: applied to a start it holds for (_kept). Kept
        # with its records, without them (for calls nobody hears) and its
        # if_loaded.
        self._stood: Dict[str, Tuple[_Answer, _Answer, Optional[str]]] = {}
        self._config: Dict[str, Any] = {}
        for k, v in (("key_prefix", key_prefix), ("policy", retry), ("settings", breaker)):
            if v is not None:
                self._config[k] = dict(v) if isinstance(v, Mapping) else v
        if timeout is not None:
            self._config["timeout_ms"] = _ms("timeout", timeout)
        if store_backoff is not None:
            self._config["store_backoff_ms"] = _ms("store_backoff", store_backoff)
        self.budget, self.loop_guard = budget, loop_guard
        self._classify = classify
        self._on_decision = on_decision
        self._logger = logger or _log
        self._clock = clock or _now_ms
        self._draw = draw or random.random

    def _step(self, head: str, key: str, tokens: Optional[int], state: str, event: str, records: bool) -> _Answer:
        # The request's text: the call's constant members (head, written
        # once per tool), the state as the core wrote it, the event's text.
        req = head + ',"state":' + state + ',"event":' + event + ',"now_ms":' + str(self._clock())
        b, g = self.budget, self.loop_guard
        if b is None and g is None:
            with self._replica_lock:
                req += ',"replica":{"down_until_ms":' + str(self._down_until_ms) + ',"state":' + \
                    self._seen_json(key) + "}}"
                r = _read_answer(invoke_bytes(req.encode()), records)
                if r.replica is not None:
                    self._replica(key, r.replica)
            return r
        # The replica's, the budget's and the loop guard's locks, always in
        # that order, held from reading their states to storing the answers
        # (plain acquire and release: an ExitStack cost 10-15% of a call).
        held: list[Any] = []
        try:
            for lock in [self._replica_lock] + [x._lock for x in (b, g) if x is not None]:
                lock.acquire()
                held.append(lock)
            parts = [req, ',"replica":{"down_until_ms":', str(self._down_until_ms), ',"state":',
                     self._seen_json(key), '}']
            if b is not None:
                budget: Dict[str, Any] = {"limits": b.limits, "state": b.state}
                if tokens:
                    budget["charge"] = {"tokens": tokens}
                parts += (',"budget":', _json(budget))
            if g is not None:
                loop = {"threshold": g.threshold, "state": g.state}
                parts += (',"loop":', _json(loop))
            parts.append("}")
            r = _read_answer(invoke_bytes("".join(parts).encode()), records)
            if b is not None and r.budget is not None:
                b.state = r.budget
            if g is not None and r.loop is not None:
                g.state = r.loop
            if r.replica is not None:
                self._replica(key, r.replica)
        finally:
            for lock in reversed(held):
                lock.release()
        return r

    def _decided(self, key: str, ahead: _Ahead, value: Any, listened: bool) -> Optional[_Answer]:
        """The answer the core decided ahead for the event the last action
        expected (on_success, on_swapped, on_slept), when it holds: the event
        came as expected (a success or slept whose load made ahead answered
        exactly if_loaded, a cas that swapped) and the replica is still
        {"down_until_ms": 0, "state": if_loaded}; the replica then takes the
        answer's, as a step's (docs/resilience.md, "The step op"). Else None
        (the step is sent): ahead itself when nobody hears the records."""
        if value is _NO_LOAD:
            return None
        held = ahead.if_loaded
        if value is not _SWAPPED and value != held:
            return None
        if ahead.replica is None:  # only read: checked without the lock (_clear)
            clear = self._clear
            if clear is None or clear.get(key) != held:
                return None
        else:
            with self._replica_lock:
                if self._down_until_ms != 0 or self._seen.get(key) != held:
                    return None
                self._replica(key, ahead.replica)
        if not listened:
            return ahead
        # Records of their own for each call: the answer may be one read
        # before (_ahead_read), and an on_decision may change them.
        return _Answer(ahead.action, ahead.own_records(), ahead.state, ahead=ahead.ahead)

    def _kept(self, tool: str, key: str, value: Any, listened: bool) -> Optional[_Answer]:
        """The start answer kept for tool (the last that stood), when it holds
        for this start: its load made ahead answered exactly if_loaded (value)
        and the replica is {"down_until_ms": 0, "state": if_loaded}. The
        core promised that the start step gets those very bytes then, at any
        time and with any arguments (docs/resilience.md, "A start answer that
        stands"); the executor has no caller deadline, and the tool's head,
        which the answer stood for, is the executor's. Else None (the step is
        sent)."""
        stood = self._stood.get(tool)
        # The answer stood for a call with no budget and no loop guard, which
        # are public attributes a caller may set after it (the next run's).
        if stood is None or value is _NO_LOAD or value != stood[2] or self.budget is not None or \
                self.loop_guard is not None:
            return None
        clear = self._clear  # only read: checked without the lock
        if clear is None or clear.get(key) != value:
            return None
        if not listened:
            return stood[1]
        # Each call's records are its own dicts, as a step's answer gives them,
        # so that an on_decision that changes them changes no other call's.
        return _own_records(stood[0])

    def _replica(self, key: str, replica: Mapping[str, Any]) -> None:
        """Keep the replica state a step answered (under the replica's lock),
        and _clear with it."""
        down = replica["down_until_ms"]
        seen = replica["state"]
        changed = self._seen.get(key, _NO_LOAD) != seen
        if changed:
            self._seen[key] = seen
        if down != self._down_until_ms:
            self._down_until_ms = down
            self._clear = dict(self._seen) if down == 0 else None
        elif changed and self._clear is not None:
            self._clear[key] = seen

    def _seen_json(self, key: str) -> str:
        """The state of key in _seen as the JSON value a step carries (under
        the replica's lock): written again only for a state that changed."""
        seen = self._seen.get(key)
        t = self._seen_text.get(key)
        if t is None or t[0] != seen:
            t = self._seen_text[key] = (seen, "null" if seen is None else _string(seen))
        return t[1]

    def replica_state(self, tool: str) -> Optional[bytes]:
        """Return the breaker state of tool this executor last saw in its store
        (or, while the store fails, made from it), as its canonical bytes."""
        with self._replica_lock:
            s = self._seen.get(str(self._config.get("key_prefix") or "toolerr:breaker:") + tool)
        return None if s is None else s.encode()

    def _report(self, rec: Record, logged: bool) -> None:
        """Give rec to on_decision, and to the logger at its level when logged
        (_heard, asked once per call)."""
        if self._on_decision is not None:
            self._on_decision(rec)
        level = _levels.get(rec.get("level", "debug"), logging.DEBUG)
        if logged and self._logger.isEnabledFor(level):
            self._logger.log(level, "toolerr decision %s", _RecordText(rec), extra={"toolerr": rec})

    def _key(self, tool: str) -> str:
        return str(self._config.get("key_prefix") or "toolerr:breaker:") + tool

    def _head(self, tool: str) -> Tuple[str, str]:
        """The step requests' constant members for tool, as JSON text without its
        closing brace, and the tool's breaker key (both kept per tool)."""
        t = self._tools.get(tool)
        if t is None:
            # Every step may decide ahead the answer to the event its action
            # expects: a call's success, a cas that swapped, a sleep that ended;
            # and a start says whether its answer stands.
            t = self._tools[tool] = (_json(dict(self._config, op="step", tool=tool, on_success=True, on_swapped=True,
                                                on_slept=True, standing=True))[:-1], self._key(tool))
        return t

    def _ahead(self, event: Event, kind: str) -> bool:
        """Whether event, sent after an action of kind ("start" before the
        first), gets a load made ahead: one that may carry it, while the store
        is not left alone after failing (the replica's down_until_ms is 0)."""
        return self._down_until_ms == 0 and (event[0] in _AHEAD or (event[0] == "cancelled" and kind == "call"))

    def _steps(self, tool: str, head: str, key: str, args: Any, tokens: Optional[int], raw: Dict[str, bytes],
               logged: Optional[bool] = None, resume: Optional[Tuple[_Answer, Optional[Sent]]] = None
               ) -> Generator[Dict[str, Any], Sent, Dict[str, Any]]:
        """Yield the actions of one call and receive the events (Sent); return the stop action.

        The first action is {"kind": "start"}: the caller answers with the
        start event (with its load made ahead, see _ahead). head and key are
        the tool's (_head). An event's text is written only for the step
        that carries it (_closed; raw: the call's stored bytes that are not
        UTF-8, see _literal). logged is _heard's answer when the caller
        asked it already. resume (answer, sent) goes on with a call whose
        records nobody hears, started by the caller (Executor.call): answer
        is the one it applied, sent the event of its action (None: the
        action not yet performed), so the first action yielded is the one
        after it."""
        sent: Optional[Sent] = None
        r: Optional[_Answer]
        if resume is not None:
            r, sent = resume
            logged = listened = False
        else:
            event, loaded, value, retry = yield _START_ACTION
            # Whether anyone hears the call's decision records, as it starts (a
            # level set on the logger during a call applies from the next one).
            if logged is None:
                logged = _heard(self._logger)
            listened = logged or self._on_decision is not None
            r = self._start(tool, head, key, args, tokens, raw, event, loaded, value, listened)
        while True:
            state, ahead = r.state, r.ahead
            if sent is None:
                if r.records is not None:
                    for rec in r.records:
                        self._report(rec, logged)
                action: Dict[str, Any] = r.action
                if action["kind"] == "stop":
                    return action
                event, loaded, value, retry = yield action
            else:
                (event, loaded, value, retry), sent = sent, None
            r = self._decided(key, ahead, value, listened) if ahead is not None else None
            if r is None:
                if type(state) is not str:  # the state of an answer decided ahead, written when a step carries it
                    state = _json(state)
                try:
                    r = self._step(head, key, tokens, state, _closed(event, loaded, raw), listened)
                except ToolerrError:
                    if retry is None:
                        raise
                    # The core refused the failure's classify request: the
                    # envelope classified as before (its fallbacks included).
                    r = self._step(head, key, tokens, state, _closed(retry(), loaded, raw), listened)
            elif raw:
                _closed(event, loaded, raw)  # raw as a step would leave it

    def _kept_call(self, tool: str, key: str, start: Sent, raw: Dict[str, bytes]) -> Optional[_Answer]:
        """The start answer kept for tool whose call the executor makes
        itself, with no step loop entered, after the start event start: when
        the answer holds for it (_kept), nobody hears the records (no
        on_decision, the logger not _heard), its action is the tool's call
        and no stored bytes are not UTF-8 (raw empty). Else None: the loop is
        entered and sent the start. A successful call's generator, its sends
        and its StopIteration cost about a third of the call."""
        if self._on_decision is not None or tool not in self._stood or _heard(self._logger) or raw:
            return None
        r = self._kept(tool, key, start[2], False)
        return r if r is not None and r.action["kind"] == "call" else None

    def _called(self, key: str, kept: _Answer, sent: Sent,
                raw: Dict[str, bytes]) -> Union[Dict[str, Any], Tuple[_Answer, Optional[Sent]]]:
        """What follows the call of a start answer kept (_kept_call), whose
        event is sent: the stop action when the answer decided ahead for a
        success holds and is the stop (the call's end); else the resume of
        the step loop (_steps), on that answer when it holds (its action not
        yet performed), else on kept with sent."""
        if sent[0] is _SUCCESS and kept.ahead is not None and not raw:
            d = self._decided(key, kept.ahead, sent[2], False)
            if d is not None:
                return d.action if d.action["kind"] == "stop" else (d, None)
        return kept, sent

    def _start(self, tool: str, head: str, key: str, args: Any, tokens: Optional[int], raw: Dict[str, bytes],
               event: Event, loaded: Any, value: Any, listened: bool) -> _Answer:
        """The start's answer: the answer kept for the tool when it holds, else its step's."""
        state = "null"
        r = self._kept(tool, key, value, listened)
        if r is None:
            text = _closed(event, loaded, raw)
            if args is not None:
                text = text[:-1] + ',"args":' + _json(args) + "}"
            r = self._step(head, key, tokens, state, text, listened)
            if r.stands is not None:
                # Kept apart from the records this call reports (and its
                # on_decision may change).
                kept = _own_records(r)
                self._stood[tool] = (kept, _Answer(kept.action, None, kept.state, ahead=kept.ahead),
                                     r.stands["if_loaded"])
        elif raw:
            _closed(event, loaded, raw)  # raw as a step would leave it
        return r

    def _failure(self, exc: BaseException, tool: str) -> Tuple[Event, Optional[Callable[[], Event]]]:
        """The failure event of exc, and when it carries the request that
        classifies exc (classify, classified in the step), the event with
        the envelope classified here instead, for a core that refuses it."""
        env = _own_envelope(exc)
        text = _draw_text(self._draw())
        if env is None and self._classify is None:
            # The request failure_envelope sends first, inside the step: one
            # crossing instead of two, the same envelope.
            try:
                req = _response_request_text(exc, tool)
            except Exception:  # an exception that cannot be read whole, or written as JSON
                req = None
            if req is not None:
                return ("failure", '{"kind":"failure","classify":' + req + ',"draw":' + text), \
                    lambda: self._failed(exc, tool, None, text)
        return self._failed(exc, tool, env, text), None

    def _failed(self, exc: BaseException, tool: str, env: Optional[Envelope], draw: str) -> Event:
        """The failure event with exc's envelope (env, else classified here) and the draw's text."""
        if env is None:
            env = self._classify(exc, tool) if self._classify else failure_envelope(exc, tool)
        return "failure", '{"kind":"failure","error":' + env.wire().decode() + ',"draw":' + draw


_CAS_SWAPPED: Event = ("cas", '{"kind":"cas","swapped":true,"current":null')


def _store_event(action: Mapping[str, Any], answer: Any, raw: Dict[str, bytes]) -> Tuple[Event, Any]:
    """The store's answer as its event, and _SWAPPED for a cas that swapped (else _NO_LOAD)."""
    if action["kind"] == "load":
        return ("loaded", '{"kind":"loaded","value":' + _literal(answer, raw)), _NO_LOAD
    swapped, cur = answer
    if swapped:
        return _CAS_SWAPPED if cur is None else \
            ("cas", '{"kind":"cas","swapped":true,"current":' + _literal(cur, raw)), _SWAPPED
    return ("cas", '{"kind":"cas","swapped":false,"current":' + _literal(cur, raw)), _NO_LOAD


def _loaded(answer: Optional[bytes], raw: Dict[str, bytes]) -> str:
    return '{"kind":"loaded","value":' + _literal(answer, raw) + "}"


def _store_error(exc: BaseException) -> str:
    try:
        message = str(exc)
    except Exception:  # a __str__ that raises
        message = ""
    return '{"kind":"store_error","message":' + _string(message or type(exc).__name__) + "}"


def _closed(event: Event, loaded: Any, raw: Dict[str, bytes]) -> str:
    """The event's JSON text, with its load made ahead: loaded is the bytes
    the load answered or None (written here, _literal keeping raw), the text
    of its event (a store_error), or _NO_LOAD (none)."""
    if loaded is _NO_LOAD:
        return event[1] + "}"
    return event[1] + ',"loaded":' + (loaded if type(loaded) is str else _loaded(loaded, raw)) + "}"


def _held(event: Event, b: Any, raw: Dict[str, bytes], retry: Optional[Callable[[], Event]]) -> Sent:
    """What the step loop is sent for event whose load made ahead answered b
    (the stored bytes, or None): b itself, written only for a step that
    carries it, when it is bytes as the Store port says (anything else is
    written now, so that what cannot be raises here, as a store's error);
    for a start, a success or a slept the value it answered (what an answer
    decided ahead, or a start answer kept, is checked against); and retry
    (the failure's event classified before, _failure)."""
    loaded = b if b is None or type(b) is bytes else _loaded(b, raw)
    return event, loaded, _text(b) if event is _SUCCESS or event is _SLEPT or event is _START else _NO_LOAD, retry


def _cas_old(action: Mapping[str, Any], raw: Dict[str, bytes]) -> Optional[bytes]:
    """The bytes a cas compares against: the stored bytes the action's old
    text was read from (raw, for bytes that are not UTF-8), else its UTF-8."""
    old = action["old"]
    return None if old is None else raw.get(old) or str(old).encode()


class Executor(_Base):
    """Runs tool calls under the core's decisions, with threads and time.sleep.

    store is a Store shared between replicas (default: this executor's memory);
    key_prefix goes before the tool name in its keys ("toolerr:breaker:").
    retry is the retry policy ({"max_attempts": 3, "base_ms": 500,
    "cap_ms": 8000, "max_wait_ms": 120000} by default), breaker the breaker
    settings ({"failure_threshold": 3, "open_ms": 30000,
    "success_threshold": 2}), timeout the bound on one call in seconds,
    retries and sleeps included; store_backoff how long, in seconds, a failed
    store is left alone (default 1; meanwhile the breaker decides on the last
    state this executor saw there); both are numbers (TypeError otherwise, a
    bool included) rounded up to whole ms, and a 0, a negative or a NaN makes
    the first call raise ToolerrError (INVALID_INPUT, details.path timeout_ms
    or store_backoff_ms). budget and loop_guard are the run's.
    classify(exc, tool) turns a tool's exception into an Envelope (default:
    toolerr.classify_response, which reads HTTP errors and exceptions, its
    request sent inside the failure's step so that classifying and deciding
    are one crossing; a ToolFailure, or any exception with an .envelope,
    keeps its own).
    on_decision receives every decision record (a dict); logger (default
    logging.getLogger("toolerr")) logs each as "toolerr decision <json>" at
    its level (no record is made when only a NullHandler would receive it:
    _heard). clock returns ms since the Unix epoch, sleep(seconds) waits,
    draw returns a uniform float in [0, 1): defaults time.time_ns, time.sleep,
    random.random.
    """

    def __init__(self, *, sleep: Optional[Callable[[float], None]] = None, **options: Any) -> None:
        super().__init__(**options)
        self._sleep = sleep or time.sleep

    def call(self, tool: str, fn: Callable[[], T], *, args: Any = None, tokens: Optional[int] = None,
             cancel: Optional[threading.Event] = None) -> CallResult[T]:
        """Call fn() for tool with retries, the breaker, the budget and the loop guard.

        args (JSON-serializable) are the call's arguments, compared by the loop
        guard; tokens is charged to the budget with each attempt. Setting
        cancel ends a backoff sleep at once (CANCELLED). Returns a CallResult;
        never raises for the tool's failures (KeyboardInterrupt and other
        BaseExceptions that are not Exceptions propagate).
        """
        raw: Dict[str, bytes] = {}  # stored bytes that are not UTF-8, by the text the core was given (_literal)
        head, key = self._head(tool)
        value: Any = None
        exc: Optional[BaseException] = None
        retry: Optional[Callable[[], Event]] = None
        store = self._shared
        try:
            if self._on_decision is None and tool in self._stood:
                # A start answer may be kept for the tool: its call is then
                # made here, the loop entered after it only when needed.
                start = self._sent_ahead(store, key, raw, _START, None)
                kept = self._kept_call(tool, key, start, raw)
                if kept is None:
                    gen = self._steps(tool, head, key, args, tokens, raw)
                    next(gen)
                    action = gen.send(start)
                else:
                    try:
                        value = fn()
                        event = _SUCCESS
                    except Exception as e:
                        exc = e
                        event, retry = self._failure(e, tool)
                    resume = self._called(key, kept, self._sent_ahead(store, key, raw, event, retry), raw)
                    if isinstance(resume, dict):
                        return _result(resume, value, None)
                    gen = self._steps(tool, head, key, args, tokens, raw, False, resume)
                    del resume  # its sent holds retry
                    action = next(gen)
            else:
                gen = self._steps(tool, head, key, args, tokens, raw)
                action = next(gen)
            while True:
                kind = action["kind"]
                if kind == "load" or kind == "cas":
                    held = _NO_LOAD
                    try:
                        answer = store.load(action["key"]) if kind == "load" else \
                            store.compare_and_swap(action["key"], _cas_old(action, raw), action["new"].encode())
                        event, held = _store_event(action, answer, raw)
                    except Exception as e:
                        event = ("store_error", _store_error(e)[:-1])
                    action = gen.send((event, _NO_LOAD, held, None))
                    continue
                retry = None
                if kind == "call":
                    try:
                        value, exc = fn(), None
                        event = _SUCCESS
                    except Exception as e:
                        exc = e
                        event, retry = self._failure(e, tool)
                elif kind == "start":
                    event = _START
                else:  # sleep
                    if cancel is not None and self._sleep is time.sleep:
                        cancel.wait(action["delay_ms"] / 1000)
                    else:
                        self._sleep(action["delay_ms"] / 1000)
                    event = _CANCELLED if cancel is not None and cancel.is_set() else _SLEPT
                loaded = held = _NO_LOAD
                # _ahead and _ahead_loaded, written out: two calls fewer per event.
                if self._down_until_ms == 0 and (event[0] in _AHEAD or (event[0] == "cancelled" and kind == "call")):
                    try:
                        b = store.load(key)
                        loaded = b if b is None or type(b) is bytes else _loaded(b, raw)
                        if event is _SUCCESS or event is _SLEPT or event is _START:
                            held = _text(b)
                    except Exception as e:
                        loaded = _store_error(e)
                action = gen.send((event, loaded, held, retry))
        except StopIteration as stop:
            return _result(stop.value, value, exc)
        finally:
            # The failure's exception (exc, and the retry that holds it) has
            # a traceback holding this frame: neither is kept in it once the
            # call returns, so that the exception, and a CallResult holding
            # it, is freed with its last reference, not left to the cyclic
            # collector (the value returned is computed before this runs).
            exc = retry = None

    def _sent_ahead(self, store: Any, key: str, raw: Dict[str, bytes], event: Event,
                    retry: Optional[Callable[[], Event]]) -> Sent:
        """What the step loop is sent for a start, a success or a failure
        (events that carry a load made ahead), as call's loop sends it: the
        load made while the store is not left alone, and for a start or a
        success the value it answered."""
        loaded = held = _NO_LOAD
        if self._down_until_ms == 0:
            try:
                b = store.load(key)
                loaded = b if b is None or type(b) is bytes else _loaded(b, raw)
                if event is not _START and event is not _SUCCESS:
                    return event, loaded, held, retry
                held = _text(b)
            except Exception as e:
                loaded = _store_error(e)
        return event, loaded, held, retry


class AsyncExecutor(_Base):
    """Executor for asyncio: fn returns an awaitable, sleep is asyncio.sleep, the
    store may be an AsyncStore (or a Store). A call's timeout is enforced with
    asyncio.wait_for (a TIMEOUT failure). Cancelling the task that awaits call
    reports the cancellation to the breaker (freeing a half-open probe), then
    re-raises asyncio.CancelledError, as asyncio code expects.
    """

    def __init__(self, *, sleep: Optional[Callable[[float], Awaitable[None]]] = None, **options: Any) -> None:
        super().__init__(**options)
        self._sleep = sleep or asyncio.sleep

    async def call(self, tool: str, fn: Callable[[], Awaitable[T]], *, args: Any = None,
                   tokens: Optional[int] = None) -> CallResult[T]:
        """Await fn() for tool with retries, the breaker, the budget and the loop guard.

        See Executor.call; returns a CallResult, raises asyncio.CancelledError
        when the awaiting task is cancelled.
        """
        raw: Dict[str, bytes] = {}  # stored bytes that are not UTF-8, by the text the core was given (_literal)
        head, key = self._head(tool)
        gen: Any = None  # the step loop, entered after the start (_kept_call)
        kept: Optional[_Answer] = None  # the start answer kept whose call is made before the loop
        action: Dict[str, Any] = _START_ACTION
        value: Any = None
        exc: Optional[BaseException] = None
        cancelled: Optional[BaseException] = None
        retry: Optional[Callable[[], Event]] = None
        sent: Optional[Sent] = None
        resume: Any = None  # what follows the kept answer's call (_called)
        store = self._shared
        try:
            while True:
                kind = action["kind"]
                if kind == "load" or kind == "cas":
                    held = _NO_LOAD
                    try:
                        answer: Union[Any, Awaitable[Any]] = store.load(action["key"]) if kind == "load" else \
                            store.compare_and_swap(action["key"], _cas_old(action, raw), action["new"].encode())
                        if inspect.isawaitable(answer):
                            answer = await answer
                        event, held = _store_event(action, answer, raw)
                    except Exception as e:
                        event = ("store_error", _store_error(e)[:-1])
                    action = gen.send((event, _NO_LOAD, held, None))
                    continue
                retry = None
                if kind == "call":
                    timeout = action.get("timeout_ms")
                    try:
                        value = await (asyncio.wait_for(fn(), timeout / 1000) if timeout else fn())
                        exc, event = None, _SUCCESS
                    except asyncio.TimeoutError as e:  # the call's own timeout, or one the tool raised
                        exc = e
                        if timeout:
                            event = _DEADLINE
                        else:
                            event, retry = self._failure(e, tool)
                    except asyncio.CancelledError as e:
                        exc, cancelled, event = e, e, _CANCELLED
                    except Exception as e:
                        exc = e
                        event, retry = self._failure(e, tool)
                elif kind == "start":
                    event = _START
                else:  # sleep
                    try:
                        await self._sleep(action["delay_ms"] / 1000)
                        event = _SLEPT
                    except asyncio.CancelledError as e:
                        cancelled, event = e, _CANCELLED
                if self._ahead(event, kind):
                    try:
                        answer = store.load(key)
                        # A Store's bytes or None, else an AsyncStore's awaitable.
                        if answer is not None and type(answer) is not bytes and inspect.isawaitable(answer):
                            answer = await answer
                        sent = _held(event, answer, raw, retry)
                    except Exception as e:
                        sent = (event, _store_error(e), _NO_LOAD, retry)
                else:
                    sent = (event, _NO_LOAD, _NO_LOAD, retry)
                if gen is not None:
                    action = gen.send(sent)
                elif kept is None:  # the start: its kept answer's call made here, or the loop entered
                    kept = self._kept_call(tool, key, sent, raw)
                    if kept is not None:
                        action = kept.action
                        continue
                    gen = self._steps(tool, head, key, args, tokens, raw)
                    next(gen)
                    action = gen.send(sent)
                else:
                    resume = self._called(key, kept, sent, raw)
                    if isinstance(resume, dict):
                        return _result(resume, value, None)
                    gen = self._steps(tool, head, key, args, tokens, raw, False, resume)
                    action = next(gen)
        except StopIteration as stop:
            if cancelled is not None:
                raise cancelled
            return _result(stop.value, value, exc)
        finally:
            # As in Executor.call: no reference to the failure's exception
            # (whose traceback holds this coroutine's frame) is kept in it.
            exc = cancelled = retry = sent = resume = None
