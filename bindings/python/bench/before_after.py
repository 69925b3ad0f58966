"""Two versions of the Python binding beside LiteLLM in one process, and where (b)'s time goes.

    TOOLERR_BEFORE=DIR python before_after.py

DIR holds the older toolerr package (DIR/toolerr/__init__.py, with its
libtoolerr.so), imported as toolerr_before; the newer one is the toolerr on
sys.path. Both load the same libtoolerr.so when given the same file, so the
core is the same and only the binding differs. Work items as in bench.py
(issue 12: (a) one failed envelope to an Anthropic tool_result, (b) the
40-message transcript to Anthropic and to Gemini, as a list and as JSON
bytes; and the core's call alone, invoke_bytes of (b)'s convert request,
which compares two libtoolerr.so builds under one binding without Python's
part). Each round runs before, after and the peer one after the other
(BENCH_CALLS calls of (a) each, a 40th of them of (b)), in an order that
rotates from round to round (before-after-peer, after-peer-before,
peer-before-after), because a fixed order was measured to bias one side by
-20% to +7% (the slot after another's run pays for its caches and its
garbage); each line prints the
medians of BENCH_ROUNDS rounds and the medians of the per-round ratios.
Times are the process's CPU time (time.process_time: every thread's, the Go
runtime's included), so that the time this process waits for a core on a
loaded machine counts less than it does in bench.py's wall clock; BENCH_CLOCK=wall
takes time.perf_counter instead. Then the parts of (b) to Gemini, each a
median of per-round CPU time: the request's
encoding with json, with orjson and with the binding's writer, the foreign call with the core's convert, and reading the
answer with json.loads, with orjson, and with the binding's reader. LiteLLM
is a benchmark-only dependency (scripts/bench-bindings.sh installs it).
"""

import importlib.util
import json
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import

import toolerr as after  # noqa: E402

_dir = os.path.join(os.environ["TOOLERR_BEFORE"], "toolerr")
_spec = importlib.util.spec_from_file_location("toolerr_before", os.path.join(_dir, "__init__.py"),
                                               submodule_search_locations=[_dir])
assert _spec is not None and _spec.loader is not None
before = importlib.util.module_from_spec(_spec)
sys.modules["toolerr_before"] = before
_spec.loader.exec_module(before)

from litellm.litellm_core_utils.prompt_templates.factory import anthropic_messages_pt  # noqa: E402
from litellm.llms.vertex_ai.gemini.transformation import _gemini_convert_messages_with_history  # noqa: E402

ROUNDS = int(os.environ.get("BENCH_ROUNDS", "41"))
CALLS = int(os.environ.get("BENCH_CALLS", "400"))
CLOCK = time.perf_counter if os.environ.get("BENCH_CLOCK") == "wall" else time.process_time
ENV = {"code": "TIMEOUT", "details": {"attempt": 1, "tool": "get_weather"},
       "message": "The get_weather tool timed out after 10 seconds.", "retryable": True, "source": "tool"}


def per_call(fn: Callable[[], Any], n: int) -> float:
    t = CLOCK()
    for _ in range(n):
        fn()
    return (CLOCK() - t) / n * 1e6


def trio(name: str, old: Callable[[], Any], new: Callable[[], Any], peer: Callable[[], Any], n: int) -> None:
    """Rounds of before, after, peer in a rotating order; medians and the medians of the per-round ratios."""
    for _ in range(max(1, n // 5)):
        old(), new(), peer()
    b: List[float] = []
    a: List[float] = []
    p: List[float] = []
    slots = [(old, b), (new, a), (peer, p)]
    for r in range(ROUNDS):
        for fn, out in slots[r % 3:] + slots[:r % 3]:
            out.append(per_call(fn, n))
    med = statistics.median
    print(f"{name:<40} {med(b):8.2f} {med(a):8.2f} {med(p):8.2f} us   before {med(x / y for x, y in zip(b, p)):5.2f}x"
          f"  after {med(x / y for x, y in zip(a, p)):5.2f}x  after/before {med(x / y for x, y in zip(a, b)):5.2f}x")


def parts(msgs: List[Any], rest: List[Any], n: int) -> None:
    """CPU time of each part of (b) to Gemini, interleaved rounds (every other round in reverse order)."""
    import orjson
    from toolerr import _native
    req_d = {"op": "convert", "from": "openai-chat", "to": "gemini", "messages": msgs}
    req = after._encode(req_d).encode()
    body = _native.invoke_bytes(req)[6:-1]
    fns: Dict[str, Callable[[], Any]] = {
        "convert, list in (after)": lambda: after.convert(msgs, from_format="openai-chat", to_format="gemini"),
        "  the request's json encoding (before)": lambda: after._encode(req_d).encode(),
        "  orjson.dumps of the request": lambda: orjson.dumps(req_d),
        "  _dumps of the request (after)": lambda: after._dumps(req_d),
        "  invoke_bytes (ctypes + the core's convert)": lambda: _native.invoke_bytes(req),
        "  json.loads of the answer (before)": lambda: json.loads(body),
        "  orjson.loads of the answer": lambda: orjson.loads(body),
        "  the 19-digit guard (after)": lambda: after._no_long_run(body),
        "  _loads of the answer (after)": lambda: after._loads(body),
        "LiteLLM _gemini_convert_messages_with_history": lambda: _gemini_convert_messages_with_history(messages=rest),
    }
    res: Dict[str, List[float]] = {k: [] for k in fns}
    order = list(fns.items())
    for r in range(ROUNDS):
        for k, f in (order if r % 2 == 0 else order[::-1]):
            res[k].append(per_call(f, n))
    print(f"(b) -> gemini, parts: time per call, medians of {ROUNDS} rounds of {n} calls ({len(req)} B request, "
          f"{len(body)} B answer)")
    for k, v in res.items():
        print(f"  {k:<52} {statistics.median(v):8.1f} us")


def main() -> None:
    msgs = json.loads(open(os.environ["TOOLERR_BENCH_TRANSCRIPT"], "rb").read())
    raw = json.dumps(msgs, separators=(",", ":"), ensure_ascii=False).encode()
    rest = msgs[1:]  # LiteLLM takes the system prompt out before these functions see the list
    for to in ("anthropic", "gemini"):
        assert after.convert(msgs, from_format="openai-chat", to_format=to) == \
            before.convert(msgs, from_format="openai-chat", to_format=to)
    ob = [before.Outcome("toolu_01", "get_weather", error=before.Envelope.from_dict(ENV))]
    oa = [after.Outcome("toolu_01", "get_weather", error=after.Envelope.from_dict(ENV))]
    assert before.to_anthropic(ob) == after.to_anthropic(oa)
    print(f"python {sys.version.split()[0]}; medians of {ROUNDS} interleaved rounds (before, after, LiteLLM) of "
          f"{'wall-clock' if CLOCK is time.perf_counter else 'CPU'} time; load {os.getloadavg()[0]:.1f}")
    print(f"{'':<40} {'before':>8} {'after':>8} {'peer':>8}")
    tool_msg = {"role": "tool", "tool_call_id": "toolu_01", "content": json.dumps(ENV)}  # built once, as in bench.py
    trio("(a) to_anthropic", lambda: before.to_anthropic(ob), lambda: after.to_anthropic(oa),
         lambda: anthropic_messages_pt([tool_msg], "claude-sonnet-4-5", "anthropic"), CALLS)
    m = max(1, CALLS // 40)
    for to, peer in (("anthropic", lambda: anthropic_messages_pt(rest, "claude-sonnet-4-5", "anthropic")),
                     ("gemini", lambda: _gemini_convert_messages_with_history(messages=rest))):
        for what, given in (("list", msgs), ("JSON bytes", raw)):
            trio(f"(b) -> {to}, {what} in",
                 lambda g=given, t=to: before.convert(g, from_format="openai-chat", to_format=t),
                 lambda g=given, t=to: after.convert(g, from_format="openai-chat", to_format=t), peer, m)
        req = after._encode({"op": "convert", "from": "openai-chat", "to": to, "messages": msgs}).encode()
        assert before.invoke_bytes(req) == after.invoke_bytes(req)
        trio(f"(b) -> {to}, the core's call alone", lambda r=req: before.invoke_bytes(r),
             lambda r=req: after.invoke_bytes(r), peer, m)
    parts(msgs, rest, m)
    print(f"load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
