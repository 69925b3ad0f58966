"""Two replicas share one breaker through Redis: replica A's failures open it, replica B finds it open."""
import os
import sys

import toolerr
from toolerr.redis_store import RedisStore
from toolerr.runtime import Executor, ToolFailure

if len(sys.argv) != 2:
    sys.exit("usage: redis_example.py REDIS_URL (e.g. redis://127.0.0.1:6379/0)")
url = sys.argv[1]
calls = 0


def search() -> None:  # the search service is down: every call gets a 503
    global calls
    calls += 1
    raise ToolFailure(toolerr.classify_http(503, {}, tool="search"))


prefix = f"example:{os.getpid()}:"  # a fresh breaker per run; the replicas of one service share one prefix
a = Executor(store=RedisStore.from_url(url), key_prefix=prefix, retry={"max_attempts": 1})
b = Executor(store=RedisStore.from_url(url), key_prefix=prefix, retry={"max_attempts": 1})
for i in range(3):  # 3 counted failures open the breaker (the default failure_threshold)
    r = a.call("search", search)
    assert r.error is not None
    print(f"replica A, call {i + 1}:", r.error.code)
r = b.call("search", search)
assert r.error is not None
print("replica B:", r.error.code, "- the tool ran", calls, "times")  # refused without calling it
