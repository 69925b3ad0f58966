"""The egress transports on a success that is an error object in place of the
answer (Gemini's 200 {"error":{...}}), over httpx.MockTransport: answered as the
failure it stands for, as egress.RewriteSuccessError answers it in Go; every
other success passes as it came (docs/egress.md, "An error object under 200")."""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path
from typing import Any, List

import httpx
import pytest

from toolerr.integrations._egress_http import may_be_error_object
from toolerr.integrations.httpx import AsyncEgressTransport, EgressTransport

GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
BODY = b'{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}'
SECRET = "key=AIzaSyA-secret-key-0123456789abcdefghij"
ERROR_200 = ('{\n  "error": {\n    "code": 503,\n    "message": "The model is overloaded. Please try again later. ' + SECRET
             + '",\n    "status": "UNAVAILABLE"\n  }\n}\n').encode()
ENVELOPE = {"code": "OVERLOADED", "details": {"provider": "gemini", "provider_type": "UNAVAILABLE", "status": 503},
            "message": "The Gemini API is overloaded (HTTP 503); retry later.", "retryable": True, "source": "provider"}
ESCAPED_200 = b'{"\\u0065rror":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}'
HEADS = Path(__file__).resolve().parents[3] / "conformance" / "fixtures" / "egress_error" / "success_head.json"
OK = b'{"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},"finishReason":"STOP"}]}'


def _base(body: bytes, headers: Any = None) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=headers or {"content-type": "application/json"}, content=body)
    return httpx.MockTransport(handle)


@pytest.mark.parametrize("body, coded", [(ERROR_200, False), (b"\xef\xbb\xbf" + ERROR_200, False), (ERROR_200, True)],
                         ids=["plain", "bom", "gzip"])
def test_a_200_error_object_is_answered_as_its_failure(body: bytes, coded: bool) -> None:
    headers = {"content-type": "application/json"}
    if coded:
        body, headers["content-encoding"] = gzip.compress(body), "gzip"
    with httpx.Client(transport=EgressTransport(_base(body, headers))) as c:
        resp = c.post(GEMINI, content=BODY)
    assert resp.status_code == 503
    assert SECRET not in resp.text
    assert resp.json() == {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE",
                                     "toolerr": ENVELOPE}}
    assert json.loads(resp.headers["x-toolerr-envelope"]) == ENVELOPE
    assert resp.headers["x-should-retry"] == "true"


def test_a_200_error_object_async() -> None:
    async def run() -> httpx.Response:
        async with httpx.AsyncClient(transport=AsyncEgressTransport(_base(ERROR_200))) as c:
            return await c.post(GEMINI, content=BODY)
    resp = asyncio.run(run())
    assert resp.status_code == 503 and resp.json()["error"]["toolerr"] == ENVELOPE


@pytest.mark.parametrize("body", [
    OK,
    b'{"id":"resp_1","object":"response","status":"failed","error":{"code":"server_error","message":"x"},"output":[]}',
    b'{"error":"overloaded"}',
    b"",
    b'{"candidates":[{"content":{"parts":[{"text":"' + b"x" * (3 << 20) + b'"}]}}]}',
], ids=["success", "failed-response", "error-string", "empty", "large"])
def test_any_other_success_passes_as_it_came(body: bytes) -> None:
    with httpx.Client(transport=EgressTransport(_base(body))) as c:
        resp = c.post(GEMINI, content=BODY)
    assert resp.status_code == 200
    assert resp.content == body


def test_an_error_object_past_max_error_bytes_passes_unparsed() -> None:
    body = b'{"error":{"message":"' + b"x" * (2 << 20) + b'"}}'
    with httpx.Client(transport=EgressTransport(_base(body))) as c:
        resp = c.post(GEMINI, content=BODY)
    assert resp.status_code == 200 and resp.content == body


def test_an_escaped_error_name_is_an_error_object() -> None:
    # {"\u0065rror": is {"error": to every JSON parser, and to the core's SuccessError.
    with httpx.Client(transport=EgressTransport(_base(ESCAPED_200))) as c:
        resp = c.post(GEMINI, content=BODY)
    assert resp.status_code == 503
    assert resp.json()["error"]["toolerr"]["code"] == "OVERLOADED"


def _heads() -> List[Any]:
    cases = json.loads(HEADS.read_text())
    return [(t["request"]["upstream"]["http"]["head"], t["response"]["ok"] == {"read": True})
            for c in cases for t in c["tests"] if "ok" in t["response"]]


@pytest.mark.parametrize("head, read", _heads())
def test_the_gate_is_the_cores(head: str, read: bool) -> None:
    # The shared fixture's heads (conformance/fixtures/egress_error/success_head.json), as bytes.
    assert may_be_error_object(head.encode(), "gemini", 200) is read
