"""Fake model upstreams on 127.0.0.1 and a real toolerr-gateway in front of them,
for the egress tests (test_egress.py).

An ``Upstream`` answers every request from a script of replies (the last one
repeated), each in the provider's own documented shape, records each request's
path and JSON body, and counts hits; a reply may be a stream of events, written
and flushed one by one, optionally waiting between two of them on a gate the
test opens. ``Gateway`` runs dist/toolerr-gateway (``make build``) on
127.0.0.1 with every family's base URL pointing at one upstream, and stops it
by its pid.
"""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

ROOT = Path(__file__).resolve().parents[3]


@dataclass
class Reply:
    """One scripted answer: status, headers and a JSON body, or SSE events."""

    status: int = 200
    headers: Dict[str, str] = field(default_factory=dict)
    body: Any = None
    events: Optional[List[bytes]] = None  # each written and flushed on its own
    content_type: str = "text/event-stream"  # of events (Gemini's JSON array without alt=sse: application/json)
    gate_after: int = -1  # wait for Upstream.gate after writing this many events


@dataclass
class Hit:
    """One request the upstream received."""

    path: str
    headers: Dict[str, str]
    raw: bytes
    body: Any  # the JSON body, None when it is not JSON


class Upstream:
    """A loopback HTTP server playing a model provider (see the module's doc)."""

    def __init__(self) -> None:
        self.script: List[Reply] = [Reply(body={})]
        self.hits: List[Hit] = []
        self.gate = threading.Event()
        self.gate_timed_out = False
        up = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                up.hits.append(Hit(self.path, {k.lower(): v for k, v in self.headers.items()}, raw, body))
                r = up.script[min(len(up.hits), len(up.script)) - 1]
                self.send_response(r.status)
                for k, v in r.headers.items():
                    self.send_header(k, v)
                if r.events is None:
                    data = json.dumps(r.body).encode()
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self.send_header("content-type", r.content_type)
                self.send_header("connection", "close")
                self.end_headers()
                for i, ev in enumerate(r.events):
                    if i == r.gate_after:
                        up.gate_timed_out = not up.gate.wait(10)
                    self.wfile.write(ev)
                    self.wfile.flush()
                self.close_connection = True

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "Upstream":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def gateway_binary() -> Optional[Path]:
    """dist/toolerr-gateway (or $TOOLERR_GATEWAY), None when it was not built."""
    p = Path(os.environ.get("TOOLERR_GATEWAY") or ROOT / "dist" / "toolerr-gateway")
    return p if p.is_file() else None


class Gateway:
    """toolerr-gateway on 127.0.0.1 (a free port) in front of one upstream."""

    def __init__(self, binary: Path, upstream: str) -> None:
        self._proc = subprocess.Popen(
            [str(binary), "-addr", "127.0.0.1:0", "-openai-base", upstream, "-anthropic-base", upstream,
             "-gemini-base", upstream, "-log-format", "json"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.url = ""
        assert self._proc.stderr is not None
        for line in self._proc.stderr:  # the first records, up to the one naming the address listened on
            rec = json.loads(line)
            if rec.get("msg") == "toolerr gateway listening":
                self.url = "http://" + rec["addr"]
                break
        if not self.url:
            self.stop()
            raise RuntimeError("toolerr-gateway exited before listening")
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self._proc.stderr is not None
        for _ in self._proc.stderr:
            pass

    def stop(self) -> None:
        self._proc.terminate()
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


def sse(*events: Tuple[str, Any]) -> List[bytes]:
    """SSE events (name, data) as the wire carries them ("" for a data-only event)."""
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {json.dumps(data)}\n\n".encode())
    return out


def serve() -> Iterator[Upstream]:
    up = Upstream().start()
    try:
        yield up
    finally:
        up.stop()
