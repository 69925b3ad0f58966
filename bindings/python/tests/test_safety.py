"""Safety: threads, fork, memory over many calls, bad input."""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import toolerr

REQ = b'{"op":"envelope","code":"TIMEOUT","message":"Search timed out after 10 s"}'
WANT = toolerr.invoke_bytes(REQ)


def test_threads_get_identical_answers() -> None:
    errors: list = []

    def work(i: int) -> None:
        for j in range(2000):
            e = toolerr.envelope("RATE_LIMITED", f"worker {i} call {j}", details={"n": j})
            if e.details != {"n": j} or not e.message.startswith(f"worker {i} call {j}"):
                errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def _fork_and_call() -> None:
    pid = os.fork()
    if pid == 0:  # child: exit 0 only when the call answers correctly
        ok = all(toolerr.invoke_bytes(REQ) == WANT for _ in range(20000))
        os._exit(0 if ok else 3)
    assert toolerr.invoke_bytes(REQ) == WANT
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_fork_after_import_calls_in_both_processes() -> None:
    # A fresh interpreter: import, fork before any call, call in both.
    code = ("import os, toolerr\npid = os.fork()\nv = toolerr.version()['abi']\n"
            "if pid == 0: os._exit(0 if v == 1 else 3)\n"
            "_, s = os.waitpid(pid, 0); assert os.waitstatus_to_exitcode(s) == 0 and v == 1; print('ok')")
    out = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr


def test_fork_after_the_library_ran_calls_in_both_processes() -> None:
    toolerr.version()  # loaded and used here; the child maps a private copy
    _fork_and_call()


def _rss_bytes() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc (Linux)")
def test_many_calls_leave_rss_flat() -> None:
    n = int(os.environ.get("TOOLERR_MEMORY_CALLS", "1000000"))
    for _ in range(50000):  # warm up: Go heap and ctypes caches reach their steady size
        toolerr.invoke_bytes(REQ)
    before, t0 = _rss_bytes(), time.perf_counter()
    for _ in range(n):
        toolerr.invoke_bytes(REQ)
    grown = _rss_bytes() - before
    print(f"{n} calls in {time.perf_counter() - t0:.1f} s, RSS grew {grown / 1e6:.2f} MB")
    assert grown < 16 << 20


@pytest.mark.parametrize("request_, path", [
    ({}, "op"),
    ({"op": 5}, "op"),
    ({"op": "no_such_op"}, "op"),
    ({"op": "envelope", "message": "no code"}, "code"),
])
def test_bad_input_raises_with_the_envelope(request_: dict, path: str) -> None:
    # A NaN is no bad input: it is sent as null, as in every binding (conformance/values).
    with pytest.raises(toolerr.ToolerrError) as ei:
        toolerr.invoke(request_)
    e = ei.value
    assert (e.code, e.retryable, e.source) == ("INVALID_INPUT", False, "orchestrator")
    assert e.details["path"] == path and e.message == e.envelope.message != ""


@pytest.mark.parametrize("raw", [b"", b"not json", b"[1,2]", b"\xff\xfe{", b'{"op":"version"' * 1000,
                                 b" " * (33 << 20)],
                         ids=["empty", "not-json", "array", "invalid-utf8", "truncated-repeats", "over-32MiB"])
def test_bad_bytes_answer_with_an_error_envelope(raw: bytes) -> None:
    assert toolerr.invoke_bytes(raw).startswith(b'{"error":{"code":"INVALID_INPUT"')


@pytest.mark.parametrize("text, want", [("a\ud800b", "a\ufffdb"), ("\udc80", "\ufffd"), ("x\ud83d", "x\ufffd"),
                                        ("a\ud83d\ude00b", "a\U0001F600b")],
                         ids=["lone-high", "surrogateescape", "high-at-end", "pair-as-two"])
def test_transcript_text_with_a_lone_surrogate_reads_as_node_sends_it(text: str, want: str) -> None:
    # JSON text given as a str with a lone surrogate (surrogateescape, a decoded "\ud800"): U+FFFD,
    # as Node's TextEncoder sends it and the core reads the escape, not a UnicodeEncodeError.
    messages = '[{"role":"user","content":"' + text + '"}]'
    got = toolerr.convert(messages, from_format="openai-chat", to_format="anthropic")
    assert got["messages"][0]["content"][0]["text"] == want
    escaped = '[{"role":"user","content":' + json.dumps(text) + '}]'
    assert got == toolerr.convert(escaped, from_format="openai-chat", to_format="anthropic")


class _StrRaises(Exception):
    def __str__(self) -> str:
        raise RuntimeError("a __str__ that raises")


class _StrNotStr(Exception):
    def __str__(self):  # type: ignore[no-untyped-def]
        return 7


@pytest.mark.parametrize("exc", [_StrRaises("x"), _StrNotStr("y")], ids=["str-raises", "str-not-str"])
def test_an_exception_whose_str_cannot_be_read_is_classified_by_its_type(exc: Exception) -> None:
    # Called in the handler of the tool's exception: raising there would lose the tool's failure.
    for env in (toolerr.classify_exception(exc, tool="search"), toolerr.classify_response(exc, source="tool", tool="search")):
        assert (env.code, env.retryable, env.source) == ("TOOL_ERROR", False, "tool")
        assert type(exc).__qualname__ in env.message


@pytest.mark.parametrize("bad", [None, "text", {"call_id": "c"}, 7, toolerr.envelope("TIMEOUT", "t")],
                         ids=["none", "str", "dict", "int", "envelope"])
def test_serialize_of_what_is_not_an_outcome_raises_type_error(bad: object) -> None:
    good = toolerr.Outcome(call_id="c1", name="f", result={"text": "ok"})
    for f in (lambda o: toolerr.serialize("anthropic", o), toolerr.to_openai_chat, toolerr.to_gemini,
              lambda o: toolerr.to_mcp(o, output_schema=False)):
        with pytest.raises(TypeError, match="must be a toolerr.Outcome"):
            f([good, bad])
        with pytest.raises(TypeError, match="must be a toolerr.Outcome"):
            f(iter([bad]))


@pytest.mark.parametrize("bad", ["TIMEOUT", {"code": "TIMEOUT"}, 0, ValueError("x")], ids=["str", "dict", "int", "exception"])
def test_an_envelope_argument_that_is_not_one_raises_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="Outcome.error must be a toolerr.Envelope"):
        toolerr.to_anthropic([toolerr.Outcome(call_id="c1", name="f", error=bad)])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Outcome.error must be a toolerr.Envelope"):
        toolerr.Outcome(call_id="c1", error=bad).to_dict()  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="error must be a toolerr.Envelope"):
        toolerr.retry_decision(bad, 1, draw=0.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="error must be a toolerr.Envelope"):
        toolerr.breaker(None, "failure", now_ms=0, error=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [10**9, 2**64, -1, "{}", [123, 125], None, {"op": "version"}],
                         ids=["int-1e9", "int-2^64", "int-neg", "str", "list-of-ints", "none", "dict"])
def test_invoke_bytes_of_what_is_not_bytes_raises_type_error(bad: object) -> None:
    # bytes(bad) would have sent bytes no one wrote: a GB of zeros for 10**9, "{}" for [123, 125].
    with pytest.raises(TypeError, match="must be bytes or bytes-like"):
        toolerr.invoke_bytes(bad)  # type: ignore[arg-type]


def test_invoke_bytes_reads_any_bytes_like() -> None:
    req = b'{"op":"version"}'
    want = toolerr.invoke_bytes(req)
    assert toolerr.invoke_bytes(bytearray(req)) == want
    assert toolerr.invoke_bytes(memoryview(b"xx" + req)[2:]) == want


def _nested(n: int, in_dict: bool) -> object:
    v: object = {} if in_dict else []
    for _ in range(n):
        v = {"a": v} if in_dict else [v]
    return v


@pytest.mark.parametrize("n", [5000, 100000])
@pytest.mark.parametrize("in_dict", [False, True], ids=["lists", "dicts"])
def test_a_value_nested_past_the_recursion_limit_raises_value_error(n: int, in_dict: bool) -> None:
    # json raised RecursionError for it; 300 levels are sent, and the core answers past 512.
    v = _nested(n, in_dict)
    for f in (toolerr.canonicalize, lambda v: toolerr.envelope("TIMEOUT", "m", details={"x": v}),
              lambda v: toolerr.check("anthropic", [{"role": "user", "content": v}]),
              lambda v: toolerr.invoke({"op": "canonicalize", "value": v}),
              lambda v: toolerr.to_anthropic([toolerr.Outcome(call_id="c", name="n", result={"json": v})])):
        with pytest.raises(ValueError, match="nested too deep"):
            f(v)
    assert toolerr.canonicalize(_nested(300, in_dict)).startswith('{"a":' if in_dict else "[[")


def _load_error(lib: str) -> str:
    # A fresh interpreter whose TOOLERR_LIB is lib: the first call loads it.
    code = "import toolerr\ntry:\n    toolerr.version()\nexcept ImportError as e:\n    print(e)\n"
    env = {**os.environ, "TOOLERR_LIB": lib}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


FIX = ("install a toolerr wheel for this platform (linux x86_64 glibc), or the sdist with Go and a C compiler "
       "present; from a clone, run `make build` and set TOOLERR_LIB=dist/libtoolerr.so")


def test_a_library_that_does_not_load_says_which_and_what_to_do(tmp_path: Path) -> None:
    # ctypes' OSError ("file too short") and AttributeError (an undefined symbol) came through bare,
    # naming neither TOOLERR_LIB nor a way out.
    junk = tmp_path / "libtoolerr.so"
    junk.write_bytes(b"not a library\n")
    assert _load_error(str(junk)) == f"toolerr: the core library {junk} (TOOLERR_LIB) does not load: {junk}: file too short; {FIX}"
    import _ctypes  # an ELF shared object that is no libtoolerr.so
    other = _ctypes.__file__
    got = _load_error(other)
    assert got.startswith(f"toolerr: the core library {other} (TOOLERR_LIB) does not load: ") and "toolerr_invoke" in got, got
    assert got.endswith(FIX), got
    missing = tmp_path / "nowhere.so"
    assert _load_error(str(missing)) == f"toolerr: the core library {missing} (TOOLERR_LIB) does not exist; {FIX}"
