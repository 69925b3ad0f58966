"""What toolerr.integrations.httpx and toolerr.integrations.httpx2 share: the
egress transports built for either module (see toolerr.integrations.httpx)."""

from __future__ import annotations

import functools
import json
import logging
import re
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any, AsyncIterator, Callable, Dict, Iterator, List, Mapping, Optional, Tuple, Union

from .. import Envelope, ToolerrError, _error_text, _transcript_op, canonicalize, invoke


log = logging.getLogger("toolerr.egress")

MAX_REQUEST_BYTES = 32 << 20  # the core's request bound (core.MaxRequestBytes): larger bodies go unread
MAX_ERROR_BYTES = 1 << 20  # an upstream error body is read up to 1 MiB, as the gateway reads it
MAX_EVENT_BYTES = 4 << 20  # a longer stream event (an image chunk) passes unread, as in the gateway

# Upstream headers the rewritten error response does not keep: its body is
# new (length, encoding, type), and the wait hints (RFC 9110, 10.2.3
# Retry-After; the retry-after-ms the OpenAI and Anthropic SDKs read first)
# go whatever the op says: it gives the wait it read from them, and none for
# one it could not read (-5, abc, 1e9). The error op's headers replace these.
_DROPPED = frozenset({"content-length", "content-encoding", "transfer-encoding", "content-type",
                      "retry-after", "retry-after-ms"})

_BOM = b"\xef\xbb\xbf"  # U+FEFF in UTF-8

# A success outside a stream is read this far to tell whether it may be an error
# object in place of the answer (Gemini's 200 {"error":{...}}): at most 64
# bytes, as egress.RewriteSuccessError holds (core.EgressSuccessHead).
SUCCESS_HEAD_BYTES = 64


def may_be_error_object(head: bytes) -> bool:
    """Whether head, the first SUCCESS_HEAD_BYTES of a success's body (or all of
    a shorter one), may open an error object in place of the answer: "{" first
    (after a UTF-8 BOM and JSON white space) and "error" named in it. A cheap gate
    only, looser than the core's rule: such a body is read whole (up to
    MAX_ERROR_BYTES) and the core decides (the error op's ``http`` status
    200-299: the failure it stands for, or ``pass``); any other passes unread."""
    h = head[len(_BOM):] if head.startswith(_BOM) else head
    return h.lstrip(b" \t\r\n")[:1] == b"{" and b'"error"' in h


@dataclass(frozen=True)
class Endpoint:
    """The provider API a request calls, known from its method and URL path.

    ``api`` names it as the gateway's routes do (``chat_completions``,
    ``responses``, ``messages``, ``count_tokens``, ``generate_content``,
    ``stream_generate_content``); ``format`` is the wire format of its
    request bodies and of the errors its SDK parses (``openai-chat``,
    ``openai-responses``, ``anthropic``, ``gemini``); ``model`` the model
    named in a Gemini path (``""`` for the others, whose bodies name it).
    """

    api: str
    format: str
    model: str = ""


@functools.lru_cache(maxsize=256)
def endpoint_of(method: str, path: str) -> Optional[Endpoint]:
    """Return the endpoint a request of method to path calls, None for any other.

    The core decides (the egress_endpoint op), as it does for every
    binding's transport and the gateway. ``path`` is the URL path
    percent-encoded, as it goes on the wire (httpx's ``URL.raw_path``
    without its query). It is matched
    by its end, so a base URL with a prefix is the provider's own:
    ``/v1/chat/completions``, Azure OpenAI's
    ``/openai/deployments/d/chat/completions`` and Gemini's OpenAI-compatible
    ``/v1beta/openai/chat/completions`` are Chat Completions;
    ``/v1/messages`` ends Anthropic's paths (the Assistants API's
    ``/v1/threads/t/messages`` is not one); ``.../models/{model}:generateContent``
    is Gemini's on the Gemini API and on Vertex AI alike, its model decoded.
    Only POST. Answers are cached (256 method and path pairs).
    """
    ep = invoke({"op": "egress_endpoint", "method": method, "path": path})["endpoint"]
    return None if ep is None else Endpoint(ep["api"], ep["format"], ep["model"])


def _wire_path(url: Any) -> str:
    """The path of an httpx URL percent-encoded, as sent (raw_path without its query)."""
    return bytes(url.raw_path).split(b"?", 1)[0].decode("ascii", "replace")


@dataclass(frozen=True)
class StreamError:
    """One error event inside a stream, as the client's stream now carries it.

    ``envelope`` is the five fields; ``event`` the event name written
    (``""`` for a data-only event, as Chat Completions and Gemini send
    errors) and ``data`` its data (canonical JSON, the envelope under
    ``toolerr``); ``endpoint`` the API the request called.
    """

    endpoint: Endpoint
    envelope: Envelope
    event: str
    data: bytes


Reporter = Callable[[Any, StreamError], None]
PrepareHook = Callable[[Any, Endpoint, Dict[str, Any]], None]


class _Egress:
    """The I/O both transports share: op requests built, op results written
    (h is the httpx module, httpx or httpx2)."""

    def __init__(self, h: ModuleType, drop_upstream_message: bool, on_prepare: Optional[PrepareHook],
                 on_stream_error: Optional[Reporter], clock: Callable[[], float]) -> None:
        self._h = h
        self._drop = drop_upstream_message
        self._on_prepare = on_prepare
        self._on_stream_error = on_stream_error
        self._clock = clock

    def prepare(self, request: Any, ep: Endpoint, raw: bytes) -> Any:
        """Return the request to send: request with the body the request op gave, or as it came."""
        body = raw
        if len(raw) <= MAX_REQUEST_BYTES:
            try:  # the bytes go to the core unparsed (toolerr's transcript ops take JSON text)
                rep = _transcript_op("egress_request", {"format": ep.format, "model": ep.model or None}, None, raw)
            except (ValueError, ToolerrError):
                rep = None  # unreadable: the upstream answers it in its own words
            if rep is not None:
                if rep["changed"]:
                    body = canonicalize(rep["body"]).encode()
                if self._on_prepare is not None:
                    self._on_prepare(request, ep, {k: v for k, v in rep.items() if k != "body"})
        headers = self._h.Headers(request.headers)
        for name in ("content-length", "transfer-encoding"):
            headers.pop(name, None)
        headers["content-length"] = str(len(body))
        return self._h.Request(request.method, request.url, headers=headers, content=body,
                             extensions=request.extensions)

    def _error_request(self, ep: Endpoint, upstream: Dict[str, Any]) -> Dict[str, Any]:
        upstream = {"provider": ep.format, "now_ms": int(self._clock() * 1000), **upstream}
        req: Dict[str, Any] = {"op": "egress_error", "ingress": ep.format, "upstream": upstream}
        if self._drop:
            req["upstream_message"] = "drop"
        return req

    def error_response(self, request: Any, ep: Endpoint, resp: Any,
                       body: bytes) -> Any:
        """Return the client's response for an upstream error response whose body (decoded) is body."""
        headers: Dict[str, List[str]] = {}
        for k, v in resp.headers.multi_items():
            headers.setdefault(k, []).append(v)
        rep = invoke(self._error_request(ep, {"http": {
            "status": resp.status_code, "headers": headers, "body": body.decode("utf-8", "replace")}}))
        return self._reply(request, rep, [(k, v) for k, v in resp.headers.multi_items()], resp.extensions)

    def success_response(self, request: Any, ep: Endpoint, resp: Any, body: bytes) -> Optional[Any]:
        """Return the client's response for an upstream success (not a stream) whose
        whole body (decoded) is body, when the core tells it an error object in place
        of the answer (the error op's ``http`` status 200-299), else None: it passes.
        A body the gate (may_be_error_object) lets pass is not sent to the core."""
        if not may_be_error_object(body[:SUCCESS_HEAD_BYTES]):
            return None
        headers: Dict[str, List[str]] = {}
        for k, v in resp.headers.multi_items():
            headers.setdefault(k, []).append(v)
        try:
            rep = invoke(self._error_request(ep, {"http": {
                "status": resp.status_code, "headers": headers, "body": body.decode("utf-8", "replace")}}))
        except ToolerrError:
            return None
        if rep.get("pass"):
            return None
        return self._reply(request, rep, [(k, v) for k, v in resp.headers.multi_items()], resp.extensions)

    def transport_response(self, request: Any, ep: Endpoint, exc: Exception) -> Any:
        """Return the client's response for an upstream that never answered (exc, an httpx.TransportError)."""
        rep = invoke(self._error_request(ep, {"error_text": _error_text(exc)}))
        return self._reply(request, rep, [], {})

    def _reply(self, request: Any, rep: Dict[str, Any], upstream: List[Tuple[str, str]],
               extensions: Dict[str, Any]) -> Any:
        replaced = {k.lower() for k in rep["headers"]}
        headers = [(k, v) for k, v in upstream if k.lower() not in _DROPPED and k.lower() not in replaced]
        headers += list(rep["headers"].items())
        ext = {k: v for k, v in extensions.items() if k in ("http_version", "reason_phrase")}
        return self._h.Response(rep["status"], headers=headers, content=canonicalize(rep["body"]).encode(),
                              request=request, extensions=ext)

    def stream_event(self, request: Any, ep: Endpoint, raw: bytes, emitted: bool,
                     first: bool = False) -> Tuple[bytes, bool]:
        """Return what the client gets for one complete event (raw, its blank line included)
        and whether output has now been streamed; first is true for the stream's first event.

        The first event is read without one leading UTF-8 BOM, which the WHATWG
        parser ignores ("One leading U+FEFF BYTE ORDER MARK character must be
        ignored if any are present",
        https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream),
        or "\ufeffdata" would hide an error event; a passed event keeps it.
        """
        name, data = _parse_event(raw[len(_BOM):] if first and raw.startswith(_BOM) else raw)
        is_error = _is_error_event(name, data)
        if is_error is None:
            # Nested too deep for json.loads (it raised RecursionError out of the
            # stream): the core's rule for an event too long to hold decides (data
            # that opens with an "error" object), and the reply is read without it.
            rep = self.long_error(ep, raw, emitted, first)
            if rep is not None:
                return self.stream_write(request, ep, rep, _line_end(raw)), emitted
        if not is_error:
            return raw, emitted or (bool(data) and name != "ping")
        rep = self._stream_reply(ep, {"event": name, "data": data.decode("utf-8", "replace")}, emitted)
        return (raw if rep is None else self.stream_write(request, ep, rep, _line_end(raw))), emitted

    def long_error(self, ep: Endpoint, held: bytes, emitted: bool, first: bool) -> Optional[Dict[str, Any]]:
        """Return the error op's reply for held, the first MAX_EVENT_BYTES (about) of an
        event too long to hold, its last line cut, when the core tells it an error event
        (the op's ``upstream.sse_event.head``; the reply is read without its data), else None."""
        head = held[len(_BOM):] if first and held.startswith(_BOM) else held
        rep = self._stream_reply(ep, {"head": head.decode("utf-8", "replace")}, emitted)
        return None if rep is None or rep.get("pass") else rep

    def _stream_reply(self, ep: Endpoint, event: Dict[str, Any], emitted: bool) -> Optional[Dict[str, Any]]:
        try:
            return invoke(self._error_request(ep, {"sse_event": {  # type: ignore[no-any-return]
                **event, "content_emitted": emitted}}))
        except ToolerrError:
            return None

    def stream_write(self, request: Any, ep: Endpoint, rep: Mapping[str, Any], eol: bytes) -> bytes:
        """Return rep's event, its lines ended by eol, and report it."""
        ev = self.reported(request, ep, rep)
        out = ev.data
        # Written with the line end of the event it replaces: a reader that splits
        # on one kind only (go-genai splits on "\n\n" before "\r\n\r\n") would
        # otherwise join a CRLF stream's previous event to it.
        head = b"event: " + ev.event.encode() + eol if ev.event else b""
        return head + b"data: " + out + eol + eol

    def reported(self, request: Any, ep: Endpoint, rep: Mapping[str, Any]) -> StreamError:
        """Return rep, the error op's reply for an error inside a stream, as the
        StreamError reported (its data the canonical JSON the client gets), reporting it."""
        ev = StreamError(ep, Envelope.from_dict(rep["envelope"]), rep["event"], canonicalize(rep["data"]).encode())
        self._report(request, ev)
        return ev

    def _report(self, request: Any, ev: StreamError) -> None:
        if self._on_stream_error is None:
            log.warning("toolerr egress: an error event inside a stream: api=%s code=%s retryable=%s",
                        ev.endpoint.api, ev.envelope.code, ev.envelope.retryable)
            return
        try:
            self._on_stream_error(request, ev)
        except Exception:  # a reporter's own failure must not break the stream the SDK reads
            log.exception("toolerr egress: on_stream_error raised")


def _is_event_stream(resp: Any) -> bool:
    media: str = resp.headers.get("content-type", "").split(";", 1)[0]
    return media.strip().lower() == "text/event-stream"


def _event_end(b: bytes, start: int) -> Tuple[int, int]:
    """Return (end, resume): the length of b's first complete event, its blank line
    included, or 0 when b holds none yet, and the start of b's last unfinished line,
    where a later call resumes (a long event is scanned once, not once per chunk).

    See the WHATWG HTML standard, "Server-sent events" (an event ends at a blank
    line; lines end in CRLF, LF or CR).
    """
    i, n = start, len(b)
    line = start
    while True:
        lf, cr = b.find(b"\n", i), b.find(b"\r", i)
        if lf < 0 and cr < 0:
            return 0, line
        j = lf if cr < 0 or (0 <= lf < cr) else cr
        nxt = j + 1
        if b[j] == 13:  # CR
            if nxt == n:
                return 0, line  # a CR at the end may be the first half of a CRLF
            if b[nxt] == 10:
                nxt += 1
        if j == line:
            return nxt, 0  # an empty line ends the event
        line = i = nxt


def _line_end(raw: bytes) -> bytes:
    """Return the line end of raw, one complete event: the one that ends its last line."""
    if raw.endswith(b"\r\n"):
        return b"\r\n"
    return b"\r" if raw.endswith(b"\r") else b"\n"


def _parse_event(raw: bytes) -> Tuple[str, bytes]:
    """Return an event's name and its data (data lines joined by LF)."""
    name, data = "", []
    for line in raw.splitlines():
        field, _, value = line.partition(b":")
        if value.startswith(b" "):
            value = value[1:]
        if field == b"event":
            name = value.decode("utf-8", "replace")
        elif field == b"data":
            data.append(value)
    return name, b"\n".join(data)


# A JSON escape of a letter of "error" (e, r, o): a member named "\u0065rror" is
# "error" to json.loads and to the SDK, though its bytes hold no "error".
_ESCAPED_ERROR_LETTER = re.compile(rb"\\u00(?:65|72|6[fF])")


def _is_error_event(name: str, data: bytes) -> Optional[bool]:
    """An error event: named "error" (Anthropic, the Responses API), or data that is
    a JSON object with an "error" object (Chat Completions and Gemini chunks); the
    data is parsed only when it names an "error" member, in any escaping. As
    egress/stream.go tests it. None for data nested too deep for json.loads
    (its RecursionError), which the caller asks the core's head rule about."""
    if name == "error":
        return True
    if b'"error"' not in data and _ESCAPED_ERROR_LETTER.search(data) is None:
        return False
    try:
        v = json.loads(data)
    except ValueError:
        return False
    except RecursionError:
        return None
    return isinstance(v, dict) and isinstance(v.get("error"), dict)


class _Events:
    """Splits a stream into complete events as they arrive (the state both stream
    wrappers share); feed returns what is ready for the client."""

    def __init__(self, eg: _Egress, request: Any, ep: Endpoint) -> None:
        self._eg, self._request, self._ep = eg, request, ep
        self._pending = b""
        self._scan = 0
        self._skip = False
        self._dropped: Optional[Dict[str, Any]] = None  # with _skip: the reply for an error event too long to hold
        self._emitted = False
        self._started = False  # the first event has been read (a BOM is stripped from it only)

    def feed(self, chunk: bytes) -> bytes:
        self._pending += chunk
        out = []
        while True:
            end, resume = _event_end(self._pending, self._scan)
            if end == 0:
                self._scan = resume
                if len(self._pending) > MAX_EVENT_BYTES:  # too long to hold: it passes as it arrives
                    # An error event (by the part held) is dropped instead, and at its end
                    # replaced as an event cut short at the end of the stream is (the Go
                    # StreamReader does the same): the upstream's text never passes.
                    if not self._skip:
                        first, self._started = not self._started, True
                        self._dropped = self._eg.long_error(self._ep, self._pending, self._emitted, first)
                    if self._dropped is None:
                        out.append(self._pending)
                    self._pending, self._scan, self._skip = b"", 0, True
                return b"".join(out)
            ev, self._pending, self._scan = self._pending[:end], self._pending[end:], 0
            first, self._started = not self._started, True
            if self._skip:
                dropped, self._dropped, self._skip = self._dropped, None, False
                out.append(ev if dropped is None else self._eg.stream_write(self._request, self._ep, dropped, _line_end(ev)))
                continue
            rewritten, self._emitted = self._eg.stream_event(self._request, self._ep, ev, self._emitted, first)
            out.append(rewritten)

    def flush(self) -> bytes:
        """Return what the client gets for the bytes after the last complete event when
        the stream ends: an event with no blank line after it, which a WHATWG parser
        discards and a line reader may not, so an error event there is replaced as a
        complete one is (the Go StreamReader does the same); anything else, and the
        rest of an event too long to read, passes as it came."""
        rest, self._pending, self._scan = self._pending, b"", 0
        if self._dropped is not None:
            dropped, self._dropped = self._dropped, None
            return self._eg.stream_write(self._request, self._ep, dropped, _line_end(rest))
        if not rest or self._skip:
            return rest
        first, self._started = not self._started, True
        out, self._emitted = self._eg.stream_event(self._request, self._ep, rest, self._emitted, first)
        return out


# The bytes that end a run the array reader skips: outside a string a quote or
# a bracket of either kind, inside one a quote or a backslash (an image's
# base64 is skipped in one search, not byte by byte).
_STRUCTURAL = re.compile(rb'["{}\[\]]')
_IN_STRING = re.compile(rb'["\\]')
_WHITE = frozenset(b" \t\r\n")


def _parses(data: bytes) -> bool:
    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return False
    return True


class _Elements:
    """Splits Gemini's JSON-array stream (streamGenerateContent without alt=sse:
    ``[{...}\\r\\n,{...}]``) into its elements as they arrive, as the Go
    egress.NewArrayStreamReader does (docs/egress.md, "JSON-array streams"):
    what lies outside the elements passes as it arrives, each element once
    complete, an error element (the data test of an error event) replaced by
    the error op's object for a data-only event of that data. An element past
    MAX_EVENT_BYTES passes as it arrives, unread, unless its head opens an
    "error" object: then it is dropped to its end and replaced there. A body
    whose first byte (after white space and a BOM) is not ``[`` passes unread.
    feed and flush as _Events'."""

    def __init__(self, eg: _Egress, request: Any, ep: Endpoint) -> None:
        self._eg, self._request, self._ep = eg, request, ep
        self._state = 0  # 0: before the array opened, 1: inside it (or after it), 2: no array, passed unread
        self._seen = 0  # bytes scanned before the array opened
        self._bom = 0  # how many of them are a leading BOM's
        self._depth = 0  # nesting of arrays and objects, the outer array counted
        self._in_str = False
        self._esc = False
        self._elem = False  # inside an element
        self._base = 0  # the depth the element began at
        self._held: List[bytes] = []
        self._held_len = 0
        self._skip = False  # inside an element too long to hold: passed to its end
        self._dropped: Optional[Dict[str, Any]] = None  # inside an error element too long to hold: its reply
        self._emitted = False

    def feed(self, b: bytes) -> bytes:
        i, n = 0, len(b)
        while self._state == 0 and i < n:
            c = b[i]
            if c in _WHITE:
                pass
            elif self._bom == self._seen and self._bom < len(_BOM) and c == _BOM[self._bom]:
                self._bom += 1
            elif c == 0x5B:  # [
                self._state, self._depth = 1, 1
            else:
                self._state = 2
            self._seen += 1
            i += 1
        if self._state != 1:
            return b  # nothing is held before the array opens
        out, start = [], 0
        while i < n:
            if self._esc:
                self._esc, i = False, i + 1
                continue
            m = (_IN_STRING if self._in_str else _STRUCTURAL).search(b, i)
            if m is None:
                break
            i = m.start()
            c = b[i]
            if self._in_str:
                if c == 0x5C:  # a backslash: the next byte is escaped
                    self._esc = True
                else:
                    self._in_str = False
            elif c == 0x22:
                self._in_str = True
            elif c in (0x7B, 0x5B):  # { [
                if not self._elem and (self._depth == 1 or (c == 0x7B and self._depth == 0)):
                    out.append(b[start:i])
                    start, self._elem, self._base = i, True, self._depth
                self._depth += 1
            else:  # } ]
                self._depth = max(self._depth - 1, 0)
                if self._elem and self._depth == self._base:
                    out.append(self._end(b[start:i + 1]))
                    start = i + 1
            i += 1
        rest = b[start:]
        out.append(self._hold(rest) if self._elem else rest)
        return b"".join(out)

    def flush(self) -> bytes:
        """Return what the client gets when the stream ends: an element it ended
        inside is handled as a complete one (an error element replaced)."""
        return self._end(b"") if self._elem else b""

    def _hold(self, b: bytes) -> bytes:
        """Take the next bytes of an unfinished element; return what passes of them now."""
        if self._dropped is not None:
            return b""
        if self._skip:
            return b
        self._held.append(b)
        self._held_len += len(b)
        if self._held_len <= MAX_EVENT_BYTES:
            return b""
        held, self._held, self._held_len = b"".join(self._held), [], 0
        self._dropped = self._long_error(held)
        if self._dropped is not None:
            return b""
        self._skip = self._emitted = True
        return held

    def _end(self, tail: bytes) -> bytes:
        """Return what the client gets for the element that ends with tail."""
        dropped, skip = self._dropped, self._skip
        raw = b"".join(self._held) + tail
        self._elem, self._skip, self._dropped, self._held, self._held_len = False, False, None, [], 0
        if dropped is not None:
            return self._eg.reported(self._request, self._ep, dropped).data
        if skip:
            return tail
        rep = self._error_reply(raw)
        if rep is not None:
            return self._eg.reported(self._request, self._ep, rep).data
        self._emitted = True
        return raw

    def _error_reply(self, raw: bytes) -> Optional[Dict[str, Any]]:
        """The error op's reply for raw, a whole element, when it is an error element,
        else None. One json.loads refuses (cut by the stream's end, nested too deep)
        is told by its head, read without its data, as one too long to hold is."""
        is_error = _is_error_event("", raw)
        if is_error:
            return self._eg._stream_reply(self._ep, {"event": "", "data": raw.decode("utf-8", "replace")},
                                          self._emitted)
        if is_error is None or ((b'"error"' in raw or _ESCAPED_ERROR_LETTER.search(raw) is not None)
                                and not _parses(raw)):
            return self._long_error(raw)
        return None

    def _long_error(self, held: bytes) -> Optional[Dict[str, Any]]:
        """The error op's reply for held, the start of an element, when it opens an
        "error" object, else None. The op's upstream.sse_event.head reads it as a data
        line: its CR and LF (JSON white space there, or bytes a JSON reader refuses)
        become spaces, so that the head is one line, and the answer is the Go
        core.EgressElementHead's."""
        head = held.replace(b"\r", b" ").replace(b"\n", b" ").decode("utf-8", "replace")
        rep = self._eg._stream_reply(self._ep, {"head": "data: " + head}, self._emitted)
        return None if rep is None or rep.get("pass") else rep


_Reader = Union[_Events, _Elements]


def build(h: ModuleType) -> Tuple[Any, Any]:
    """Return (EgressTransport, AsyncEgressTransport) for h, the httpx module
    (``httpx`` or its successor ``httpx2``, which openai and anthropic use):
    each SDK takes only clients, requests and responses of its own module."""

    class _SyncStream(h.SyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, resp: Any, events: _Reader) -> None:
            self._resp, self._events = resp, events

        def __iter__(self) -> Iterator[bytes]:
            for chunk in self._resp.iter_bytes():
                out = self._events.feed(chunk)
                if out:
                    yield out
            rest = self._events.flush()
            if rest:
                yield rest

        def close(self) -> None:
            self._resp.close()


    class _AsyncStream(h.AsyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, resp: Any, events: _Reader) -> None:
            self._resp, self._events = resp, events

        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for chunk in self._resp.aiter_bytes():
                out = self._events.feed(chunk)
                if out:
                    yield out
            rest = self._events.flush()
            if rest:
                yield rest

        async def aclose(self) -> None:
            await self._resp.aclose()


    def _streamed(request: Any, resp: Any, stream: Any) -> Any:
        # The body is decoded here (iter_bytes), and a rewritten event changes its length.
        headers = [(k, v) for k, v in resp.headers.multi_items()
                   if k not in ("content-length", "content-encoding", "transfer-encoding")]
        return h.Response(resp.status_code, headers=headers, stream=stream, request=request,
                              extensions=resp.extensions)


    def _replayed(request: Any, resp: Any, held: bytes, rest: Any, stream_type: Any) -> Any:
        # held, then the rest of the decoded body: its coding and length go when it had a coding.
        if "content-encoding" not in resp.headers:
            return h.Response(resp.status_code, headers=resp.headers.multi_items(), stream=stream_type(resp, held, rest),
                              request=request, extensions=resp.extensions)
        return _streamed(request, resp, stream_type(resp, held, rest))


    class _SyncReplay(h.SyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, resp: Any, held: bytes, rest: Iterator[bytes]) -> None:
            self._resp, self._held, self._rest = resp, held, rest

        def __iter__(self) -> Iterator[bytes]:
            if self._held:
                yield self._held
            yield from self._rest

        def close(self) -> None:
            self._resp.close()


    class _AsyncReplay(h.AsyncByteStream):  # type: ignore[misc,name-defined]
        def __init__(self, resp: Any, held: bytes, rest: AsyncIterator[bytes]) -> None:
            self._resp, self._held, self._rest = resp, held, rest

        async def __aiter__(self) -> AsyncIterator[bytes]:
            if self._held:
                yield self._held
            async for chunk in self._rest:
                yield chunk

        async def aclose(self) -> None:
            await self._resp.aclose()


    class _Head:
        """The bytes of a success read so far, and whether they are enough: its
        first SUCCESS_HEAD_BYTES, then, when they may open an error object, one
        byte past MAX_ERROR_BYTES (a longer body passes as it came)."""

        def __init__(self) -> None:
            self.parts: List[bytes] = []
            self.n, self.limit = 0, SUCCESS_HEAD_BYTES

        def full(self, chunk: bytes) -> bool:
            self.parts.append(chunk)
            self.n += len(chunk)
            if self.limit == SUCCESS_HEAD_BYTES <= self.n and may_be_error_object(
                    b"".join(self.parts)[:SUCCESS_HEAD_BYTES]):
                self.limit = MAX_ERROR_BYTES + 1
            return self.n >= self.limit


    def _success_sync(eg: _Egress, request: Any, ep: Endpoint, resp: Any) -> Any:
        # A success: read as far as it takes to tell an error object in place of the answer.
        chunks, head = resp.iter_bytes(), _Head()
        ended = not any(head.full(c) for c in chunks)  # stops at the first chunk that fills it
        held = b"".join(head.parts)
        if ended:
            resp.close()
            rep = eg.success_response(request, ep, resp, held)
            if rep is not None:
                return rep
        return _replayed(request, resp, held, iter(()) if ended else chunks, _SyncReplay)


    async def _success_async(eg: _Egress, request: Any, ep: Endpoint, resp: Any) -> Any:
        chunks, head, ended = resp.aiter_bytes(), _Head(), True
        async for c in chunks:
            if head.full(c):
                ended = False
                break
        held = b"".join(head.parts)
        if ended:
            await resp.aclose()
            rep = eg.success_response(request, ep, resp, held)
            if rep is not None:
                return rep
        return _replayed(request, resp, held, _empty() if ended else chunks, _AsyncReplay)


    async def _empty() -> AsyncIterator[bytes]:
        return
        yield b""  # an async generator of nothing


    def _read_capped_sync(resp: Any) -> bytes:
        parts, n = [], 0
        try:
            for chunk in resp.iter_bytes():
                parts.append(chunk)
                n += len(chunk)
                if n >= MAX_ERROR_BYTES:
                    break
        finally:
            resp.close()
        return b"".join(parts)[:MAX_ERROR_BYTES]


    async def _read_capped_async(resp: Any) -> bytes:
        parts, n = [], 0
        try:
            async for chunk in resp.aiter_bytes():
                parts.append(chunk)
                n += len(chunk)
                if n >= MAX_ERROR_BYTES:
                    break
        finally:
            await resp.aclose()
        return b"".join(parts)[:MAX_ERROR_BYTES]


    class EgressTransport(h.BaseTransport):  # type: ignore[misc,name-defined]
        """An httpx transport that runs toolerr's egress ops on every provider request
        it carries (see the module's doc), over ``transport`` (default
        ``h.HTTPTransport()``).

        ``drop_upstream_message`` puts toolerr's own sentence in native error
        messages instead of the upstream's sanitized one (the error op's
        ``upstream_message: "drop"``). ``on_prepare(request, endpoint, report)``,
        when given, gets each body's report from the request op (``changed``,
        ``changes``, ``id_map``, ``findings``) before the request is sent.
        ``on_stream_error(request, StreamError)`` gets each error event inside a
        stream after it was rewritten (default: a warning on the
        ``toolerr.egress`` logger; an exception it raises is logged, never
        raised into the stream). ``clock`` gives seconds since the Unix epoch
        (the error op's ``now_ms``, for an HTTP-date ``Retry-After``).
        Thread-safe when ``transport`` is.
        """

        def __init__(self, transport: Optional[Any] = None, *, drop_upstream_message: bool = False,
                     on_prepare: Optional[PrepareHook] = None, on_stream_error: Optional[Reporter] = None,
                     clock: Callable[[], float] = time.time) -> None:
            self._base = transport if transport is not None else h.HTTPTransport()
            self._eg = _Egress(h, drop_upstream_message, on_prepare, on_stream_error, clock)

        def handle_request(self, request: Any) -> Any:
            """Send request as the module's doc says; any other request goes to the wrapped transport."""
            ep = endpoint_of(request.method, _wire_path(request.url))
            if ep is None:
                return self._base.handle_request(request)
            out = self._eg.prepare(request, ep, request.read())
            try:
                resp = self._base.handle_request(out)
            except h.TimeoutException:
                raise
            except h.TransportError as e:
                return self._eg.transport_response(request, ep, e)
            if resp.status_code >= 400:
                return self._eg.error_response(request, ep, resp, _read_capped_sync(resp))
            if _is_event_stream(resp):
                return _streamed(request, resp, _SyncStream(resp, _Events(self._eg, request, ep)))
            if ep.api == "stream_generate_content":  # Gemini's JSON array, without alt=sse
                return _streamed(request, resp, _SyncStream(resp, _Elements(self._eg, request, ep)))
            if 200 <= resp.status_code <= 299:
                return _success_sync(self._eg, request, ep, resp)
            return resp

        def close(self) -> None:
            """Close the wrapped transport."""
            self._base.close()


    class AsyncEgressTransport(h.AsyncBaseTransport):  # type: ignore[misc,name-defined]
        """The asyncio twin of ``EgressTransport`` (same options), over ``transport``
        (default ``h.AsyncHTTPTransport()``), for ``h.AsyncClient``."""

        def __init__(self, transport: Optional[Any] = None, *, drop_upstream_message: bool = False,
                     on_prepare: Optional[PrepareHook] = None, on_stream_error: Optional[Reporter] = None,
                     clock: Callable[[], float] = time.time) -> None:
            self._base = transport if transport is not None else h.AsyncHTTPTransport()
            self._eg = _Egress(h, drop_upstream_message, on_prepare, on_stream_error, clock)

        async def handle_async_request(self, request: Any) -> Any:
            """Send request as the module's doc says; any other request goes to the wrapped transport."""
            ep = endpoint_of(request.method, _wire_path(request.url))
            if ep is None:
                return await self._base.handle_async_request(request)
            out = self._eg.prepare(request, ep, await request.aread())
            try:
                resp = await self._base.handle_async_request(out)
            except h.TimeoutException:
                raise
            except h.TransportError as e:
                return self._eg.transport_response(request, ep, e)
            if resp.status_code >= 400:
                return self._eg.error_response(request, ep, resp, await _read_capped_async(resp))
            if _is_event_stream(resp):
                return _streamed(request, resp, _AsyncStream(resp, _Events(self._eg, request, ep)))
            if ep.api == "stream_generate_content":  # Gemini's JSON array, without alt=sse
                return _streamed(request, resp, _AsyncStream(resp, _Elements(self._eg, request, ep)))
            if 200 <= resp.status_code <= 299:
                return await _success_async(self._eg, request, ep, resp)
            return resp

        async def aclose(self) -> None:
            """Close the wrapped transport."""
            await self._base.aclose()

    return EgressTransport, AsyncEgressTransport
