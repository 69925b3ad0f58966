"""The Python replica of the cross-language and chaos tests (redisstore/replica_test.go
describes the protocol): toolerr.runtime.Executor over toolerr.redis_store.RedisStore,
driven by one JSON command per line on stdin, one JSON answer per line on stdout."""

import json
import logging
import sys
import threading
import time

from toolerr import Envelope
from toolerr.redis_store import RedisStore
from toolerr.runtime import Executor, ToolFailure


def main() -> None:
    logging.getLogger("toolerr").propagate = False  # the records go to on_decision; stderr stays quiet
    logging.getLogger("toolerr").addHandler(logging.NullHandler())
    x = None
    tool = ""
    lock = threading.Lock()
    probes: list = []

    def on_decision(rec: dict) -> None:
        if rec.get("probe"):
            with lock:
                probes.append(time.time_ns() // 1_000_000)

    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd["cmd"] == "config":
            c = cmd["config"]
            tool = c["tool"]
            host, port = c["addr"].split(":")
            x = Executor(store=RedisStore.from_url(f"redis://{host}:{port}/0", timeout_ms=c["store_timeout_ms"]),
                         store_backoff=c["store_backoff_ms"] / 1000, retry={"max_attempts": 1},
                         breaker=c["settings"], on_decision=on_decision)
            print(json.dumps({"ok": True}), flush=True)
        elif cmd["cmd"] == "run":
            assert x is not None
            with lock:
                probes.clear()
            calls: list = []
            end = time.monotonic() + cmd["ms"] / 1000
            fail, hold, gap = cmd.get("fail", False), cmd.get("hold_ms", 0) / 1000, cmd.get("gap_ms", 0) / 1000

            def worker() -> None:
                assert x is not None
                while time.monotonic() < end:
                    spent = [0.0]
                    reached = [False]

                    def fn() -> None:
                        reached[0] = True
                        t0 = time.perf_counter()
                        time.sleep(hold)
                        spent[0] = time.perf_counter() - t0
                        if fail:
                            raise ToolFailure(Envelope("TRANSPORT", "The tool is unavailable (HTTP 503).", True,
                                                       {"status": 503}, "tool"))

                    start_ms = time.time_ns() // 1_000_000
                    t0 = time.perf_counter()
                    r = x.call(tool, fn)
                    lat_us = int((time.perf_counter() - t0 - spent[0]) * 1e6)
                    with lock:
                        calls.append([start_ms, lat_us, 1 if reached[0] else 0, r.error.code if r.error else ""])
                    time.sleep(gap)

            ts = [threading.Thread(target=worker) for _ in range(max(cmd.get("workers", 1), 1))]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            calls.sort()
            with lock:
                print(json.dumps({"calls": calls, "probes": list(probes)}), flush=True)
        elif cmd["cmd"] == "quit":
            return


if __name__ == "__main__":
    main()
