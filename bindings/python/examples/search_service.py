"""Seed 000's search service, to run the runtime examples by hand: on 127.0.0.1, it answers
503, 503, then 400 (max_results must be at most 50), then starts over, and prints its URL.

    python3 bindings/python/examples/search_service.py [PORT]   # default: a free port
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ANSWERS = [
    (503, {"error": {"message": "search backend unavailable"}}),
    (503, {"error": {"message": "search backend unavailable"}}),
    (400, {"error": {"message": "max_results must be at most 50"}}),
]


class Handler(BaseHTTPRequestHandler):
    calls = 0

    def do_GET(self) -> None:
        status, body = ANSWERS[Handler.calls % len(ANSWERS)]
        Handler.calls += 1
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_POST = do_GET

    def log_message(self, fmt: str, *args: object) -> None:
        print(f"search service: {self.command} {self.path} -> {args[1] if len(args) > 1 else ''}", file=sys.stderr)


server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}/search", flush=True)
try:
    server.serve_forever()
except KeyboardInterrupt:
    pass
