"""The official openai, anthropic and google-genai clients through toolerr's egress:
the httpx transports (toolerr.integrations.httpx, sync and async) and a real
toolerr-gateway, each in front of a fake upstream on 127.0.0.1 (upstream.py).

For each upstream error the SDK's own exception class fires (its status kept),
the upstream is hit exactly as often as the SDK's own retry rule asks (told by
x-should-retry and retry-after, never a retry of toolerr's), and the envelope is
where docs/egress.md says a client reads it; each request reaches the upstream
with the native failure flag; an error event inside a stream reaches the SDK in
its own shape and the transport's reporter.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import socket
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import anthropic
import httpx
import httpx2
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

import toolerr
from toolerr.integrations import httpx as egress_httpx, httpx2 as egress_httpx2
from toolerr.integrations.httpx import AsyncEgressTransport, EgressTransport, StreamError, endpoint_of
from upstream import Gateway, Reply, Upstream, gateway_binary, serve, sse

MODES = ["transport", "async", "gateway"]
ENV = toolerr.envelope("TIMEOUT", "Weather service timed out.", source="tool").to_dict()
ENV_TEXT = toolerr.canonicalize(ENV)


@pytest.fixture
def upstream() -> Iterator[Upstream]:
    yield from serve()


@pytest.fixture(scope="module")
def gateway_upstream() -> Iterator[Tuple[Upstream, Gateway]]:
    binary = gateway_binary()
    if binary is None:
        pytest.skip("dist/toolerr-gateway is not built (make build)")
    up = Upstream().start()
    gw = Gateway(binary, up.url)
    try:
        yield up, gw
    finally:
        gw.stop()
        up.stop()


class Route:
    """Where an SDK client is pointed in one mode, and what the transport reported."""

    def __init__(self, mode: str, up: Upstream, base: str) -> None:
        self.mode, self.up, self.base = mode, up, base
        self.stream_errors: List[StreamError] = []
        self.reports: List[Dict[str, Any]] = []
        self.keep: Any = None

    # openai 3.x and anthropic 2.x take httpx2 clients, google-genai httpx ones.
    def client(self, h: Any = httpx) -> Any:
        """A client of module h over the egress transport of the mode (async: the asyncio one), recording
        what it reports; None through the gateway, where the SDK's own client goes to the gateway's URL."""
        if self.mode == "gateway":
            return None
        eg = egress_httpx2 if h is httpx2 else egress_httpx
        hooks: Dict[str, Any] = dict(on_stream_error=lambda _r, ev: self.stream_errors.append(ev),
                                     on_prepare=lambda _r, _ep, rep: self.reports.append(rep))
        if self.mode == "async":
            return h.AsyncClient(transport=eg.AsyncEgressTransport(**hooks))
        return h.Client(transport=eg.EgressTransport(**hooks))


@pytest.fixture(params=MODES)
def route(request: pytest.FixtureRequest, upstream: Upstream) -> Iterator[Route]:
    if request.param != "gateway":
        yield Route(request.param, upstream, upstream.url)
        return
    up, gw = request.getfixturevalue("gateway_upstream")
    up.hits.clear()
    up.script = [Reply(body={})]
    yield Route("gateway", up, gw.url)


def run(x: Any) -> Any:
    """The value of a call, awaited when the client is async."""
    if inspect.isawaitable(x):
        async def wait() -> Any:
            return await x
        return asyncio.run(wait())
    return x


def each(r: Route, stream: Callable[[], Any], on: Callable[[Any], None]) -> None:
    """Call on with each item of the stream that stream() opens: awaited and read with async for in the async mode."""
    if r.mode != "async":
        for x in stream():
            on(x)
        return

    async def read() -> None:
        async for x in await stream():
            on(x)
    asyncio.run(read())


# --- the three SDKs: a client per mode, a request, where the envelope is read ---------------------------------------

def openai_client(r: Route, max_retries: int = 1) -> Any:
    sdk = openai.AsyncOpenAI if r.mode == "async" else openai.OpenAI
    return sdk(api_key="sk-test", base_url=r.base + "/v1", max_retries=max_retries, http_client=r.client(httpx2))


def anthropic_client(r: Route, max_retries: int = 1) -> Any:
    sdk = anthropic.AsyncAnthropic if r.mode == "async" else anthropic.Anthropic
    return sdk(api_key="sk-ant-test", base_url=r.base, max_retries=max_retries, http_client=r.client(httpx2))


def genai_models(r: Route) -> Any:
    # google-genai retries only with retry_options; 2 attempts, short waits (its rule: 408, 429, 5xx).
    client = r.client()
    opts = genai_types.HttpOptions(base_url=r.base, httpx_client=None if r.mode == "async" else client,
                                   httpx_async_client=client if r.mode == "async" else None,
                                   retry_options=genai_types.HttpRetryOptions(attempts=2, initial_delay=0.01,
                                                                              max_delay=0.02))
    c = genai.Client(api_key="test-key", http_options=opts)
    r.keep = c  # a collected genai.Client closes the HTTP client it made
    return c.aio.models if r.mode == "async" else c.models


def call_openai(r: Route, messages: Optional[List[Dict[str, Any]]] = None) -> Any:
    return run(openai_client(r).chat.completions.create(
        model="gpt-4o", messages=messages or [{"role": "user", "content": "Weather in Paris?"}]))  # type: ignore[arg-type]


def call_anthropic(r: Route, messages: Optional[List[Dict[str, Any]]] = None) -> Any:
    return run(anthropic_client(r).messages.create(
        model="claude-sonnet-4-5", max_tokens=64,
        messages=messages or [{"role": "user", "content": "Weather in Paris?"}]))  # type: ignore[arg-type]


def call_gemini(r: Route, contents: Optional[List[Dict[str, Any]]] = None) -> Any:
    return run(genai_models(r).generate_content(
        model="gemini-2.5-flash", contents=contents or [{"role": "user", "parts": [{"text": "Weather in Paris?"}]}]))


def envelope_read_by(sdk: str, e: Any) -> Dict[str, Any]:
    """The envelope where docs/egress.md says each SDK's caller reads it."""
    if sdk == "openai":
        return e.body["toolerr"]  # type: ignore[no-any-return]
    if sdk == "anthropic":
        return e.body["error"]["toolerr"]  # type: ignore[no-any-return]
    return e.details["error"]["toolerr"]  # type: ignore[no-any-return]


CALLS: Dict[str, Callable[[Route], Any]] = {"openai": call_openai, "anthropic": call_anthropic, "gemini": call_gemini}

OPENAI_OK = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4o",
             "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
ANTHROPIC_OK = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1}}
GEMINI_OK = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]}


def openai_error(message: str, type_: str, code: Optional[str], param: Optional[str] = None) -> Dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def anthropic_error(type_: str, message: str) -> Dict[str, Any]:
    return {"type": "error", "error": {"type": type_, "message": message}, "request_id": "req_011CUp"}


def google_error(code: int, status: str, message: str, details: Optional[List[Any]] = None) -> Dict[str, Any]:
    err: Dict[str, Any] = {"code": code, "message": message, "status": status}
    if details:
        err["details"] = details
    return {"error": err}


# (sdk, case): the upstream's reply in its own documented shape, the SDK's exception class, the status the
# client sees, the envelope code, and the upstream hits the SDK's own rule makes (openai and anthropic with
# max_retries=1, google-genai with 2 attempts).
# Sources: https://platform.openai.com/docs/guides/error-codes, https://docs.claude.com/en/api/errors,
# https://ai.google.dev/gemini-api/docs/troubleshooting; classes: openai._client._make_status_error,
# anthropic._client._make_status_error, google.genai.errors.APIError.raise_error.
ERRORS: Dict[Tuple[str, str], Tuple[Reply, type, int, str, int]] = {
    ("openai", "429 retry-after"): (Reply(429, {"retry-after": "1", "x-request-id": "req_1"}, openai_error(
        "Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 3, Used 3, Requested 1.",
        "requests", "rate_limit_exceeded")), openai.RateLimitError, 429, "RATE_LIMITED", 2),
    ("openai", "429 quota"): (Reply(429, {}, openai_error(
        "You exceeded your current quota, please check your plan and billing details.", "insufficient_quota",
        "insufficient_quota")), openai.RateLimitError, 429, "QUOTA_EXHAUSTED", 1),
    ("openai", "400"): (Reply(400, {}, openai_error(
        "Invalid value for 'temperature': must be between 0 and 2.", "invalid_request_error", "invalid_value",
        "temperature")), openai.BadRequestError, 400, "INVALID_REQUEST", 1),
    ("openai", "500"): (Reply(500, {}, openai_error(
        "The server had an error while processing your request. Sorry about that!", "server_error", None)),
        openai.InternalServerError, 500, "SERVER_ERROR", 2),
    ("anthropic", "429 retry-after"): (Reply(429, {"retry-after": "1", "request-id": "req_1"}, anthropic_error(
        "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")),
        anthropic.RateLimitError, 429, "RATE_LIMITED", 2),
    ("anthropic", "529 overloaded"): (Reply(529, {}, anthropic_error("overloaded_error", "Overloaded")),
                                      anthropic.OverloadedError, 529, "OVERLOADED", 2),
    ("anthropic", "400"): (Reply(400, {}, anthropic_error(
        "invalid_request_error", "max_tokens: Field required")), anthropic.BadRequestError, 400, "INVALID_REQUEST", 1),
    ("anthropic", "500"): (Reply(500, {}, anthropic_error("api_error", "Internal server error")),
                           anthropic.InternalServerError, 500, "SERVER_ERROR", 2),
    ("gemini", "429 RetryInfo"): (Reply(429, {}, google_error(429, "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota).", [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}])),
        genai_errors.ClientError, 429, "RATE_LIMITED", 2),
    ("gemini", "503 overloaded"): (Reply(503, {}, google_error(
        503, "UNAVAILABLE", "The model is overloaded. Please try again later.")),
        genai_errors.ServerError, 503, "OVERLOADED", 2),
    ("gemini", "400"): (Reply(400, {}, google_error(
        400, "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"foo\": Cannot find field.")),
        genai_errors.ClientError, 400, "INVALID_REQUEST", 1),
    ("gemini", "500"): (Reply(500, {}, google_error(500, "INTERNAL", "An internal error has occurred.")),
                        genai_errors.ServerError, 500, "SERVER_ERROR", 2),
}


@pytest.mark.parametrize("sdk,case", list(ERRORS), ids=[f"{s}-{c}" for s, c in ERRORS])
def test_sdk_exception_class_hits_and_envelope(route: Route, sdk: str, case: str) -> None:
    reply, cls, status, code, hits = ERRORS[(sdk, case)]
    route.up.script = [reply]
    with pytest.raises(cls) as info:
        CALLS[sdk](route)
    e: Any = info.value
    assert type(e) is cls
    assert (e.status_code if sdk != "gemini" else e.code) == status
    assert len(route.up.hits) == hits  # the SDK's own retries, and no one else's
    env = envelope_read_by(sdk, e)
    assert env["code"] == code and env["source"] == "provider"
    headers = e.response.headers
    assert headers["x-should-retry"] == ("true" if env["retryable"] else "false")
    assert json.loads(headers["x-toolerr-envelope"]) == env
    if "retry-after" in case or "RetryInfo" in case:
        assert headers["retry-after"] == "1" and headers["retry-after-ms"] == "1000"
        assert env["details"]["retry_after_seconds"] == 1
    else:
        assert "retry-after" not in headers
    for name, value in reply.headers.items():
        if name.endswith("request-id"):
            assert headers[name] == value  # every other upstream header passes


def test_sdk_obeys_x_should_retry_false_on_a_billing_429(route: Route) -> None:
    """A quota 429 is not retryable: openai-python's _should_retry reads x-should-retry
    before the status, so one upstream hit, not 1 + max_retries."""
    route.up.script = [ERRORS[("openai", "429 quota")][0]]
    with pytest.raises(openai.RateLimitError):
        run(openai_client(route, max_retries=3).chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}]))
    assert len(route.up.hits) == 1


# --- requests: the upstream receives the envelope with the format's native failure flag ------------------------------

def test_anthropic_envelope_reaches_the_upstream_with_is_error(route: Route) -> None:
    route.up.script = [Reply(body=ANTHROPIC_OK)]
    msg = call_anthropic(route, [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_01", "name": "get_weather",
                                           "input": {"city": "Paris"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": ENV_TEXT}]}])
    assert msg.content[0].text == "ok"
    (hit,) = route.up.hits
    result = hit.body["messages"][2]["content"][0]
    assert result == {"type": "tool_result", "tool_use_id": "toolu_01", "content": ENV_TEXT, "is_error": True}
    if route.mode != "gateway":
        (rep,) = route.reports
        assert rep["changed"] is True and rep["changes"]["flags_restored"] == 1


def test_gemini_envelope_reaches_the_upstream_under_error(route: Route) -> None:
    route.up.script = [Reply(body=GEMINI_OK)]
    resp = call_gemini(route, [
        {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
        {"role": "model", "parts": [{"function_call": {"name": "get_weather", "args": {"city": "Paris"}}}]},
        {"role": "user", "parts": [{"function_response": {"name": "get_weather", "response": {"output": ENV}}}]}])
    assert resp.text == "ok"
    (hit,) = route.up.hits
    assert hit.path == "/v1beta/models/gemini-2.5-flash:generateContent"
    assert hit.body["contents"][2]["parts"] == [{"functionResponse": {"name": "get_weather", "response": {"error": ENV}}}]


def test_openai_missing_parallel_result_gets_a_no_result_failure(route: Route) -> None:
    route.up.script = [Reply(body=OPENAI_OK)]
    calls = [{"id": f"call_{c}", "type": "function", "function": {"name": "get_weather",
                                                                 "arguments": json.dumps({"city": c})}}
             for c in ("Paris", "Rome")]
    call_openai(route, [{"role": "user", "content": "Weather in Paris and Rome?"},
                        {"role": "assistant", "content": None, "tool_calls": calls},
                        {"role": "tool", "tool_call_id": "call_Paris", "content": ENV_TEXT}])
    (hit,) = route.up.hits
    tools = [m for m in hit.body["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["call_Paris", "call_Rome"]
    assert tools[0]["content"] == ENV_TEXT
    assert json.loads(tools[1]["content"])["code"] == "NO_RESULT"


def test_an_unchanged_body_goes_byte_for_byte(route: Route) -> None:
    route.up.script = [Reply(body=OPENAI_OK)]
    raw = b'{ "model" : "gpt-4o",\n  "messages": [{"role": "user", "content": "hi"}], "seed": 12345678901234567890 }'
    assert post(route, "/v1/chat/completions", raw).status_code == 200
    assert route.up.hits[0].raw == raw


def test_an_unreadable_body_goes_as_it_came(route: Route) -> None:
    route.up.script = [Reply(400, {}, openai_error("We could not parse the JSON body of your request.",
                                                   "invalid_request_error", None))]
    resp = post(route, "/v1/chat/completions", b"{not json")
    assert route.up.hits[0].raw == b"{not json"
    assert resp.status_code == 400 and resp.json()["error"]["toolerr"]["code"] == "INVALID_REQUEST"


def post(r: Route, path: str, content: bytes) -> Any:
    """POST content with an httpx client of the route's mode (the gateway mode: a plain one)."""
    headers = {"content-type": "application/json"}
    if r.mode == "async":
        async def go() -> Any:
            async with r.client() as c:
                return await c.post(r.base + path, content=content, headers=headers)
        return asyncio.run(go())
    with (r.client() or httpx.Client()) as c:
        return c.post(r.base + path, content=content, headers=headers)


# --- streams --------------------------------------------------------------------------------------------------------

ANTHROPIC_STREAM = sse(
    ("message_start", {"type": "message_start", "message": {**ANTHROPIC_OK, "content": [], "stop_reason": None}}),
    ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Par"}}),
    ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))


def test_anthropic_stream_error_event(route: Route) -> None:
    route.up.script = [Reply(events=ANTHROPIC_STREAM)]
    texts: List[str] = []
    client = anthropic_client(route, max_retries=0)
    with pytest.raises(anthropic.APIStatusError) as info:
        each(route, lambda: client.messages.create(model="claude-sonnet-4-5", max_tokens=64, stream=True,
                                                   messages=[{"role": "user", "content": "hi"}]),
             lambda ev: texts.append(ev.delta.text) if ev.type == "content_block_delta" else None)
    assert texts == ["Par"]  # the stream passed up to the error, which came in the SDK's own shape
    env = info.value.body["error"]["toolerr"]  # type: ignore[index]
    assert env["code"] == "OVERLOADED" and env["retryable"] is True
    assert env["details"]["partial_output"] is True
    if route.mode != "gateway":
        (ev,) = route.stream_errors
        assert ev.envelope.to_dict() == env and ev.event == "error" and ev.endpoint.api == "messages"


def test_openai_stream_error_chunk(route: Route) -> None:
    chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
             "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Par"}, "finish_reason": None}]}
    route.up.script = [Reply(events=sse(("", chunk), ("", openai_error(
        "The server had an error while processing your request.", "server_error", None))))]
    texts: List[str] = []
    client = openai_client(route, max_retries=0)
    with pytest.raises(openai.APIError) as info:
        each(route, lambda: client.chat.completions.create(model="gpt-4o", stream=True,
                                                           messages=[{"role": "user", "content": "hi"}]),
             lambda c: texts.append(c.choices[0].delta.content))
    assert texts == ["Par"]
    env = info.value.body["toolerr"]  # type: ignore[index]
    assert env["code"] == "SERVER_ERROR" and env["details"]["partial_output"] is True
    if route.mode != "gateway":
        (ev,) = route.stream_errors
        assert ev.event == "" and ev.envelope.code == "SERVER_ERROR"


@pytest.mark.parametrize("mode", ["transport", "async"])
@pytest.mark.parametrize("h", [httpx, httpx2], ids=["httpx", "httpx2"])
def test_stream_passes_event_by_event(upstream: Upstream, mode: str, h: Any) -> None:
    """The client reads each event before the upstream writes the next: nothing is held."""
    upstream.script = [Reply(events=ANTHROPIC_STREAM[:3], gate_after=1)]
    url = upstream.url + "/v1/messages"
    body = {"model": "claude-sonnet-4-5", "max_tokens": 8, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    seen: List[bytes] = []
    if mode == "transport":
        eg = egress_httpx2 if h is httpx2 else egress_httpx
        with h.Client(transport=eg.EgressTransport()) as c, c.stream("POST", url, json=body) as r:
            for chunk in r.iter_bytes():
                seen.append(chunk)
                upstream.gate.set()
    else:
        async def consume() -> None:
            eg = egress_httpx2 if h is httpx2 else egress_httpx
            async with h.AsyncClient(transport=eg.AsyncEgressTransport()) as c:
                async with c.stream("POST", url, json=body) as r:
                    async for chunk in r.aiter_bytes():
                        seen.append(chunk)
                        upstream.gate.set()
        asyncio.run(consume())
    assert not upstream.gate_timed_out
    assert seen[0] == ANTHROPIC_STREAM[0]  # the first event alone, before the second was written
    assert b"".join(seen) == b"".join(ANTHROPIC_STREAM[:3])


def test_a_reporter_that_raises_does_not_break_the_stream(upstream: Upstream, caplog: pytest.LogCaptureFixture) -> None:
    upstream.script = [Reply(events=ANTHROPIC_STREAM)]

    def boom(_r: httpx.Request, _ev: StreamError) -> None:
        raise RuntimeError("reporter failed")

    body = {"model": "claude-sonnet-4-5", "max_tokens": 8, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with caplog.at_level(logging.ERROR, "toolerr.egress"), httpx.Client(transport=EgressTransport(on_stream_error=boom)) as c:
        r = c.post(upstream.url + "/v1/messages", json=body)
    assert r.status_code == 200 and r.text.count("event: ") == 4
    assert '"toolerr":{"code":"OVERLOADED"' in r.text
    assert "on_stream_error raised" in caplog.text


def test_default_reporter_logs_code_and_no_body(upstream: Upstream, caplog: pytest.LogCaptureFixture) -> None:
    upstream.script = [Reply(events=ANTHROPIC_STREAM)]
    body = {"model": "claude-sonnet-4-5", "max_tokens": 8, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    with caplog.at_level(logging.WARNING, "toolerr.egress"), httpx.Client(transport=EgressTransport()) as c:
        c.post(upstream.url + "/v1/messages", json=body)
    (rec,) = caplog.records
    assert "code=OVERLOADED" in rec.getMessage() and "Overloaded" not in rec.getMessage()


SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
SECRET_ERROR = b'{"error":{"message":"' + SECRET.encode() + b'","type":"server_error"}}'


def test_a_bom_before_the_first_event_hides_no_error_event(route: Route) -> None:
    """WHATWG event-stream parsing ignores one leading BOM: the error event behind it is rewritten."""
    route.up.script = [Reply(events=[b"\xef\xbb\xbfdata: " + SECRET_ERROR + b"\n\n"])]
    r = post(route, "/v1/chat/completions", b'{"model":"gpt-4o","stream":true,"messages":[]}')
    assert SECRET.encode() not in r.content
    assert r.content.count(b"data: ") == 1 and b'"toolerr":{"code":"SERVER_ERROR"' in r.content


def test_a_bom_before_a_passed_event_stays(route: Route) -> None:
    events = [b'\xef\xbb\xbfdata: {"choices":[]}\n\n', b"data: " + SECRET_ERROR + b"\n\n"]
    route.up.script = [Reply(events=events)]
    r = post(route, "/v1/chat/completions", b'{"model":"gpt-4o","stream":true,"messages":[]}')
    assert r.content.startswith(events[0]) and SECRET.encode() not in r.content


@pytest.mark.parametrize("eol", [b"", b"\n", b"\r\n"])
def test_a_stream_that_ends_inside_an_error_event_has_it_rewritten(route: Route, eol: bytes) -> None:
    """No blank line after the last event: an error event there is replaced as a complete one is."""
    event = b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"' + SECRET.encode() + b'"}}' + eol
    route.up.script = [Reply(events=[b"event: ping\ndata: {}\n\n", event])]
    r = post(route, "/v1/messages", b'{"model":"m","max_tokens":1,"stream":true,"messages":[]}')
    end = eol or b"\n"
    assert SECRET.encode() not in r.content
    assert r.content.startswith(b"event: ping\ndata: {}\n\nevent: error" + end + b"data: {")
    assert r.content.endswith(b"}" + end + end) and b'"toolerr":{"code":"OVERLOADED"' in r.content


def test_an_unfinished_tail_that_is_no_error_event_passes(route: Route) -> None:
    cut = b'data: {"choices":[{"delta":{"content":"cut'
    route.up.script = [Reply(events=[cut])]
    r = post(route, "/v1/chat/completions", b'{"model":"gpt-4o","stream":true,"messages":[]}')
    assert r.content == cut


@pytest.mark.parametrize("name", ["retry-after", "retry-after-ms"])
@pytest.mark.parametrize("value", ["-5", "abc", "1e9"])
def test_an_unreadable_retry_after_does_not_reach_the_client(route: Route, name: str, value: str) -> None:
    """The op gives no wait for a hint it cannot read, and the upstream's goes with it."""
    route.up.script = [Reply(503, {name: value, "x-request-id": "req_1"}, {"error": {"message": "busy", "type": "server_error"}})]
    r = post(route, "/v1/chat/completions", b'{"model":"gpt-4o","messages":[]}')
    assert r.status_code == 503 and r.headers["x-request-id"] == "req_1"
    assert r.headers.get_list("retry-after") == [] and r.headers.get_list("retry-after-ms") == []


def test_the_ops_wait_replaces_an_unreadable_one(route: Route) -> None:
    route.up.script = [Reply(429, {"retry-after": "7", "retry-after-ms": "abc"},
                             {"error": {"message": "slow down", "type": "rate_limit_error"}})]
    r = post(route, "/v1/chat/completions", b'{"model":"gpt-4o","messages":[]}')
    assert r.headers.get_list("retry-after") == ["7"]
    assert "abc" not in r.headers.get_list("retry-after-ms")


def test_a_rewritten_event_keeps_the_crlf_line_ends(route: Route) -> None:
    """go-genai splits events on one separator: a CRLF stream's error event stays CRLF."""
    ok = b'data: {"candidates":[{"content":{"parts":[{"text":"Par"}]}}]}\r\n\r\n'
    route.up.script = [Reply(events=[ok, b'data: {"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}}\r\n\r\n'])]
    r = post(route, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", b'{"contents":[]}')
    assert r.content.startswith(ok) and b'"toolerr":{"code":"' in r.content
    assert r.content.endswith(b"\r\n\r\n") and r.content.count(b"\n") == r.content.count(b"\r\n") == 4


def test_an_error_element_of_a_gemini_array_stream_is_rewritten(route: Route) -> None:
    """streamGenerateContent without alt=sse answers one JSON array, element by element: an error element
    in it becomes the error op's Gemini error object, the element before it passes byte for byte."""
    ok = b'[{"candidates":[{"content":{"parts":[{"text":"Par ] {"}]}}]}\r\n'
    route.up.script = [Reply(content_type="application/json; charset=UTF-8", events=[
        ok, b',{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}\r\n', b"]"])]
    r = post(route, "/v1beta/models/gemini-2.5-flash:streamGenerateContent", b'{"contents":[]}')
    assert r.status_code == 200 and r.content.startswith(ok + b",") and r.content.endswith(b"}\r\n]")
    arr = json.loads(r.content)
    assert arr[1]["error"]["status"] == "UNAVAILABLE"
    assert arr[1]["error"]["toolerr"]["code"] == "OVERLOADED"
    assert arr[1]["error"]["toolerr"]["details"]["partial_output"] is True
    if route.mode != "gateway":
        assert [ev.envelope.code for ev in route.stream_errors] == ["OVERLOADED"]


# --- the rest -------------------------------------------------------------------------------------------------------

def test_an_upstream_that_never_answers_is_a_native_502() -> None:
    sock = socket.socket()  # a port bound, then closed: it refuses connections
    sock.bind(("127.0.0.1", 0))
    url = "http://127.0.0.1:%d" % sock.getsockname()[1]
    sock.close()
    client = openai.OpenAI(api_key="sk-test", base_url=url + "/v1", max_retries=0,
                           http_client=httpx2.Client(transport=egress_httpx2.EgressTransport()))
    with pytest.raises(openai.APIStatusError) as info:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    assert info.value.status_code == 502
    assert info.value.body["toolerr"]["code"] == "TRANSPORT"  # type: ignore[index]
    assert info.value.response.headers["x-should-retry"] == "true"


def test_other_requests_pass_untouched(upstream: Upstream) -> None:
    upstream.script = [Reply(404, {}, {"error": "nope"})]
    with httpx.Client(transport=EgressTransport()) as c:
        r = c.post(upstream.url + "/v1/embeddings", content=b'{"input": "x"}')
    assert r.status_code == 404 and r.json() == {"error": "nope"}


@pytest.mark.parametrize("method,path,want", [
    ("POST", "/v1/chat/completions", ("chat_completions", "openai-chat", "")),
    ("POST", "/openai/deployments/d/chat/completions", ("chat_completions", "openai-chat", "")),
    ("POST", "/v1beta/openai/chat/completions", ("chat_completions", "openai-chat", "")),
    ("POST", "/v1/responses", ("responses", "openai-responses", "")),
    ("POST", "/v1/messages", ("messages", "anthropic", "")),
    ("POST", "/v1/messages/count_tokens", ("count_tokens", "anthropic", "")),
    ("POST", "/v1beta/models/gemini-2.5-flash:generateContent", ("generate_content", "gemini", "gemini-2.5-flash")),
    ("POST", "/v1/projects/p/locations/l/publishers/google/models/gemini-2.5-pro:streamGenerateContent",
     ("stream_generate_content", "gemini", "gemini-2.5-pro")),
    ("POST", "/v1/threads/t/messages", None),
    ("POST", "/v1beta/models/gemini-2.5-flash:embedContent", None),
    ("GET", "/v1/chat/completions", None),
])
def test_endpoint_of(method: str, path: str, want: Optional[Tuple[str, str, str]]) -> None:
    ep = endpoint_of(method, path)
    assert (None if ep is None else (ep.api, ep.format, ep.model)) == want
