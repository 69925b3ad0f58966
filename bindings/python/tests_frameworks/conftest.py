"""Fixtures of the framework tests: the loopback provider and search service."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Iterator

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

# The Agents SDK exports traces to OpenAI by default; the tests never leave loopback.
os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"

from loopback import Loopback, serve  # noqa: E402


@pytest.fixture
def loopback() -> Iterator[Loopback]:
    """A scripted model provider and seed 000's search service on 127.0.0.1."""
    yield from serve()
