"""Every conformance/fixtures/**/*.json fixture through the Python binding, byte for byte.

Each request's bytes are sent unchanged; the expected bytes are the RFC 8785
form of "response", made by the core's own canonicalize op (applied to the
value of its one member, "ok" or "error"). With
TOOLERR_EMIT_OUTPUTS=path, one line per fixture "<op>/<file>/<case>/<test> <base64>"
is written there for the Go conformance suite (split at the last space).
"""

import base64
import json
import os
from typing import IO, Iterator, List, Optional, Tuple

import pytest

import toolerr
from conftest import FIXTURES


def _skip_string(t: str, i: int) -> int:
    i += 1
    while t[i] != '"':
        i += 2 if t[i] == "\\" else 1
    return i + 1


def _skip_value(t: str, i: int) -> int:
    depth = 0
    while True:
        c = t[i]
        if c == '"':
            i = _skip_string(t, i)
        else:
            if c in "[{":
                depth += 1
            elif c in "]}":
                if depth == 0:
                    return i
                depth -= 1
            elif c == "," and depth == 0:
                return i
            i += 1
            if depth == 0 and c in "]}":
                return i


def _raw_members(t: str) -> List[Tuple[str, str]]:
    """Return (key, raw text) of each "request"/"response" member of a test object, in order."""
    out, i, depth = [], 0, 0
    while i < len(t):
        c = t[i]
        if c == '"':
            j = _skip_string(t, i)
            k = j
            while t[k] in " \t\r\n":
                k += 1
            if depth == 4 and t[k] == ":" and t[i + 1:j - 1] in ("request", "response"):
                k += 1
                while t[k] in " \t\r\n":
                    k += 1
                end = _skip_value(t, k)
                out.append((t[i + 1:j - 1], t[k:end].rstrip()))
                j = end
            i = j
            continue
        depth += c in "[{"
        depth -= c in "]}"
        i += 1
    return out


def _load() -> List[Tuple[str, bytes, bytes]]:
    cases = []
    for path in sorted(FIXTURES.rglob("*.json")):
        text = path.read_bytes().decode("utf-8", "surrogateescape")
        raw = iter(_raw_members(text))
        stem = path.relative_to(FIXTURES).with_suffix("").as_posix()
        for case in json.loads(text):
            for test in case["tests"]:
                pair = dict([next(raw), next(raw)])
                enc = lambda s: s.encode("utf-8", "surrogateescape")  # noqa: E731
                cases.append((f"{stem}/{case['description']}/{test['description']}",
                              enc(pair["request"]), enc(pair["response"])))
    return cases


CASES = _load()


@pytest.fixture(scope="module")
def emit() -> Iterator[Optional[IO[str]]]:
    path = os.environ.get("TOOLERR_EMIT_OUTPUTS")
    if not path:
        yield None
        return
    with open(path, "w") as f:
        yield f


def test_fixtures_found() -> None:
    assert CASES, f"no conformance fixtures under {FIXTURES}"


@pytest.mark.parametrize("fid,request_bytes,response_bytes", CASES, ids=[c[0] for c in CASES])
def test_fixture(fid: str, request_bytes: bytes, response_bytes: bytes, emit: Optional[IO[str]]) -> None:
    got = toolerr.invoke_bytes(request_bytes)
    if emit is not None:
        emit.write(f"{fid} {base64.b64encode(got).decode()}\n")
        emit.flush()
    # response is {"ok": X} or {"error": X}: canonicalize X alone (the wrapper would add a nesting level)
    key_end = response_bytes.index(b'"', response_bytes.index(b'"') + 1)
    colon = response_bytes.index(b":", key_end)
    inner = response_bytes[colon + 1:response_bytes.rstrip().rindex(b"}")]
    canon = toolerr.invoke_bytes(b'{"op":"canonicalize","value":' + inner + b"}")
    assert canon.startswith(b'{"ok":'), canon
    want = b"{" + response_bytes[response_bytes.index(b'"'):key_end + 1] + b":" + canon[len(b'{"ok":'):-1] + b"}"
    if got != want:
        off = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
        pytest.fail(f"{fid}: first difference at byte {off}\n got: {got[max(0, off - 20):off + 20]!r}\n"
                    f"want: {want[max(0, off - 20):off + 20]!r}")
