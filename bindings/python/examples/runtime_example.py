"""Seed 000's worked example through the runtime: a search tool over HTTP answers 503, 503, then 400."""
import json
import random
import sys
import urllib.request
from typing import Any, Dict

import toolerr
from toolerr.runtime import Executor

if len(sys.argv) != 2:
    sys.exit("usage: runtime_example.py URL (a search service: bindings/python/examples/search_service.py in the clone starts one)")
url = sys.argv[1]  # the search service (the test starts one on loopback)


def search() -> Any:  # urllib raises HTTPError for the 503s and the 400
    with urllib.request.urlopen(url, timeout=5) as resp:
        return json.load(resp)


def show(d: Dict[str, Any]) -> None:  # every decision is a record from the core
    if d["kind"] == "retry":
        then = f"retried silently after {d['delay_ms']} ms" if d["allowed"] else f"not retried ({d['reason']})"
        print(f"attempt {d['attempt']}: {d['code']} -> {then}")


x = Executor(retry={"max_attempts": 3, "base_ms": 20}, on_decision=show, draw=random.Random(7).random)
r = x.call("search", search, args={"q": "flights", "max_results": 500})
assert r.error is not None
print("the model gets:", r.error.code, "retryable" if r.error.retryable else "not retryable", "after", r.attempts, "calls")
[msg] = toolerr.to_anthropic([r.outcome("toolu_01", "search")])  # or to_openai_chat, to_gemini, ...
print(msg["content"][0]["type"], "is_error:", msg["content"][0]["is_error"])
