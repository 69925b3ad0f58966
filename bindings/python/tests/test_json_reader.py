"""The answer reader (toolerr._loads): orjson where it reads as json.loads does, json.loads elsewhere.

Values are compared by repr, which tells an int from a float (1 == 1.0 in
Python, not in JSON), True from 1 and one key order from another.
"""

import json
import os
import subprocess
import sys
from typing import Any, List

import pytest

import toolerr
from conftest import FIXTURES, REPO
from toolerr import _loads

needs_orjson = pytest.mark.skipif(not toolerr._reader(), reason="orjson is not installed (a --no-deps install)")

# Most are read by orjson differently from json.loads, or refused by it: integers past 64 bits (orjson: a
# float), a lone surrogate escape, NaN and nesting deeper than orjson's 1024 levels (orjson: an error); the
# rest (a digit run in a string, extreme floats, escapes, a repeated key) read alike.
EDGES: List[bytes] = [
    b"18446744073709551615", b"18446744073709551616", b"-9223372036854775808", b"-9223372036854775809",
    b'{"n":[1,123456789012345680000,-18446744073709552000,1e+21,0.1]}',
    b'{"id":"a 19-digit run 1234567890123456789 in a string","n":2}',
    b'"\\ud800"', b'["\\udc00x","\\ud83d\\ude00"]', b"[" * 1100 + b"]" * 1100,
    b'{"a":1.0,"b":-0,"c":5e-324,"d":1.7976931348623157e+308,"e":true,"f":null,"g":"\\u00e9\\u2028"}',
    b"[NaN,-Infinity]", b'{"a":1,"a":2}',
]


def _read(loads: Any, raw: bytes) -> str:
    """repr of what loads gives for raw, or the name of the exception it raises."""
    try:
        return repr(loads(raw))
    except Exception as e:  # json.loads raises RecursionError past its depth
        return type(e).__name__


@pytest.mark.parametrize("raw", EDGES, ids=range(len(EDGES)))
def test_loads_reads_as_json_loads(raw: bytes) -> None:
    assert _read(_loads, raw) == _read(json.loads, raw)


def test_loads_keeps_an_int_past_64_bits() -> None:
    # The core writes 2**64 as the double it is, 18446744073709552000: an int for json.loads.
    e = toolerr.envelope("TIMEOUT", "x", details={"big": 2 ** 64, "neg": -(2 ** 63) - 4096, "small": 7})
    assert [(type(v), v) for v in e.details.values()] == [(int, 18446744073709552000),
                                                          (int, -9223372036854780000), (int, 7)]


def test_no_long_run_finds_every_run_of_19_digits() -> None:
    # Runs of 3 to 24 digits at each offset mod 4, alone and beside other runs: the quarter-bytes
    # prefilter answers as the check of every byte.
    def every_byte(raw: bytes) -> bool:
        return raw.translate(toolerr._DIGIT_RUNS).find(toolerr._LONG_RUN) < 0
    n = 0
    for lead in range(8):
        for run in range(3, 25):
            for tail in (b"", b"x", b'",1234567890123,"', b"2026-10-11 18:00"):
                for digits in (b"7" * run, b"1234567890" * 3):
                    raw = b"a" * lead + digits[:run] + b"|" + tail + b"-" + b"9" * (run // 2)
                    assert toolerr._no_long_run(raw) is every_byte(raw) is (run < 19), raw
                    n += 1
    assert n == 8 * 22 * 4 * 2


def test_loads_refuses_what_json_loads_refuses() -> None:
    for raw in (b"[1,]", b'{"a":1', b"nan", b""):
        with pytest.raises(json.JSONDecodeError):
            _loads(raw)


@needs_orjson
def test_every_fixture_answer_reads_as_json_loads() -> None:
    # Every conformance request's answer through the core, read both ways.
    n = 0
    for path in sorted(FIXTURES.rglob("*.json")):
        for case in json.loads(path.read_bytes()):
            for test in case["tests"]:
                out = toolerr.invoke_bytes(json.dumps(test["request"]).encode())
                if out.startswith(b'{"ok":'):
                    assert repr(_loads(out[6:-1])) == repr(json.loads(out[6:-1])), (path.name, test["description"])
                    n += 1
    assert n > 300


def test_without_orjson_every_answer_is_the_same() -> None:
    # A --no-deps install: orjson cannot be imported, json.loads reads every answer.
    transcript = REPO / "core" / "testdata" / "bench" / "transcript-b.json"
    code = (
        "import json, sys\n"
        "sys.modules['orjson'] = None\n"
        "import toolerr\n"
        "assert toolerr._orjson is None and toolerr._reader() is False\n"
        "msgs = json.loads(open(sys.argv[1], 'rb').read())\n"
        "out = [toolerr.convert(msgs, from_format='openai-chat', to_format=t) for t in ('anthropic', 'gemini')]\n"
        "out.append(toolerr.envelope('TIMEOUT', 'x', details={'big': 2 ** 64}).details)\n"
        "print(repr(out))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    got = subprocess.run([sys.executable, "-c", code, str(transcript)], capture_output=True, text=True, env=env,
                         check=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    msgs = json.loads(transcript.read_bytes())
    want: List[Any] = [toolerr.convert(msgs, from_format="openai-chat", to_format=t) for t in ("anthropic", "gemini")]
    want.append(toolerr.envelope("TIMEOUT", "x", details={"big": 2 ** 64}).details)
    assert got == repr(want)


def test_import_toolerr_leaves_orjson_for_the_first_answer() -> None:
    # import toolerr stays as cheap as it was: orjson comes with the first answer read.
    code = ("import sys, toolerr\nprint('orjson' in sys.modules, toolerr._orjson)\ntoolerr.version()\n"
            "print(('orjson' in sys.modules) == bool(toolerr._orjson), toolerr._orjson is not None)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                         cwd=os.path.dirname(os.path.abspath(__file__))).stdout
    assert out.split() == ["False", "None", "True", "True"]
