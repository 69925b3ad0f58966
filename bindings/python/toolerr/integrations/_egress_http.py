"""What toolerr.integrations.httpx and toolerr.integrations.httpx2 share: the
egress transports built for either module (see toolerr.integrations.httpx)."""

from __future__ import annotations

import functools
import json
import logging
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any, AsyncIterator, Callable, Dict, Iterator, List, Optional, Tuple, Union

from .. import Envelope, ToolerrError, _answer, _error_text, _transcript_op, canonicalize, invoke, invoke_bytes


log = logging.getLogger("toolerr.egress")

MAX_REQUEST_BYTES = 32 << 20  # the core's request bound (core.MaxRequestBytes): larger bodies go unread
MAX_ERROR_BYTES = 1 << 20  # an upstream error body is read up to 1 MiB, as the gateway reads it
MAX_EVENT_BYTES = 4 << 20  # the core's (core.MaxEventBytes): a longer stream event (an image chunk) passes unread

# Upstream headers the rewritten error response does not keep: its body is
# new (length, encoding, type), and the wait hints (RFC 9110, 10.2.3
# Retry-After; the retry-after-ms the OpenAI and Anthropic SDKs read first)
# go whatever the op says: it gives the wait it read from them, and none for
# one it could not read (-5, abc, 1e9). The error op's headers replace these.
_DROPPED = frozenset({"content-length", "content-encoding", "transfer-encoding", "content-type",
                      "retry-after", "retry-after-ms"})

_BOM = b"\xef\xbb\xbf"  # U+FEFF in UTF-8

# A success outside a stream is read this far to tell whether it may be an error
# object in place of the answer (Gemini's 200 {"error":{...}}, Anthropic's error
# body): core.EgressSuccessHeadBytes, the most of a head the egress_error op takes.
SUCCESS_HEAD_BYTES = 256


def may_be_error_object(head: bytes, ingress: str, status: int) -> bool:
    """Whether head, the first SUCCESS_HEAD_BYTES of the body of a success
    (status 200-299) outside a stream, or all of a shorter body, may open an
    error object in place of the answer, as the core tells it: the egress_error
    op with ``http`` ``head`` (docs/egress.md, "The success-head gate"), for a
    client speaking ingress. Such a body is read whole (up to MAX_ERROR_BYTES)
    and the core decides on it (the failure it stands for, or ``pass``); any
    other passes unread."""
    rep = invoke({"op": "egress_error", "ingress": ingress,
                  "upstream": {"http": {"status": status, "head": head.decode("utf-8", "replace")}}})
    return bool(rep.get("read"))


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
        if not may_be_error_object(body[:SUCCESS_HEAD_BYTES], ep.format, resp.status_code):
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


class _Scan:
    """Frames a stream as it arrives with the core (the egress_scan op), which
    every transport of every binding and the gateway run: this class only
    moves bytes. Each chunk goes to the core after the bytes it held last time
    (the frame in progress), with the state it answered; the core answers
    which bytes pass, which are replaced (an error event or element, by the
    error op's) and which it holds. feed returns what is ready for the client;
    flush what it gets when the stream ends (an unfinished frame read as a
    complete one: an error there is replaced). See docs/egress.md, "Streams"."""

    _KIND = "sse"

    def __init__(self, eg: _Egress, request: Any, ep: Endpoint) -> None:
        self._eg, self._request, self._ep = eg, request, ep
        self._held = bytearray()  # the frame in progress (grown in place: a long one is not copied per chunk)
        self._state = self._KIND.encode()
        self._passing = False  # the core refused a chunk: the rest passes unread
        members = {"ingress": ep.format, "provider": ep.format}
        if eg._drop:
            members["upstream_message"] = "drop"
        self._prefix = ('{"op":"egress_scan",' + json.dumps(members, separators=(",", ":"))[1:-1]
                        + ',"state":"').encode()

    def feed(self, chunk: bytes) -> bytes:
        return self._scan(chunk, False)

    def flush(self) -> bytes:
        return self._scan(b"", True)

    def _scan(self, chunk: bytes, eof: bool) -> bytes:
        held = self._held
        if self._passing or (not held and not chunk and not eof):
            data = bytes(held) + chunk
            held.clear()
            return data
        # A long frame's held bytes go to the core once, not once per chunk:
        # only their last _TAIL go again with the chunk ("skip" leaves the rest
        # out), and the core asks for them all when it must read the frame.
        skip = len(held) - _TAIL if len(held) >= _LONG and not eof else 0
        held += chunk
        out = self._invoke(held[skip:] if skip else held, skip, eof)
        if out == _RESEND:
            out = self._invoke(held, 0, eof)
        if out.startswith(_CLEAN):  # no cuts: {"ok":{"cuts":[],"hold":N,"state":"..."}}
            hold_text, _, state = out[len(_CLEAN):].partition(b',"state":"')
            hold, self._state = int(hold_text), state[:-3]
            return self._take(hold)
        try:
            rep = _answer(out)
        except ToolerrError:
            self._passing = True  # not reached: the state is the core's own
            return self._take(len(held))
        parts, at = [], 0
        for cut in rep["cuts"]:
            parts.append(held[at:cut["start"]])
            at = cut["end"]
            if "write" in cut:
                parts.append(cut["write"].encode())
                self._eg._report(self._request, StreamError(self._ep, Envelope.from_dict(cut["envelope"]), cut["event"],
                                                            cut["data"].encode()))
        hold = rep["hold"]
        parts.append(held[at:hold])
        del held[:hold]
        self._state = rep["state"].encode()
        return b"".join(parts)

    def _invoke(self, data: Any, skip: int, eof: bool) -> bytes:
        """The core's answer for data, the held bytes but the first skip, then the new ones."""
        return invoke_bytes(b"".join((self._prefix, self._state, b'","now_ms":%d' % int(self._eg._clock() * 1000),
                                      b',"skip":%d' % skip if skip else b"",
                                      b',"eof":true,"input":' if eof else b',"input":', data,
                                      b',"raw_len":%d}' % len(data))))

    def _take(self, n: int) -> bytes:
        """The first n held bytes, no longer held."""
        out = bytes(self._held[:n])
        del self._held[:n]
        return out


_LONG, _TAIL = 4096, 16  # held bytes from which the front is left out; held bytes sent again
_RESEND = b'{"ok":{"resend":true}}'
_CLEAN = b'{"ok":{"cuts":[],"hold":'


class _Events(_Scan):
    """A text/event-stream's events (the core's sse scan)."""

    _KIND = "sse"


class _Elements(_Scan):
    """Gemini's JSON-array stream (streamGenerateContent without alt=sse:
    ``[{...}\\r\\n,{...}]``), element by element (the core's array scan)."""

    _KIND = "array"


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

        def __init__(self, ingress: str, status: int) -> None:
            self.parts: List[bytes] = []
            self.n, self.limit = 0, SUCCESS_HEAD_BYTES
            self.ingress, self.status = ingress, status

        def full(self, chunk: bytes) -> bool:
            self.parts.append(chunk)
            self.n += len(chunk)
            if self.limit == SUCCESS_HEAD_BYTES <= self.n and may_be_error_object(
                    b"".join(self.parts)[:SUCCESS_HEAD_BYTES], self.ingress, self.status):
                self.limit = MAX_ERROR_BYTES + 1
            return self.n >= self.limit


    def _success_sync(eg: _Egress, request: Any, ep: Endpoint, resp: Any) -> Any:
        # A success: read as far as it takes to tell an error object in place of the answer.
        chunks, head = resp.iter_bytes(), _Head(ep.format, resp.status_code)
        ended = not any(head.full(c) for c in chunks)  # stops at the first chunk that fills it
        held = b"".join(head.parts)
        if ended:
            resp.close()
            rep = eg.success_response(request, ep, resp, held)
            if rep is not None:
                return rep
        return _replayed(request, resp, held, iter(()) if ended else chunks, _SyncReplay)


    async def _success_async(eg: _Egress, request: Any, ep: Endpoint, resp: Any) -> Any:
        chunks, head, ended = resp.aiter_bytes(), _Head(ep.format, resp.status_code), True
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
