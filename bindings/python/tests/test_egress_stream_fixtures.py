"""The shared stream fixtures (conformance/streams/*.json): each case's input, in each of its
chunkings, through this binding's stream readers gives the client the case's output bytes and
reports its errors, as the Go readers (egress/fixtures_test.go) and every other binding do."""

import base64
import json
import pathlib
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from toolerr.integrations._egress_http import Endpoint, _Egress, _Elements, _Events

ROOT = pathlib.Path(__file__).resolve().parents[3]


def _pieces(ps: List[Any]) -> bytes:
    out = []
    for p in ps:
        if isinstance(p, str):
            out.append(p.encode())
        elif "b64" in p:
            out.append(base64.b64decode(p["b64"]))
        else:
            out.append(p["repeat"].encode() * p["times"])
    return b"".join(out)


def _chunkings(case: Dict[str, Any], src: bytes) -> Iterator[List[bytes]]:
    size = case.get("chunk_size", 0)
    if size:
        yield [src[i:i + size] for i in range(0, len(src), size)]
    else:
        yield [src]
    if case.get("every_split"):
        for i in range(1, len(src)):
            yield [src[:i], src[i:]]
        yield [src[i:i + 1] for i in range(len(src))]


def _cases() -> Iterator[Any]:
    for path in sorted((ROOT / "conformance" / "streams").glob("*.json")):
        for case in json.loads(path.read_text()):
            yield pytest.param(case, id=path.stem + "/" + case["description"].replace(" ", "_"))


def _read(case: Dict[str, Any], chunks: List[bytes]) -> Tuple[bytes, int]:
    seen: List[Any] = []
    eg = _Egress(None, False, None, lambda request, ev: seen.append(ev), lambda: case["now_ms"] / 1000)
    ep = Endpoint("stream_generate_content" if case["kind"] == "array" else "chat_completions", case["ingress"])
    reader = (_Elements if case["kind"] == "array" else _Events)(eg, None, ep)
    return b"".join(reader.feed(c) for c in chunks) + reader.flush(), len(seen)


@pytest.mark.parametrize("case", list(_cases()))
def test_stream_fixture(case: Dict[str, Any]) -> None:
    src, want = _pieces(case["input"]), _pieces(case["output"])
    for chunks in _chunkings(case, src):
        got, errors = _read(case, chunks)
        assert got == want, f"{len(chunks)} chunks"
        assert errors == case["errors"], f"{len(chunks)} chunks"
