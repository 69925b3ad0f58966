"""A loopback HTTP server that plays a model provider and a search service.

The frameworks under test run their own agent loops with the real provider
SDKs (openai, anthropic, google-genai), whose base URL points here. The
server answers each API in its own published shape and records every
request body, so a test asserts on the exact bytes the SDK sent:

- ``POST /v1/chat/completions`` (OpenAI Chat Completions), ``POST
  /v1/responses`` (OpenAI Responses), ``POST /v1/messages`` (Anthropic
  Messages), ``POST /v1beta/models/{model}:generateContent`` (Gemini);
- ``GET /search``: seed 000's search tool, answering the statuses of its
  trace (503, 503, 400 by default) and repeating the last.

The scripted model is the same for every API: with no tool result in the
request it calls ``search`` with ``{"q": "flights", "max_results": 500}``;
when the latest tool result is an envelope (its text, or Gemini's
``response.error``) with ``retryable: false`` it stops with a text answer
naming the code; on anything else (a retryable envelope, or free text such
as "Please try again.") it calls ``search`` again, so ambiguous feedback
loops and a clear code ends the run. After ``bound`` model requests it
stops whatever it reads, so a framework without a turn limit still ends.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Tuple
from urllib.parse import parse_qs, urlsplit

import httpx

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "frameworks"
ARGS = {"q": "flights", "max_results": 500}
SEED_TRACE: List[Tuple[int, Dict[str, Any]]] = [
    (503, {"error": "search backend unavailable"}),
    (503, {"error": "search backend unavailable"}),
    (400, {"error": "invalid argument: 'max_results' must be at most 50"}),
]


@dataclass
class Request:
    """One recorded request: the API it hit and its JSON body (None for GET)."""

    api: str
    path: str
    body: Any


@dataclass
class Loopback:
    """The running server: base URLs per API and what it recorded."""

    port: int
    requests: List[Request] = field(default_factory=list)
    trace: List[Tuple[int, Dict[str, Any]]] = field(default_factory=lambda: list(SEED_TRACE))
    bound: int = 8
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        """The server's root URL."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def search_url(self) -> str:
        """The search tool's endpoint."""
        return self.url + "/search"

    def model_requests(self, api: Optional[str] = None) -> List[Any]:
        """The bodies of the model requests, in order (of one API when named)."""
        return [r.body for r in self.requests if r.api != "search" and (api is None or r.api == api)]

    def searches(self) -> List[str]:
        """The query strings of the search calls, in order."""
        return [r.path for r in self.requests if r.api == "search"]


def search_tool(lb: "Loopback", sync: bool = False) -> Any:
    """Seed 000's search tool as a user writes it: an HTTP GET that raises
    httpx.HTTPStatusError on a failed status (async, or sync when asked)."""
    def search(q: str, max_results: int) -> str:
        """Search for flights."""
        r = httpx.get(lb.search_url, params={"q": q, "max_results": max_results})
        r.raise_for_status()
        return r.text

    async def asearch(q: str, max_results: int) -> str:
        """Search for flights."""
        async with httpx.AsyncClient() as http:
            r = await http.get(lb.search_url, params={"q": q, "max_results": max_results})
            r.raise_for_status()
            return r.text

    asearch.__name__ = "search"
    return search if sync else asearch


# The keys the examples' SDKs read from the environment, as a user's would:
# placeholders, so that no real key set where the tests run reaches lb.
EXAMPLE_KEYS = {"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test"}


def run_example(name: str, lb: "Loopback", model_requests: int = 2) -> List[str]:
    """Run an example of examples/frameworks against lb (the SDKs' keys set to
    EXAMPLE_KEYS); return its output lines after checking seed 000's outcome
    (3 searches, model_requests model requests)."""
    env = dict(os.environ, **EXAMPLE_KEYS)
    out = subprocess.run([sys.executable, str(EXAMPLES / name), lb.url, lb.search_url],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert len(lb.searches()) == 3 and len(lb.model_requests()) == model_requests
    return out.stdout.splitlines()


def tool_result(api: str, body: Dict[str, Any]) -> Tuple[bool, Any]:
    """Return (found, value) of the latest tool result in a model request:
    its text (str) or, for Gemini, the functionResponse.response object."""
    if api == "chat":
        msgs = [m for m in body.get("messages", []) if m.get("role") == "tool"]
        return (True, _text(msgs[-1].get("content"))) if msgs else (False, None)
    if api == "responses":
        inp = body.get("input")
        items = [i for i in inp if isinstance(i, dict) and i.get("type") == "function_call_output"] \
            if isinstance(inp, list) else []
        return (True, _text(items[-1].get("output"))) if items else (False, None)
    if api == "anthropic":
        blocks = [b for m in body.get("messages", []) if m.get("role") == "user" and isinstance(m.get("content"), list)
                  for b in m["content"] if b.get("type") == "tool_result"]
        return (True, _text(blocks[-1].get("content"))) if blocks else (False, None)
    parts = [p["functionResponse"] for c in body.get("contents", []) for p in c.get("parts", [])
             if "functionResponse" in p]
    return (True, parts[-1].get("response")) if parts else (False, None)


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def envelope_in(value: Any, depth: int = 0) -> Optional[Dict[str, Any]]:
    """The envelope a tool result carries, if any, as a model would find it:
    the result's JSON text (text after the JSON, such as pydantic-ai's "Fix
    the errors and try again.", is ignored), or an object that is one or
    holds one under "error" or "output" (as JSON text or an object)."""
    if depth > 3:
        return None
    if isinstance(value, str):
        try:
            value, _ = json.JSONDecoder().raw_decode(value.strip())
        except ValueError:
            return None
    if not isinstance(value, dict):
        return None
    if {"code", "message", "retryable", "details", "source"} <= value.keys():
        return value
    for key in ("error", "output", "result"):
        if key in value:
            return envelope_in(value[key], depth + 1)
    return None


def decide(api: str, body: Dict[str, Any], n: int, bound: int) -> Optional[str]:
    """The scripted model: None to call search, else the final answer text."""
    found, value = tool_result(api, body)
    if not found:
        return None
    env = envelope_in(value)
    if env is not None and env["retryable"] is False:
        return f"stopped: {env['code']}"
    if n >= bound:
        return "stopped: bound"
    return None


def reply(api: str, n: int, answer: Optional[str], model: str) -> Dict[str, Any]:
    """The provider's response body: a search call (answer None) or a final text."""
    call_id = f"call_{n}"
    if api == "chat":
        msg: Dict[str, Any] = {"role": "assistant", "content": answer}
        if answer is None:
            msg["tool_calls"] = [{"id": call_id, "type": "function",
                                  "function": {"name": "search", "arguments": json.dumps(ARGS)}}]
        return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": model,
                "choices": [{"index": 0, "message": msg, "finish_reason": "stop" if answer else "tool_calls",
                             "logprobs": None}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
    if api == "responses":
        out: Dict[str, Any] = {"type": "function_call", "id": f"fc_{n}", "call_id": call_id, "name": "search",
                               "arguments": json.dumps(ARGS), "status": "completed"} if answer is None else \
            {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": answer, "annotations": []}]}
        return {"id": f"resp_{n}", "object": "response", "created_at": 0, "status": "completed", "model": model,
                "output": [out], "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
                "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                          "input_tokens_details": {"cached_tokens": 0},
                          "output_tokens_details": {"reasoning_tokens": 0}}}
    if api == "anthropic":
        block = {"type": "tool_use", "id": f"toolu_{n:02d}", "name": "search", "input": ARGS} if answer is None \
            else {"type": "text", "text": answer}
        return {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": model, "content": [block],
                "stop_reason": "tool_use" if answer is None else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5}}
    part = {"functionCall": {"name": "search", "args": ARGS}} if answer is None else {"text": answer}
    return {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": model}


def anthropic_events(msg: Dict[str, Any]) -> List[Tuple[str, Dict[str, Any]]]:
    """A Messages response as the server-sent events of a streamed one
    (https://docs.anthropic.com/en/api/messages-streaming)."""
    start = dict(msg, content=[], stop_reason=None, usage={"input_tokens": 10, "output_tokens": 0})
    events: List[Tuple[str, Dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    for i, block in enumerate(msg["content"]):
        if block["type"] == "tool_use":
            first = dict(block, input={})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        else:
            first = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        events += [("content_block_start", {"type": "content_block_start", "index": i, "content_block": first}),
                   ("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}),
                   ("content_block_stop", {"type": "content_block_stop", "index": i})]
    events += [("message_delta", {"type": "message_delta", "usage": {"output_tokens": 5},
                                  "delta": {"stop_reason": msg["stop_reason"], "stop_sequence": None}}),
               ("message_stop", {"type": "message_stop"})]
    return events


_ROUTES = [("chat", re.compile(r"/chat/completions$")), ("responses", re.compile(r"/responses$")),
           ("anthropic", re.compile(r"/messages$")), ("gemini", re.compile(r":(stream)?[gG]enerateContent$"))]


def serve() -> Iterator[Loopback]:
    """Run a Loopback on 127.0.0.1 (an ephemeral port) until the generator is closed."""
    lb = Loopback(port=0)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _send(self, status: int, obj: Any, sse: bool = False, events: Any = None) -> None:
            data = json.dumps(obj).encode()
            if sse:
                data = b"data: " + data + b"\r\n\r\n"
            if events is not None:
                sse = True
                data = b"".join(f"event: {name}\ndata: {json.dumps(ev)}\n\n".encode() for name, ev in events)
            self.send_response(status)
            self.send_header("Content-Type", "text/event-stream" if sse else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            u = urlsplit(self.path)
            if u.path != "/search":
                self._send(404, {"error": "not found"})
                return
            with lb.lock:
                n = len(lb.searches())
                lb.requests.append(Request("search", self.path, None))
                status, body = lb.trace[min(n, len(lb.trace) - 1)]
            if status == 200:
                body = {"results": [f"flight {i}" for i in range(int(parse_qs(u.query).get("max_results", ["3"])[0]))]}
            self._send(status, body)

        def do_POST(self) -> None:
            u = urlsplit(self.path)
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            api = next((a for a, rx in _ROUTES if rx.search(u.path)), None)
            if api is None:
                self._send(404, {"error": "not found"})
                return
            body = json.loads(raw)
            with lb.lock:
                lb.requests.append(Request(api, self.path, body))
                n = len(lb.model_requests())
            model = str(body.get("model") or u.path.split("/models/")[-1].split(":")[0])
            out = reply(api, n, decide(api, body, n, lb.bound), model)
            if api == "anthropic" and body.get("stream"):
                self._send(200, None, events=anthropic_events(out))
            else:
                self._send(200, out, sse="stream" in u.path)

        def log_message(self, *args: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    lb.port = srv.server_address[1]
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield lb
    finally:
        srv.shutdown()
        srv.server_close()
        t.join(5)
