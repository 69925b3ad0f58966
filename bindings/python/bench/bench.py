"""The Python binding beside LiteLLM, in one process (scripts/bench-bindings.sh).

Work items of issue 12: (a) one failed tool call's envelope to an Anthropic
tool_result message; (b) the 40-message OpenAI Chat transcript of the core's
benchmark (core/testdata/bench/transcript-b.json, TOOLERR_BENCH_TRANSCRIPT)
converted to Anthropic and to Gemini, given as a list and as compact JSON. Each pair runs in interleaved rounds (toolerr, then the peer,
then toolerr...), and the figure is the median of the per-round ratios, which
load on a shared machine moves far less than either time. LiteLLM is a
benchmark-only dependency, installed by the bench set-up.
"""

import json
import os
from importlib import metadata
import statistics
import sys
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import

t0 = time.perf_counter()
import toolerr  # noqa: E402

IMPORT_MS = (time.perf_counter() - t0) * 1e3
t0 = time.perf_counter()
import litellm  # noqa: E402,F401
from litellm.litellm_core_utils.prompt_templates.factory import anthropic_messages_pt  # noqa: E402
from litellm.llms.vertex_ai.gemini.transformation import _gemini_convert_messages_with_history  # noqa: E402

LITELLM_IMPORT_MS = (time.perf_counter() - t0) * 1e3

ENV = {"code": "TIMEOUT", "details": {"attempt": 1, "tool": "get_weather"},
       "message": "The get_weather tool timed out after 10 seconds.", "retryable": True, "source": "tool"}
OUTCOME = [toolerr.Outcome("toolu_01", "get_weather", error=toolerr.Envelope.from_dict(ENV))]
OPENAI_TOOL_MSG = {"role": "tool", "tool_call_id": "toolu_01", "content": json.dumps(ENV)}
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "41"))
WORK = os.environ.get("BENCH_WORK", "ab")  # which work items run: "a", "b" or both


def per_call(fn, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n * 1e6


def pair(name: str, ours, peer, n: int, goal: float) -> None:
    """Interleaved rounds of n calls each, ours first in even rounds and the peer first in odd ones
    (the second slot pays for the first's garbage); prints medians and the median per-round ratio."""
    for _ in range(max(1, n // 5)):
        ours(), peer()
    a, b, r = [], [], []
    for _ in range(ROUNDS):
        if len(a) % 2 == 0:
            x, y = per_call(ours, n), per_call(peer, n)
        else:
            y, x = per_call(peer, n), per_call(ours, n)
        a.append(x), b.append(y), r.append(x / y)
    ratio = statistics.median(r)
    print(f"{name:<66} {statistics.median(a):9.2f} us {statistics.median(b):9.2f} us {ratio:6.2f}x "
          f"(goal <= {goal}x: {'met' if ratio <= goal else 'missed'})")


def main() -> None:
    msgs = json.loads(open(os.environ["TOOLERR_BENCH_TRANSCRIPT"], "rb").read())
    raw = json.dumps(msgs, separators=(",", ":"), ensure_ascii=False).encode()
    rest = msgs[1:]  # LiteLLM takes the system prompt out before these functions see the list
    convert = toolerr.convert
    anth = convert(msgs, from_format="openai-chat", to_format="anthropic")
    gem = convert(msgs, from_format="openai-chat", to_format="gemini")
    # the same work: every message, call and failure flag carried
    assert len(anth["messages"]) == len(anthropic_messages_pt(rest, "claude-sonnet-4-5", "anthropic"))
    assert sum(b.get("is_error", False) for m in anth["messages"] for b in m["content"] if isinstance(b, dict)) == 3
    assert len(gem["messages"]) == len(_gemini_convert_messages_with_history(messages=rest))
    n = int(os.environ.get("BENCH_CALLS", "400"))
    v = sys.version.split()[0]
    print(f"python {v}, litellm {metadata.version('litellm')}; "
          f"medians of {ROUNDS} interleaved rounds")
    print(f"{'':<66} {'toolerr':>12} {'peer':>12} {'ratio':>7}")
    if "a" in WORK:
        pair("(a) to_anthropic / LiteLLM anthropic_messages_pt", lambda: toolerr.to_anthropic(OUTCOME),
             lambda: anthropic_messages_pt([OPENAI_TOOL_MSG], "claude-sonnet-4-5", "anthropic"), n, 1.0)
    if "b" not in WORK:
        return
    m = max(1, n // 40)
    pair("(b) -> anthropic, list / LiteLLM anthropic_messages_pt",
         lambda: convert(msgs, from_format="openai-chat", to_format="anthropic"),
         lambda: anthropic_messages_pt(rest, "claude-sonnet-4-5", "anthropic"), m, 0.5)
    pair("(b) -> anthropic, JSON bytes in / LiteLLM",
         lambda: convert(raw, from_format="openai-chat", to_format="anthropic"),
         lambda: anthropic_messages_pt(rest, "claude-sonnet-4-5", "anthropic"), m, 0.5)
    pair("(b) -> gemini, list / LiteLLM _gemini_convert_messages_with_history",
         lambda: convert(msgs, from_format="openai-chat", to_format="gemini"),
         lambda: _gemini_convert_messages_with_history(messages=rest), m, 0.5)
    pair("(b) -> gemini, JSON bytes in / LiteLLM",
         lambda: convert(raw, from_format="openai-chat", to_format="gemini"),
         lambda: _gemini_convert_messages_with_history(messages=rest), m, 0.5)
    print(f"import: toolerr {IMPORT_MS:.1f} ms, litellm {LITELLM_IMPORT_MS:.0f} ms")


if __name__ == "__main__":
    main()
