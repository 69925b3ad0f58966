"""The README example runs and prints what docs/bindings.md shows."""

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "readme_example.py"


def test_readme_example_prints_the_documented_lines() -> None:
    out = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["RATE_LIMITED True 7", "tool_result True", "INVALID_INPUT op"]
