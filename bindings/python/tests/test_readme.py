"""The README example runs and prints what docs/bindings.md shows."""

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "readme_example.py"


def test_readme_example_prints_the_documented_lines() -> None:
    out = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["RATE_LIMITED True 7", "tool_result True", "INVALID_INPUT op"]


RESILIENCE = EXAMPLE.parent / "resilience_example.py"


def test_resilience_example_retries_then_succeeds() -> None:
    out = subprocess.run([sys.executable, str(RESILIENCE)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("attempt 1: TRANSPORT retryable=True retry=True delay_ms=")
    assert lines[1].startswith("attempt 2: TRANSPORT retryable=True retry=True delay_ms=")
    assert lines[2:] == ["attempt 3: 3 hits", "breaker closed failures 0"]
