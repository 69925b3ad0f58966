"""A tool call with a circuit breaker and full-jitter retries, decided by the core."""
import random

import toolerr

rng = random.Random(7)       # the jitter draws (seeded here so the output is stable)
now_ms, state = 1_000, None  # your clock, and the breaker state wherever you keep it


def flaky_search(attempt: int) -> str:  # a tool that fails twice, then answers
    if attempt < 3:
        raise ConnectionResetError("connection reset by peer")
    return "3 hits"


for attempt in range(1, 4):
    gate = toolerr.breaker(state, "allow", now_ms=now_ms, tool="search")
    state = gate["state"]
    if not gate["allowed"]:
        print("breaker:", gate["error"]["message"])
        break
    try:
        out = flaky_search(attempt)
        state = toolerr.breaker(state, "success", now_ms=now_ms)["state"]
        print(f"attempt {attempt}: {out}")
        break
    except Exception as exc:
        err = toolerr.classify_exception(exc, tool="search")
        state = toolerr.breaker(state, "failure", now_ms=now_ms, error=err)["state"]
        d = toolerr.retry_decision(err, attempt, draw=rng.random())
        print(f"attempt {attempt}: {err.code} retryable={err.retryable} retry={d['retry']} delay_ms={d['delay_ms']}")
        if not d["retry"]:  # the model must hear of it: send it in your provider's shape
            print(toolerr.to_anthropic([toolerr.Outcome("toolu_1", "search", error=err)]))
            break
        now_ms += d["delay_ms"]  # time.sleep(d["delay_ms"] / 1000) in real code
assert state is not None
print("breaker", state["phase"], "failures", state["failures"])
