"""The egress transports' stream reader (the part of toolerr.integrations.httpx that needs no httpx)."""

import time
from typing import Any, List

import pytest

from toolerr.integrations._egress_http import MAX_EVENT_BYTES, _Egress, _Events, endpoint_of

SECRET = b"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
PING = b"event: ping\ndata: {}\n\n"
PAD = b"x" * (2 * MAX_EVENT_BYTES)


@pytest.mark.parametrize("path, event, named, eol", [
    ("/v1/messages", b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"' + SECRET + PAD
     + b'"}}\n\n', True, b"\n"),
    ("/v1/chat/completions", b'data: { "error" : {"message":"' + SECRET + PAD + b'","type":"server_error"}}\r\n\r\n', False,
     b"\r\n"),
    ("/v1/messages", b'event: error\ndata: {"type":"error","error":{"message":"' + SECRET + PAD, True, b"\n"),
], ids=["anthropic", "chat-crlf", "stream-ends-inside-it"])
def test_an_error_event_longer_than_max_event_bytes_is_replaced(path: str, event: bytes, named: bool, eol: bytes) -> None:
    # Dropped, and at its end replaced as an event cut short is (as the Go StreamReader does):
    # the provider's text never passes; the events after it pass as they came.
    seen: List[Any] = []
    events = _Events(_Egress(None, False, None, lambda request, ev: seen.append(ev), time.time), None,
                     endpoint_of("POST", path))
    tail = PING if event.endswith(eol + eol) else b""
    src = PING + event + tail
    out = b"".join(events.feed(src[i:i + (64 << 10)]) for i in range(0, len(src), 64 << 10)) + events.flush()
    assert SECRET not in out and b"xxxx" not in out
    assert len(seen) == 1
    assert out == PING + (b"event: error" + eol if named else b"") + b"data: " + seen[0].data + eol + eol + tail


@pytest.mark.parametrize("event", [
    b'data: {"choices":[{"delta":{"content":"' + PAD + b'"}}]}\n\n',
    b'data: {"id":"' + PAD + b'","error":{"message":"late"}}\n\n',
    b"event: content_block_delta\ndata: " + PAD + b"\n\n",
    b'data: {"error":"' + PAD + b'"}\n\n',
], ids=["content", "error-after-a-long-member", "not-json", "error-string"])
def test_an_event_longer_than_max_event_bytes_that_is_no_error_passes(event: bytes) -> None:
    # The core answers pass for its head (the op's upstream.sse_event.head): it goes byte for byte.
    seen: List[Any] = []
    events = _Events(_Egress(None, False, None, lambda request, ev: seen.append(ev), time.time), None,
                     endpoint_of("POST", "/v1/chat/completions"))
    src = event + b"data: [DONE]\n\n"
    out = b"".join(events.feed(src[i:i + (64 << 10)]) for i in range(0, len(src), 64 << 10)) + events.flush()
    assert seen == []
    assert out == src


@pytest.mark.parametrize("data", [b'{"\\u0065rror":{"message":"' + SECRET + b'"}}', b'{"e\\u0072ror":{"message":"' + SECRET + b'"}}',
                                  b'{"err\\u006Fr":{"message":"' + SECRET + b'"}}'], ids=["e", "r", "O"])
def test_an_error_chunk_whose_member_name_is_escaped_is_replaced(data: bytes) -> None:
    # json.loads (and the SDK) read "\u0065rror" as "error": the chunk is an error chunk, though
    # its bytes hold no "error", and the provider's text in it is sanitized as in any error chunk.
    seen: List[Any] = []
    events = _Events(_Egress(None, False, None, lambda request, ev: seen.append(ev), time.time), None,
                     endpoint_of("POST", "/v1/chat/completions"))
    out = events.feed(b"data: " + data + b"\n\n") + events.flush()
    assert len(seen) == 1
    assert SECRET not in out and b'"toolerr":' in out
    content = b'data: {"choices":[{"delta":{"content":"caf\\u00e9 \\u0065rror"}}]}\n\n'
    assert events.feed(content) + events.flush() == content, "a content delta passes byte for byte"


def test_a_chunk_nested_too_deep_for_json_is_read_by_the_core_never_raised() -> None:
    # json.loads raises RecursionError on it (it was raised out of the stream): an error chunk is
    # replaced by the core's head rule, read without its data; content passes as it came.
    deep = b"[" * 100000 + b"]" * 100000
    seen: List[Any] = []
    events = _Events(_Egress(None, False, None, lambda request, ev: seen.append(ev), time.time), None,
                     endpoint_of("POST", "/v1/chat/completions"))
    out = events.feed(b'data: {"error":{"message":"' + SECRET + b'","x":' + deep + b"}}\n\n") + events.flush()
    assert len(seen) == 1 and SECRET not in out and b'"toolerr":' in out
    content = b'data: {"choices":[],"x":' + deep + b',"error":{}}\n\n'
    assert events.feed(content) + events.flush() == content
    assert len(seen) == 1
