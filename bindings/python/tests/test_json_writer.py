"""The request writer (toolerr._dumps): orjson where it writes the JSON value _encode writes, _encode elsewhere.

Requests are compared parsed (json.loads, then repr, which tells an int from
a float, True from 1 and one key order from another) and by the core's
answer to them, byte for byte; what _encode refuses must be refused alike,
with json's own exception.
"""

import dataclasses
import datetime
import enum
import gc
import json
import os
import subprocess
import sys
import uuid
from typing import Any, List

import pytest

import toolerr
from conftest import FIXTURES
from toolerr import _dumps, _encode

needs_orjson = pytest.mark.skipif(not toolerr._reader(), reason="orjson is not installed (a --no-deps install)")


class Str(str):
    pass


class Int(int):
    pass


class Float(float):
    pass


class Dict(dict):  # type: ignore[type-arg]
    pass


class List_(list):  # type: ignore[type-arg]
    pass


class Color(enum.Enum):
    RED = 1


class Level(enum.IntEnum):
    HIGH = 3


class Name(str, enum.Enum):
    A = "a"


@dataclasses.dataclass
class Point:
    x: int


def _cycle() -> List[Any]:
    a: List[Any] = [1]
    a.append(a)
    return a


def _deep(n: int) -> Any:
    v: Any = 1
    for _ in range(n):
        v = [v]
    return v


# Written alike by orjson and json (the first ones), or written or refused by orjson otherwise than json
# would (the rest): each must reach the core as _encode writes it.
EDGES: List[Any] = [
    {"a": 1.0, "b": -0.0, "c": 5e-324, "d": 1e16, "e": 1.7976931348623157e308, "f": 0.1, "g": 123456789.125},
    {"s": "\u00e9\u2028\u2029\U0001f600\x00\x1f\"\\/", "t": [True, False, None], "u": (1, (2, "x"))},
    [2 ** 63 - 1, -(2 ** 63), 2 ** 64 - 1, 0, -1],
    [2 ** 64, -(2 ** 63) - 1, 10 ** 30],
    [float("nan"), float("inf"), -float("inf"), {"x": float("nan")}],
    {float("nan"): 1, 1: "a", None: 2, 1.5: 3, True: 4},
    "\ud800", ["\udc00x", "\ud83d\ude00"], {"\ud800": 1},
    _deep(253), _deep(300), _deep(900),
    [Str("s"), Int(7), Float(2.5), Float("nan"), Dict(a=1), List_([1, 2]), {Str("k"): 1}],
    [Level.HIGH, Name.A], [Color.RED], [uuid.UUID(int=5)], {"p": Point(1)},
    [datetime.datetime(2026, 1, 2, 3, 4, 5)], [datetime.date(2026, 1, 2)], [datetime.time(3, 4)],
    [b"bytes"], [{1, 2}], [object()], _cycle(), {"a": {"b": _cycle()}},
]


def _written(write: Any, value: Any) -> str:
    """repr of the JSON value write gives for value, or repr of the exception it raises."""
    try:
        out = write(value)
    except Exception as e:
        return "raised " + repr(e)
    return repr(json.loads(out))


@pytest.mark.parametrize("value", EDGES, ids=range(len(EDGES)))
def test_dumps_writes_what_encode_writes(value: Any) -> None:
    assert _written(_dumps, value) == _written(_encode, value)


@needs_orjson
def test_orjson_writes_only_what_it_writes_alike() -> None:
    # The first three edge values are written by orjson (UTF-8 where json writes \u escapes: the second's
    # bytes differ, not its value); every other edge value goes to _encode, whose bytes (or exception) _dumps
    # returns.
    for value in EDGES[:3]:
        assert _dumps(value) == toolerr._orjson.dumps(value) and toolerr._plain(value)
    assert _dumps(EDGES[1]) != _encode(EDGES[1]).encode()
    for value in EDGES[3:]:
        try:
            want = _encode(value).encode()
        except (TypeError, ValueError) as e:
            with pytest.raises(type(e)) as got:
                _dumps(value)
            assert str(got.value) == str(e)
            continue
        assert _dumps(value) == want


@needs_orjson
def test_orjson_native_types_keep_json_type_error() -> None:
    # orjson writes these natively; json (and so toolerr) refuses them as before.
    fragment = getattr(toolerr._orjson, "Fragment", None)  # orjson 3.9.11 on
    for value in ([uuid.UUID(int=5)], [Color.RED], {"d": datetime.date(2026, 1, 2)},
                  *([[fragment(b"{}")]] if fragment else [])):
        with pytest.raises(TypeError, match="is not JSON serializable"):
            toolerr.canonicalize(value)


def test_plain_finds_every_other_type_at_any_depth() -> None:
    # _plain walks by gc.get_referents: every container's items and values, a dict's keys too when one is
    # not an exact str; True only for the exact types json and orjson write alike.
    plain = [None, True, 1, 2 ** 70, 1.5, "s", [], (), {}, [1, (2, ("x",))], {"a": [{"b": None, "c": ([1.0],)}]},
             {1: "x", None: 2}, _deep(250), [{"k": "v"}] * 3]
    for value in plain:
        assert toolerr._plain(value), value
    other = [uuid.UUID(int=5), Color.RED, Level.HIGH, Name.A, Str("s"), Int(1), Float(1.0), Dict(), List_(),
             Point(1), datetime.date(2026, 1, 2), b"x", {1}, frozenset(), bytearray(b"x"), object(), len, int]
    for x in other:
        for value in (x, [x], (1, [x]), {"a": {"b": [x]}}, [[[[[[[x]]]]]]], {"a": 1, "b": ("s", x)}):
            assert not toolerr._plain(value), value
    assert not toolerr._plain({Str("k"): 1})  # a key that is not an exact str is seen: _encode writes it
    # A dict the collector untracked (it holds no object it tracks) is traversed all the same.
    for d, want in (({"a": 1}, True), ({"a": datetime.date(2026, 1, 2)}, False), ({"a": 1j}, False)):
        gc.collect()
        assert not gc.is_tracked(d) and toolerr._plain(d) is want and toolerr._plain([d]) is want


def test_numpy_values_as_json_writes_them() -> None:
    np = pytest.importorskip("numpy")
    assert _written(_dumps, [np.float64(1.5), np.float64("nan")]) == repr([1.5, None])
    for value in ([np.int64(3)], [np.arange(3)], [np.float32(1.5)]):
        assert _written(_dumps, value) == _written(_encode, value)
        assert _written(_dumps, value).startswith("raised TypeError")


def test_invoke_sends_the_same_request() -> None:
    # Through the core: canonicalize of each writable edge value answers the same bytes both ways.
    n = 0
    for value in EDGES:
        try:
            want = toolerr.invoke_bytes(_encode({"op": "canonicalize", "value": value}).encode())
        except (TypeError, ValueError):
            continue
        assert toolerr.invoke_bytes(_dumps({"op": "canonicalize", "value": value})) == want
        n += 1
    assert n >= 12


@needs_orjson
def test_every_fixture_request_writes_as_encode() -> None:
    # Every conformance request, written both ways: the same JSON value and the same answer from the core.
    n = written = 0
    for path in sorted(FIXTURES.rglob("*.json")):
        for case in json.loads(path.read_bytes()):
            for test in case["tests"]:
                req = test["request"]
                got, want = _dumps(req), _encode(req).encode()
                assert repr(json.loads(got)) == repr(json.loads(want)), (path.name, test["description"])
                assert toolerr.invoke_bytes(got) == toolerr.invoke_bytes(want), (path.name, test["description"])
                n += 1
                written += toolerr._plain(req)
    assert n > 300 and written > 300


def test_without_orjson_encode_writes_every_request() -> None:
    # A --no-deps install: _dumps gives _encode's bytes (or exception) for every fixture request and edge.
    code = (
        "import json, sys\n"
        "sys.modules['orjson'] = None\n"
        "import toolerr, test_json_writer as t\n"
        "n = 0\n"
        "for path in sorted(t.FIXTURES.rglob('*.json')):\n"
        "    for case in json.loads(path.read_bytes()):\n"
        "        for test in case['tests']:\n"
        "            assert toolerr._dumps(test['request']) == toolerr._encode(test['request']).encode()\n"
        "            n += 1\n"
        "for v in t.EDGES:\n"
        "    assert t._written(toolerr._dumps, v) == t._written(toolerr._encode, v)\n"
        "assert toolerr._orjson is False\n"
        "print(n, toolerr.canonicalize({'b': [1e16, float('nan')], 'a': 'x'}))\n"
    )
    here = os.path.dirname(os.path.abspath(__file__))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([here] + [p for p in sys.path if p])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                         cwd=here).stdout  # not bindings/python, whose toolerr has no libtoolerr.so
    n, canon = out.split()
    assert int(n) > 300 and canon == '{"a":"x","b":[10000000000000000,null]}'
