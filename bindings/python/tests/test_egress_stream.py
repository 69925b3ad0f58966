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
    b"event: content_block_delta\ndata: " + PAD + b"\n\n",
    b'data: {"error":"' + PAD + b'"}\n\n',
], ids=["content", "not-json", "error-string"])
def test_an_event_longer_than_max_event_bytes_that_is_no_error_passes(event: bytes) -> None:
    # The core answers pass for its head (the op's upstream.sse_event.head): it goes byte for byte.
    seen: List[Any] = []
    events = _Events(_Egress(None, False, None, lambda request, ev: seen.append(ev), time.time), None,
                     endpoint_of("POST", "/v1/chat/completions"))
    src = event + b"data: [DONE]\n\n"
    out = b"".join(events.feed(src[i:i + (64 << 10)]) for i in range(0, len(src), 64 << 10)) + events.flush()
    assert seen == []
    assert out == src


def test_an_error_object_after_a_long_member_is_cut_as_it_passes() -> None:
    # The head names no error, so the event passes; the core's scan cuts its top-level "error"
    # object as it passes and writes the error op's "error" object there (one reply).
    seen: List[Any] = []
    events = _Events(_Egress(None, False, None, lambda request, ev: seen.append(ev), time.time), None,
                     endpoint_of("POST", "/v1/chat/completions"))
    head = b'data: {"id":"' + PAD + b'","error":{'
    src = head + b'"message":"late ' + SECRET + b'"}}\n\ndata: [DONE]\n\n'
    out = b"".join(events.feed(src[i:i + (64 << 10)]) for i in range(0, len(src), 64 << 10)) + events.flush()
    assert len(seen) == 1
    assert SECRET not in out and b"\"late " not in out
    assert out.startswith(head) and out.endswith(b"}}\n\ndata: [DONE]\n\n")


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
    # json.loads raises RecursionError on it (it was raised out of the stream); the core reads it:
    # an error chunk is replaced, content passes as it came.
    deep = b"[" * 100000 + b"]" * 100000
    seen: List[Any] = []
    events = _Events(_Egress(None, False, None, lambda request, ev: seen.append(ev), time.time), None,
                     endpoint_of("POST", "/v1/chat/completions"))
    out = events.feed(b'data: {"error":{"message":"' + SECRET + b'","x":' + deep + b"}}\n\n") + events.flush()
    assert len(seen) == 1 and SECRET not in out and b'"toolerr":' in out
    content = b'data: {"choices":[],"x":' + deep + b',"error":"none"}\n\n'
    assert events.feed(content) + events.flush() == content
    assert len(seen) == 1
    # Data the core does not read (nested past its bound) with an "error" object where a lenient
    # reader finds one is an error chunk in every transport (the core's rule, egress_scan).
    loose = b'data: {"choices":[],"x":' + deep + b',"error":{"message":"' + SECRET + b'"}}\n\n'
    out = events.feed(loose) + events.flush()
    assert len(seen) == 2 and SECRET not in out and b'"toolerr":' in out


def _through_array(src: bytes, step: int, drop: bool = True) -> Any:
    """src, Gemini's streamGenerateContent answer without alt=sse, through the
    array reader in chunks of step bytes: (what the client gets, the reports)."""
    from toolerr.integrations._egress_http import _Elements

    seen: List[Any] = []
    elements = _Elements(_Egress(None, drop, None, lambda request, ev: seen.append(ev), time.time), None,
                         endpoint_of("POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent"))
    out = b"".join(elements.feed(src[i:i + step]) for i in range(0, len(src), step)) + elements.flush()
    return out, seen


ARRAY_BEFORE = b'[{"candidates":[{"content":{"parts":[{"text":"a ] and \\"{error}\\""}]}}]}\r\n,'
ARRAY_ERROR = b'{"error": {"code": 503, "message": "' + SECRET + b' overloaded", "status": "UNAVAILABLE"}}'
ARRAY_AFTER = b'\r\n,{"candidates":[]}]'


@pytest.mark.parametrize("step", [1, 7, 1 << 16])
def test_an_error_element_of_a_gemini_array_stream_is_replaced(step: int) -> None:
    # The elements before it pass byte for byte, the array stays one JSON value, the array goes on.
    import json

    out, seen = _through_array(ARRAY_BEFORE + ARRAY_ERROR + ARRAY_AFTER, step)
    assert len(seen) == 1 and seen[0].envelope.code == "OVERLOADED"
    assert SECRET not in out
    assert out == ARRAY_BEFORE + seen[0].data + ARRAY_AFTER
    arr = json.loads(out)
    assert arr[1]["error"]["status"] == "UNAVAILABLE"
    assert arr[1]["error"]["toolerr"]["details"]["partial_output"] is True


def test_a_gemini_array_stream_cut_long_and_content() -> None:
    # A cut error element is replaced; one past MAX_EVENT_BYTES by its head; content and non-arrays pass.
    out, seen = _through_array(b'[{},{"error":{"code":500,"message":"' + SECRET, 5)
    assert len(seen) == 1 and out == b"[{}," + seen[0].data
    out, seen = _through_array(b'[{},{ "error" : {"code":500,"message":"' + SECRET + PAD + b'"}},{}]', 64 << 10)
    assert len(seen) == 1 and seen[0].envelope.code == "SERVER_ERROR"
    assert out == b"[{}," + seen[0].data + b",{}]"
    for src in (b'[{"candidates":[{"content":{"parts":[{"inlineData":{"data":"' + PAD + b'"}}]}}]},{"usageMetadata":{}}]',
                b'{"error":{"code":500,"message":"not an array","status":"INTERNAL"}}',
                b'[{"candidates":[{"content":{"parts":[{"text":"the \\"error\\": {} word"}]}}]}]'):
        out, seen = _through_array(src, 64 << 10, drop=False)
        assert seen == [] and out == src


@pytest.mark.parametrize("frame, errors", [
    (b'data: {"choices":[{"delta":{"content":"' + b"x" * (1 << 20) + b'"}}]}\n\n', 0),
    (b'data: {"error":{"message":"' + SECRET + b"x" * (1 << 20) + b'","type":"server_error"}}\n\n', 1),
], ids=["clean", "error"])
def test_a_long_frame_in_small_chunks_goes_to_the_core_about_twice(monkeypatch: Any, frame: bytes, errors: int) -> None:
    # The held bytes but their last few are left out ("skip") until the frame ends, when the core
    # asks for them: each byte crosses about twice, not once per chunk (512 times on average before).
    import toolerr.integrations._egress_http as http
    sent: List[int] = []
    real = http.invoke_bytes
    monkeypatch.setattr(http, "invoke_bytes", lambda request: sent.append(len(request)) or real(request))
    seen: List[Any] = []
    events = _Events(_Egress(None, False, None, lambda request, ev: seen.append(ev), time.time), None,
                     endpoint_of("POST", "/v1/chat/completions"))
    src = frame + b"data: [DONE]\n\n"
    out = b"".join(events.feed(src[i:i + 1024]) for i in range(0, len(src), 1024)) + events.flush()
    assert len(seen) == errors
    assert out == (src if not errors else b"data: " + seen[0].data + b"\n\ndata: [DONE]\n\n")
    assert len(src) < sum(sent) < 2 * len(src) + 300 * len(sent)  # each request's own members: under 300 bytes
