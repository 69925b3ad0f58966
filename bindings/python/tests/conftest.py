"""Shared helpers: where the repository's conformance fixtures are."""

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
FIXTURES = Path(os.environ.get("TOOLERR_FIXTURES") or REPO / "conformance" / "fixtures")
