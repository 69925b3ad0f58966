"""The runtime's worked examples (threads and asyncio) against a real HTTP server on loopback: 503, 503, then 400."""

from __future__ import annotations

import http.server
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Iterator, List

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture
def search_server() -> Iterator[List[str]]:
    """A search service on 127.0.0.1 that answers 503, 503, then 400; yields its URL and the paths it served."""
    answers = [(503, b'{"error":"search backend unavailable"}'), (503, b'{"error":"search backend unavailable"}'),
               (400, b'{"error":"invalid argument: \'max_results\' must be at most 50"}')]
    served: List[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, body = answers[min(len(served), len(answers) - 1)]
            served.append(self.path)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    try:
        yield [f"http://127.0.0.1:{srv.server_address[1]}/search?q=flights&max_results=500"] + served
        assert len(served) == 3
    finally:
        srv.shutdown()
        srv.server_close()
        t.join(5)


@pytest.mark.parametrize("example", ["runtime_example.py", "runtime_async_example.py"])
def test_runtime_example_retries_503s_and_hands_the_400_to_the_model(search_server: List[str], example: str) -> None:
    out = subprocess.run([sys.executable, str(EXAMPLES / example), search_server[0]], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert re.fullmatch(r"attempt 1: TRANSPORT -> retried silently after \d+ ms", lines[0]), lines
    assert re.fullmatch(r"attempt 2: TRANSPORT -> retried silently after \d+ ms", lines[1]), lines
    assert lines[2:] == ["attempt 3: INVALID_ARGS -> not retried (not_retryable)",
                         "the model gets: INVALID_ARGS not retryable after 3 calls",
                         "tool_result is_error: True"]
