"""Per-call time of one typical serialize (a failed tool call's envelope to an
Anthropic tool_result message) through the toolerr Python binding, beside the
same message written plainly with json.dumps and beside LiteLLM converting the
same failed tool message to Anthropic's shape. Run by scripts/bench-bindings.sh
(LiteLLM is a benchmark-only dependency, installed there)."""

import json
import os
import sys
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import

import toolerr
from litellm.litellm_core_utils.prompt_templates.factory import (
    anthropic_messages_pt, convert_to_anthropic_tool_result)

ENV = {"code": "TIMEOUT", "details": {"attempt": 1, "tool": "get_weather"},
       "message": "The get_weather tool timed out after 10 seconds.", "retryable": True, "source": "tool"}
OUTCOME = [toolerr.Outcome("toolu_01", "get_weather", error=toolerr.Envelope.from_dict(ENV))]
RAW = json.dumps({"op": "serialize", "format": "anthropic",
                  "results": [{"call": {"id": "toolu_01", "name": "get_weather"}, "error": ENV}]}).encode()
OPENAI_TOOL_MSG = {"role": "tool", "tool_call_id": "toolu_01", "content": json.dumps(ENV)}


def plain() -> list:
    content = json.dumps(ENV, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_01",
                                          "content": content, "is_error": True}]}]


def per_call_us(fn, n: int, rounds: int = 3) -> float:
    """Best of rounds of n calls each, after a warm-up: the least disturbed figure."""
    for _ in range(n // 10):
        fn()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
    return best


def main() -> None:
    assert toolerr.to_anthropic(OUTCOME) == plain(), "toolerr and the plain version differ"
    n = int(os.environ.get("BENCH_CALLS", "100000"))
    api = per_call_us(lambda: toolerr.to_anthropic(OUTCOME), n)
    boundary = per_call_us(lambda: toolerr.invoke_bytes(RAW), n)
    base = per_call_us(plain, n)
    pt = per_call_us(lambda: anthropic_messages_pt([OPENAI_TOOL_MSG], "claude-sonnet-4-5", "anthropic"), n // 4)
    tr = per_call_us(lambda: convert_to_anthropic_tool_result(OPENAI_TOOL_MSG), n // 4)
    v = sys.version.split()[0]
    print(f"python {v}: one failed envelope -> Anthropic tool_result message")
    for name, us in [("toolerr to_anthropic (API)", api), ("  of which invoke_bytes (ctypes + core)", boundary),
                     ("plain json.dumps", base), ("LiteLLM anthropic_messages_pt", pt),
                     ("LiteLLM convert_to_anthropic_tool_result", tr)]:
        print(f"{name:<48} {us:9.2f} us/call {us / base:8.1f}x plain")
    print(f"goal <= 3x plain: {'met' if api <= 3 * base else 'missed'}; faster than LiteLLM: "
          f"anthropic_messages_pt {'yes' if api < pt else 'no'} ({pt / api:.2f}x), "
          f"convert_to_anthropic_tool_result {'yes' if api < tr else 'no'} ({tr / api:.2f}x)")


if __name__ == "__main__":
    main()
