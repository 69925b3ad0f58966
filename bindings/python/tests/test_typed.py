"""The typed helpers represent every shape the core returns.

Every serialize, parse and convert fixture with an "ok" answer goes through
the helpers (Outcome.from_dict, serialize / to_*, parse, Outcome.to_dict,
convert), and the canonical JSON of what they give back equals the fixture's
answer: no member dropped or added on the way through the Python types.
"""

import json
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import toolerr
from conftest import FIXTURES

TO = {"openai-chat": toolerr.to_openai_chat, "openai-responses": toolerr.to_openai_responses,
      "anthropic": toolerr.to_anthropic, "gemini": toolerr.to_gemini, "bedrock": toolerr.to_bedrock,
      "mcp": toolerr.to_mcp}


def _ok_tests(op: str) -> Iterator[Tuple[str, Dict[str, Any], Any]]:
    for path in sorted((FIXTURES / op).glob("*.json")):
        for case in json.loads(path.read_text()):
            for t in case["tests"]:
                if "ok" in t["response"]:
                    yield f"{path.stem}/{case['description']}/{t['description']}", t["request"], t["response"]["ok"]


def _outcomes(req: Dict[str, Any]) -> List[toolerr.Outcome]:
    results = req.get("results")
    if results is None:
        results = [{k: v for k, v in req.items() if k in ("call", "error", "result")}]
    return [toolerr.Outcome.from_dict(r) for r in results]


def _canonical(v: Any) -> str:
    return toolerr.canonicalize(v)


SERIALIZE = list(_ok_tests("serialize"))
# A whole request body (the body member) is not a list the helpers take; those go through invoke.
PARSE = [t for t in _ok_tests("parse") if "messages" in t[1]]
CONVERT = [t for t in _ok_tests("convert") if "messages" in t[1]]


def test_fixtures_are_found() -> None:
    assert len(SERIALIZE) > 50 and len(PARSE) > 30 and len(CONVERT) > 5


@pytest.mark.parametrize("id_, req, want", SERIALIZE, ids=[t[0] for t in SERIALIZE])
def test_serialize_fixture_through_outcome(id_: str, req: Dict[str, Any], want: Any) -> None:
    outs = _outcomes(req)
    fmt = req["format"]
    if "output_schema" in req:
        got = toolerr.to_mcp(outs, output_schema=req["output_schema"])
    else:
        got = TO[fmt](outs) if fmt in TO else toolerr.serialize(fmt, outs)
    assert _canonical(got) == _canonical(want)


@pytest.mark.parametrize("id_, req, want", PARSE, ids=[t[0] for t in PARSE])
def test_parse_fixture_through_outcome(id_: str, req: Dict[str, Any], want: Any) -> None:
    got = [o.to_dict() for o in toolerr.parse(req["format"], req["messages"])]
    assert _canonical(got) == _canonical(want)


@pytest.mark.parametrize("id_, req, want", CONVERT, ids=[t[0] for t in CONVERT])
def test_convert_fixture(id_: str, req: Dict[str, Any], want: Any) -> None:
    options = {k: v for k, v in req.items() if k not in ("op", "from", "to", "messages")}
    got = toolerr.convert(req["messages"], from_format=req["from"], to_format=req["to"], **options)
    assert _canonical(got) == _canonical(want)
