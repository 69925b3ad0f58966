"""The thin request builders: each reaches its op and maps the answer to Python types."""

import json
import traceback
from typing import Any, Dict, List, Optional, Tuple

import pytest

import toolerr

from conftest import REPO

ERR = toolerr.Envelope("TIMEOUT", "Search timed out after 10 s.", True, {"tool": "search"}, "tool")


class FakeHTTPXResponse:  # the attributes httpx.Response and requests.Response share
    def __init__(self, status: int, headers: Dict[str, str], text: str) -> None:
        self.status_code, self.headers, self.text = status, headers, text


class FakeAPIStatusError(Exception):  # openai.APIStatusError / anthropic.APIStatusError
    def __init__(self, response: FakeHTTPXResponse, body: Any) -> None:
        super().__init__("Error code: 429")
        self.response, self.status_code, self.body = response, response.status_code, body


class FakeGenaiAPIError(Exception):  # google.genai.errors.APIError: .code, .details, .response
    def __init__(self, code: int, details: Any) -> None:
        super().__init__(f"{code} error")
        self.code, self.details, self.response = code, details, None


def test_classify_http_reads_retry_after() -> None:
    e = toolerr.classify_http(429, {"Retry-After": "7"}, tool="get_weather")
    assert (e.code, e.retryable, e.details["retry_after_seconds"]) == ("RATE_LIMITED", True, 7)


def test_classify_http_with_a_tool_is_the_tools_failure() -> None:
    # One rule, in the core: naming a tool makes it the tool's failure unless source says otherwise.
    e = toolerr.classify_http(503, tool="search")
    assert (e.source, e.message) == ("tool", "The search tool is unavailable (HTTP 503); retry later.")
    e = toolerr.classify_http(400, body={"error": {"message": "max_results must be at most 50"}}, tool="search")
    assert (e.code, e.details["tool_message"]) == ("INVALID_ARGS", "max_results must be at most 50.")
    assert "provider" not in e.details
    assert toolerr.classify_http(503, tool="search", source="provider").source == "provider"


def test_classify_response_reads_httpx_like_and_sdk_errors_alike() -> None:
    body = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    r = FakeHTTPXResponse(529, {"content-type": "application/json"}, body)
    direct = toolerr.classify_response(r, provider="anthropic")
    via_sdk = toolerr.classify_response(FakeAPIStatusError(r, json.loads(body)), provider="anthropic")
    assert direct == via_sdk
    assert (direct.code, direct.retryable, direct.details["status"]) == ("OVERLOADED", True, 529)


def test_classify_response_reads_google_genai_errors() -> None:
    details = {"error": {"code": 503, "status": "UNAVAILABLE", "message": "The model is overloaded."}}
    e = toolerr.classify_response(FakeGenaiAPIError(503, details), provider="gemini")
    assert e.retryable and e.details["status"] == 503


VALUES = sorted((REPO / "conformance" / "values").glob("*.json"))
_NONFINITE = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


def _native(v: Any) -> Any:
    """A conformance/values value built as Python's own: {"$nonfinite": name} as that float."""
    if isinstance(v, dict):
        return _NONFINITE[v["$nonfinite"]] if list(v) == ["$nonfinite"] else {k: _native(x) for k, x in v.items()}
    return [_native(x) for x in v] if isinstance(v, list) else v


@pytest.mark.parametrize("case", [c for p in VALUES for c in json.loads(p.read_text())],
                         ids=lambda c: str(c["description"]))
def test_a_nan_is_sent_as_null_as_in_every_language(case: Dict[str, Any]) -> None:
    # conformance/values: a NaN or an infinity the caller's value holds is sent as null, as Node's
    # JSON.stringify and Rust's serde_json send it. json wrote NaN, which is no JSON: invoke raised
    # INVALID_INPUT ("request is not valid JSON") where Node and Rust answered.
    value = _native(case["value"])
    assert toolerr.canonicalize(value) == case["sent"]
    assert toolerr.invoke({"op": "canonicalize", "value": value}) == json.loads(case["sent"])
    if isinstance(value, dict):  # a value the caller puts in an envelope's details
        e = toolerr.envelope("TOOL_ERROR", "failed", details=value)
        assert e.details == json.loads(case["sent"])
        assert json.loads(e.wire())["details"] == json.loads(case["sent"])


def test_a_nan_key_and_a_value_that_holds_itself() -> None:
    # A float key is written by its name, as JSON.stringify writes String(NaN); a value that holds itself
    # still raises ValueError (the NaN fallback writes nothing of it), a set still TypeError.
    assert toolerr.canonicalize({float("nan"): 1.0, "x": float("inf")}) == '{"NaN":1,"x":null}'
    loop: Dict[str, Any] = {"x": float("nan")}
    loop["self"] = loop
    with pytest.raises(ValueError, match="Circular"):
        toolerr.canonicalize(loop)
    with pytest.raises(TypeError):
        toolerr.canonicalize({"x": float("nan"), "s": {1}})


CHAINS = sorted((REPO / "conformance" / "exceptions").glob("*.json"))


def _chain_cases() -> List[Tuple[str, Dict[str, Any]]]:
    return [(f"{p.name}/{c['description']}", c) for p in CHAINS for c in json.loads(p.read_text())]


def _raised(error: Dict[str, Any], causes: List[Dict[str, Any]]) -> BaseException:
    """error raised from each of causes in turn (the outer first), as Python chains them (raise ... from)."""
    def make(e: Dict[str, Any]) -> BaseException:
        return type(e["type"], (Exception,), {})(e["message"])  # type: ignore[no-any-return]
    exc: Optional[BaseException] = None
    for e in reversed([error] + causes):
        outer = make(e)
        outer.__cause__ = exc
        exc = outer
    assert exc is not None
    return exc


@pytest.mark.parametrize("case", [c for _, c in _chain_cases()], ids=[i for i, _ in _chain_cases()])
def test_a_cause_chain_decides_as_in_every_language(case: Dict[str, Any]) -> None:
    # conformance/exceptions: the same chain built as each language's own errors gives the same decision
    # in Python, Node and Rust. Python sent no cause: "search failed" from a refused connection was
    # TOOL_ERROR, not retryable, where Node's Error.cause and Rust's source chain gave TRANSPORT.
    if "code" in case.get("needs", []):
        pytest.skip("a Python exception has no code")
    e = toolerr.classify_exception(_raised(case["error"], case["causes"]), tool="search")
    want = case["expect"]
    assert (e.code, e.retryable, e.details.get("cause")) == (want["code"], want["retryable"], want.get("cause"))


def test_the_cause_chain_is_the_one_python_prints() -> None:
    # The cause is __cause__, else __context__ unless suppressed (raise ... from None), as the traceback
    # module prints it; a cycle, or a cause whose str raises, ends the chain with the causes read before it.
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no str")

    def during(inner: BaseException, outer: BaseException, suppress: bool = False) -> BaseException:
        try:
            try:
                raise inner
            except BaseException:
                if suppress:
                    raise outer from None
                raise outer
        except BaseException as got:
            return got

    refused = ConnectionRefusedError(111, "Connection refused")
    assert toolerr.classify_exception(during(refused, RuntimeError("search failed")), tool="s").code == "TRANSPORT"
    refused = ConnectionRefusedError(111, "Connection refused")
    assert toolerr.classify_exception(during(refused, RuntimeError("search failed"), True), tool="s").code == "TOOL_ERROR"
    a, b = RuntimeError("a"), ConnectionResetError(104, "Connection reset by peer")
    a.__cause__, b.__cause__ = b, a
    e = toolerr.classify_exception(a, tool="s")
    assert (e.code, e.details.get("cause")) == ("TRANSPORT", "connection_reset")
    mid = OSError("connect ECONNREFUSED 127.0.0.1:9")
    mid.__cause__ = Unprintable()
    top = RuntimeError("search failed")
    top.__cause__ = mid
    assert toolerr.classify_exception(top, tool="s").details.get("cause") == "connection_refused"
    assert toolerr._exception_request(top, "s").members["exception"]["traceback"] == (
        "search failed\n\nCaused by:\n    OSError: connect ECONNREFUSED 127.0.0.1:9")


def test_classify_exception_never_leaks_the_traceback() -> None:
    try:
        raise ConnectionRefusedError("[Errno 111] Connection refused; key=sk-abcdefghijklmnopqrstuvwx")
    except ConnectionRefusedError as exc:
        e = toolerr.classify_exception(exc, tool="search")
    assert e.source == "tool" and e.details["tool"] == "search"
    assert "Traceback" not in e.message and "sk-abcdefghijklmnopqrstuvwx" not in e.message


def test_classify_exception_decides_as_with_the_printed_traceback() -> None:
    # The binding sends type and message only; the op reads a traceback only
    # when no type is given, so sending the printed one changes nothing.
    for exc in (TimeoutError("read timed out"), ValueError("bad page token"),
                ConnectionRefusedError("[Errno 111] Connection refused; key=sk-abcdefghijklmnopqrstuvwx")):
        try:
            raise exc
        except Exception as caught:
            tb = "".join(traceback.format_exception(type(caught), caught, caught.__traceback__))
            with_tb = toolerr.invoke({"op": "classify_exception", "tool": "search", "exception": {
                "type": type(caught).__qualname__, "message": str(caught), "traceback": tb}})
            assert toolerr.classify_exception(caught, tool="search").to_dict() == with_tb


def test_classify_response_without_status_falls_back_to_the_exception() -> None:
    e = toolerr.classify_response(TimeoutError("read timed out"))
    assert e.code == "TIMEOUT"


@pytest.mark.parametrize("fmt", ["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock", "mcp"])
def test_serialize_then_parse_gives_the_outcome_back(fmt: str) -> None:
    o = toolerr.Outcome("call_1", "search", error=ERR)
    msgs = toolerr.serialize(fmt, [o])
    assert toolerr.parse(fmt, msgs) == [toolerr.Outcome("call_1" if fmt != "mcp" else "",
                                                        "search" if fmt == "gemini" else "", error=ERR)]


def test_to_functions_give_each_vendor_shape() -> None:
    o = [toolerr.Outcome("call_1", "search", error=ERR)]
    [chat] = toolerr.to_openai_chat(o)
    assert chat["role"] == "tool" and set(json.loads(chat["content"])) == {
        "code", "message", "retryable", "details", "source"}
    assert toolerr.to_openai_responses(o)[0]["type"] == "function_call_output"
    assert toolerr.to_anthropic(o)[0]["content"][0]["is_error"] is True
    assert "error" in toolerr.to_gemini(o)[0]["parts"][0]["functionResponse"]["response"]
    assert toolerr.to_bedrock(o)[0]["content"][0]["toolResult"]["status"] == "error"
    assert toolerr.to_mcp(o)[0]["isError"] is True


def test_retry_decision_never_retries_a_terminal_error() -> None:
    bad = toolerr.envelope("INVALID_ARGS", "city is required")
    assert toolerr.retry_decision(bad, 1, draw=0.5)["retry"] is False
    assert toolerr.retry_decision(ERR, 1, draw=0.5)["retry"] is True


def test_breaker_opens_after_failures() -> None:
    state = None
    for t in range(3):
        state = toolerr.breaker(state, "failure", now_ms=1000 + t, error=ERR)["state"]
    assert toolerr.breaker(state, "allow", now_ms=2000)["allowed"] is False


def _content(env: toolerr.Envelope) -> Any:
    return json.loads(toolerr.to_anthropic([toolerr.Outcome("toolu_01", "search", error=env)])[0]["content"][0]["content"])


def test_an_envelope_keeps_the_cores_bytes_and_sees_every_later_change() -> None:
    env = toolerr.envelope("TIMEOUT", "Search timed out after 10 s.", details={"attempt": 1})
    assert env.wire() == toolerr.canonicalize(env.to_dict()).encode()  # the core's own bytes, kept
    assert _content(env)["details"] == {"attempt": 1}
    env.details["attempt"] = True  # True == 1 in Python: the kept bytes must not be reused
    assert _content(env)["details"] == {"attempt": True}
    env.details["fields"] = ["q"]
    assert _content(env)["details"] == {"attempt": True, "fields": ["q"]}
    env.details["fields"].append("limit")  # nested values are written afresh every time
    assert _content(env)["details"] == {"attempt": True, "fields": ["q", "limit"]}
    del env.details["fields"]
    assert _content(env)["details"] == {"attempt": True}


def test_kept_bytes_stay_out_of_fields_equality_and_pickles() -> None:
    import dataclasses
    import pickle

    env = toolerr.envelope("TIMEOUT", "Search timed out after 10 s.")
    env.wire()
    assert dataclasses.asdict(env) == env.to_dict()
    copy = pickle.loads(pickle.dumps(env))
    assert copy == env and "_wire" not in copy.__dict__
    assert dataclasses.replace(env, code="UPSTREAM_UNAVAILABLE").wire().startswith(b'{"code":"UPSTREAM_UNAVAILABLE"')


def test_an_answer_longer_than_the_threads_buffer_arrives_whole() -> None:
    text = "é" * 50_000  # 100,000 bytes of UTF-8, past the 64 KiB each thread answers into
    assert toolerr.canonicalize(text) == json.dumps(text, ensure_ascii=False)
    assert toolerr.canonicalize("short") == '"short"'  # and the buffer is used again after


def test_the_egress_error_text_of_a_hostile_exception_is_bounded_and_never_raises() -> None:
    # The egress transports wrote f"{type(exc).__name__}: {exc}": an exception whose str raises raised out of
    # the transport, and one of 33 MiB took the egress_error request past the core's limit (ToolerrError), where
    # the client is due the native 502. The text is the exception's first line and its causes', as in Node and Rust.
    class Unprintable(ConnectionError):
        def __str__(self) -> str:
            raise RuntimeError("no str")

    huge = ConnectionRefusedError("connect ECONNREFUSED 127.0.0.1:9 " + "x" * (33 << 20))
    caused = RuntimeError("All connection attempts failed\nsecond line")
    caused.__cause__ = OSError("connect ECONNREFUSED 127.0.0.1:9")
    cases = [(Unprintable(), toolerr._type_name(Unprintable()), "UNEXPECTED_STATUS", None),
             (huge, "ConnectionRefusedError: connect ECONNREFUSED 127.0.0.1:9 " + "x" * (4096 - 33), "TRANSPORT",
              "connection_refused"),
             (caused, "RuntimeError: All connection attempts failed: OSError: connect ECONNREFUSED 127.0.0.1:9",
              "TRANSPORT", "connection_refused")]
    for exc, text, code, cause in cases:
        assert toolerr._error_text(exc) == text
        rep = toolerr.invoke({"op": "egress_error", "ingress": "openai-chat",
                              "upstream": {"provider": "openai-chat", "error_text": text}})
        assert (rep["status"], rep["envelope"]["code"], rep["envelope"]["details"].get("cause")) == (502, code, cause)
