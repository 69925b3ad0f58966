"""The Python runtime (toolerr.runtime) on the shared scenarios and in its own idioms."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

import toolerr
from toolerr import ToolerrError
from toolerr.runtime import AsyncExecutor, Budget, Executor, LoopGuard, MemoryStore, ToolFailure, _heard

from conftest import REPO

SCENARIOS = sorted((REPO / "conformance" / "runtime").glob("*.json"))


def _cases() -> List[Tuple[str, Dict[str, Any]]]:
    return [(f"{p.name}/{sc['description']}", sc) for p in SCENARIOS for sc in json.loads(p.read_text())]


class FailingStore:
    """A shared store that always fails, as conformance/runtime says ("connection refused")."""

    def load(self, key: str) -> Optional[bytes]:
        raise ConnectionRefusedError("connection refused")

    def compare_and_swap(self, key: str, old: Optional[bytes], new: bytes) -> Tuple[bool, Optional[bytes]]:
        raise ConnectionRefusedError("connection refused")


class Harness:
    """A fake clock, sleep and draws for one scenario, and the scripted tool."""

    def __init__(self, sc: Dict[str, Any]) -> None:
        self.sc, self.now = sc, sc["start_ms"]
        self.shared = MemoryStore()
        ex = sc["executor"]
        self.options: Dict[str, Any] = dict(
            store=FailingStore() if ex.get("store") == "failing" else self.shared,
            retry=ex.get("policy"), breaker=ex.get("settings"),
            timeout=ex["timeout_ms"] / 1000 if "timeout_ms" in ex else None,
            budget=Budget(ex["budget"]) if "budget" in ex else None,
            loop_guard=LoopGuard(ex["loop_threshold"]) if "loop_threshold" in ex else None,
            clock=lambda: self.now, draw=self._draw, on_decision=lambda r: self.got["decisions"].append(r))
        self.got: Dict[str, Any] = {}
        self.draws: List[float] = []

    def _draw(self) -> float:
        assert self.draws, "the runtime drew more numbers than the scenario gives"
        return self.draws.pop(0)

    def begin(self, call: Dict[str, Any]) -> None:
        self.now += call.get("before_ms", 0)
        self.draws = list(call["draws"])
        self.got = {"decisions": [], "sleeps_ms": []}
        self.outcomes = list(call["outcomes"])
        self.calls = 0

    def outcome(self) -> Any:
        assert self.outcomes, "the runtime called the tool more often than the scenario scripts"
        o = self.outcomes.pop(0)
        self.calls += 1
        self.now += o.get("duration_ms", 0)
        if "error" in o:
            raise ToolFailure(toolerr.Envelope.from_dict(o["error"]))
        return o.get("result")

    def finish(self, ex: Any, attempts: int, error: Optional[toolerr.Envelope]) -> Dict[str, Any]:
        assert not self.draws, "draws left unused"
        tool = self.sc["executor"]["tool"]
        b = ex.replica_state(tool) if self.sc["executor"].get("store") == "failing" else \
            self.shared.load("toolerr:breaker:" + tool)
        self.got.update(attempts=attempts, breaker=None if b is None else b.decode())
        if error is not None:
            self.got["error"] = error.to_dict()
        return self.got


def _expected(call: Dict[str, Any]) -> Dict[str, Any]:
    return json.loads(json.dumps(call["expect"]))


@pytest.mark.parametrize("name,sc", _cases(), ids=[n for n, _ in _cases()])
def test_shared_scenario_sync(name: str, sc: Dict[str, Any]) -> None:
    h = Harness(sc)
    ex = Executor(**h.options)
    for call in sc["calls"]:
        h.begin(call)
        cancel = threading.Event()
        sleeps = [0]

        def sleep(seconds: float, call: Dict[str, Any] = call) -> None:
            ms = round(seconds * 1000)
            h.got["sleeps_ms"].append(ms)
            sleeps[0] += 1
            if sleeps[0] == call.get("cancel_sleep"):
                cancel.set()
                return
            h.now += ms

        ex._sleep = sleep
        r = ex.call(sc["executor"]["tool"], h.outcome, args=call.get("args"), cancel=cancel)
        assert h.finish(ex, r.attempts, r.error) == _expected(call)


@pytest.mark.parametrize("name,sc", _cases(), ids=[n for n, _ in _cases()])
def test_shared_scenario_asyncio(name: str, sc: Dict[str, Any]) -> None:
    async def run() -> None:
        h = Harness(sc)
        ex = AsyncExecutor(**h.options)
        for call in sc["calls"]:
            h.begin(call)
            sleeps = [0]

            async def sleep(seconds: float, call: Dict[str, Any] = call) -> None:
                ms = round(seconds * 1000)
                h.got["sleeps_ms"].append(ms)
                sleeps[0] += 1
                if sleeps[0] == call.get("cancel_sleep"):
                    raise asyncio.CancelledError()
                h.now += ms

            async def tool() -> Any:
                return h.outcome()

            ex._sleep = sleep
            want = _expected(call)
            if want.get("error", {}).get("code") == "CANCELLED":
                with pytest.raises(asyncio.CancelledError):  # asyncio re-raises, after the breaker heard of it
                    await ex.call(sc["executor"]["tool"], tool, args=call.get("args"))
                got = h.finish(ex, want["attempts"], toolerr.Envelope.from_dict(want["error"]))
            else:
                r = await ex.call(sc["executor"]["tool"], tool, args=call.get("args"))
                got = h.finish(ex, r.attempts, r.error)
            assert got == want
    asyncio.run(run())


def test_scenarios_found() -> None:
    assert len(_cases()) >= 10


def test_memory_store_compare_and_swap() -> None:
    s = MemoryStore()
    assert s.compare_and_swap("k", None, b"a") == (True, None)
    assert s.compare_and_swap("k", None, b"b") == (False, b"a")
    assert s.compare_and_swap("k", b"x", b"b") == (False, b"a")
    assert s.compare_and_swap("k", b"a", b"b") == (True, None)
    assert s.load("k") == b"b" and s.load("none") is None
    assert s.compare_and_swap("none", b"a", b"b") == (False, None)


def test_successful_calls_wait_for_no_lock_another_thread_holds() -> None:
    # A successful call on a closed breaker whose start answer stood reads
    # the store and checks the replica without a lock (MemoryStore.load, the
    # executor's _clear): it ends while another thread holds the store's
    # lock (a compare-and-swap) and the replica's (a step in flight), with
    # what it gives when no lock is held. A call that must change the
    # replica (a failure, counted in the store) waits for them.
    store = MemoryStore()
    ex = Executor(store=store, sleep=lambda s: None)
    assert ex.call("search", lambda: "ok").attempts == 1  # the start answer stands from here on
    key = "toolerr:breaker:search"
    fresh = store.load(key)
    got: List[Any] = []

    def calls(fn: Callable[[], str]) -> None:
        for _ in range(3):
            r = ex.call("search", fn)
            got.append((r.value, r.attempts, r.error))

    def failing() -> str:
        raise TimeoutError("down")
    with store._lock, ex._replica_lock:
        t = threading.Thread(target=calls, args=(lambda: "ok",))
        t.start()
        t.join(10)
        assert not t.is_alive()
        assert got == [("ok", 1, None)] * 3
        got.clear()
        t = threading.Thread(target=calls, args=(failing,))
        t.start()
        t.join(0.2)
        assert t.is_alive() and got == []  # waits for the replica's lock
    t.join(10)
    # Three failed attempts opened the breaker: the calls after it are refused.
    assert not t.is_alive() and [(v, a, e.code) for v, a, e in got] == [(None, 3, "TIMEOUT")] + \
        [(None, 0, "CIRCUIT_OPEN")] * 2
    assert store.load(key) != fresh and ex.replica_state("search") == store.load(key)


def test_decisions_print_nothing_without_logging_configured(tmp_path: Path) -> None:
    # A library prints nothing of its own: the WARNING records of failed
    # attempts reach a handler only when the application configures one.
    import subprocess
    import sys

    code = (
        "from toolerr.runtime import Executor\n"
        "def down():\n    raise ConnectionResetError('connection reset by peer')\n"
        "r = Executor(sleep=lambda s: None).call('search', down)\n"
        "assert r.error is not None and r.attempts == 3, r\n"
    )
    # Run outside the source tree, so the child imports the toolerr under test
    # (the installed package), as this process does, not bindings/python/toolerr.
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    configured = subprocess.run([sys.executable, "-c", "import logging; logging.basicConfig()\n" + code],
                                capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert configured.stderr.count("WARNING:toolerr:toolerr decision") >= 3, configured.stderr  # one per failed attempt at least


def test_records_are_made_only_for_someone_who_hears_them() -> None:
    # With only the package's NullHandler on the way (an application that
    # configured no logging), no decision record and no LogRecord is made; a
    # handler, a filter, another logger with no handler (logging.lastResort)
    # or on_decision each hear every record, the retries' WARNINGs included.
    made: list = []
    factory = logging.getLogRecordFactory()

    def counting(*a: object, **k: object) -> logging.LogRecord:
        made.append(1)
        return factory(*a, **k)

    def flaky_tool() -> Any:
        calls: list = []

        def flaky() -> str:
            calls.append(1)
            if len(calls) % 2:
                raise ConnectionResetError("connection reset by peer")
            return "ok"
        return flaky

    class Keep(logging.Handler):
        def __init__(self) -> None:
            super().__init__()
            self.records: list = []

        def emit(self, record: logging.LogRecord) -> None:
            self.records.append(record)

    log = logging.getLogger("toolerr")
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, log.level)
    root.handlers[:] = []  # pytest's own capture handlers out of the way
    root.setLevel(logging.WARNING)
    log.setLevel(logging.NOTSET)
    logging.setLogRecordFactory(counting)
    try:
        tool = flaky_tool()
        r = Executor(sleep=lambda s: None).call("search", tool)
        assert (r.ok, r.attempts) == (True, 2)
        assert made == [], "nobody hears: no LogRecord"
        assert _heard(log) is False

        keep = Keep()
        root.addHandler(keep)
        assert _heard(log) is True
        r = Executor(sleep=lambda s: None).call("search", flaky_tool())
        assert (r.ok, r.attempts) == (True, 2)
        warned = [x for x in keep.records if x.levelno == logging.WARNING]
        assert len(warned) == 1 and warned[0].getMessage().startswith(
            'toolerr decision {"allowed":false,"attempt":1,"code":"TRANSPORT"')
        root.removeHandler(keep)

        seen: list = []
        f = logging.Filter()
        f.filter = lambda rec: seen.append(rec.getMessage()) or False
        log.addFilter(f)
        try:
            assert _heard(log) is True
            Executor(sleep=lambda s: None).call("search", flaky_tool())
            assert any(m.startswith("toolerr decision") for m in seen)
        finally:
            log.removeFilter(f)

        bare = logging.getLogger("toolerr_test_bare")
        bare.propagate = False
        assert _heard(bare) is True, "no handler at all: logging.lastResort prints it"
        root.setLevel(logging.ERROR)
        assert _heard(log) is False, "not enabled for WARNING"
        root.setLevel(logging.WARNING)

        recs: list = []
        before = len(made)
        r = Executor(sleep=lambda s: None, on_decision=recs.append).call("search", flaky_tool())
        assert r.ok and any(rec.get("code") == "TRANSPORT" for rec in recs)
        assert len(made) == before, "on_decision hears the records; logging still makes none"
    finally:
        logging.setLogRecordFactory(factory)
        root.handlers[:], _, _ = saved
        root.setLevel(saved[1])
        log.setLevel(saved[2])


def test_exceptions_are_classified_and_retried(caplog: pytest.LogCaptureFixture) -> None:
    calls = []

    def flaky() -> str:
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionResetError("connection reset by peer")
        return "3 hits"

    caplog.set_level(logging.DEBUG, logger="toolerr")
    r = Executor(sleep=lambda s: None).call("search", flaky)
    assert (r.ok, r.value, r.attempts, len(calls)) == (True, "3 hits", 3, 3)
    lines = [rec for rec in caplog.records if rec.name == "toolerr"]
    failed = [rec for rec in lines if rec.levelno == logging.WARNING]
    assert len(failed) == 2
    assert failed[0].getMessage().startswith('toolerr decision {"allowed":false,"attempt":1,"code":"TRANSPORT"')
    assert r.outcome("toolu_1", "search").result == {"text": "3 hits"}


def test_not_retryable_reaches_the_model_as_an_outcome() -> None:
    def bad() -> None:
        raise ValueError("max_results must be at most 50")

    r = Executor(sleep=lambda s: None).call("search", bad)
    assert r.error is not None and r.error.code == "TOOL_ERROR" and r.attempts == 1
    assert isinstance(r.exception, ValueError)
    [msg] = toolerr.to_anthropic([r.outcome("toolu_1", "search")])
    assert msg["content"][0]["is_error"] is True


def test_breaker_shared_by_two_executors_over_one_store() -> None:
    store = MemoryStore()
    fail = ToolFailure(toolerr.envelope("TRANSPORT", "503", source="tool"))

    def down() -> None:
        raise fail

    for _ in range(3):
        Executor(store=store, retry={"max_attempts": 1}).call("search", down)
    r = Executor(store=store).call("search", lambda: "never")
    assert r.error is not None and r.error.code == "CIRCUIT_OPEN" and r.attempts == 0


def test_asyncio_timeout_is_a_timeout_failure() -> None:
    async def slow() -> str:
        await asyncio.sleep(5)
        return "late"

    async def run() -> None:
        r = await AsyncExecutor(timeout=0.05, retry={"max_attempts": 1}).call("search", slow)
        assert r.error is not None and r.error.code == "TIMEOUT" and r.attempts == 1
    asyncio.run(run())


def test_asyncio_cancel_frees_the_probe_and_reraises() -> None:
    store = MemoryStore()
    store.compare_and_swap("toolerr:breaker:search", None,
                           b'{"failures":0,"open_until_ms":1,"phase":"open","probe_until_ms":0,"successes":0}')
    started = asyncio.Event()

    async def hang() -> None:
        started.set()
        await asyncio.sleep(60)

    async def run() -> None:
        task = asyncio.create_task(AsyncExecutor(store=store).call("search", hang))
        await started.wait()
        assert b'"probe_until_ms":0' not in (store.load("toolerr:breaker:search") or b"")  # the probe's lease is out
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    asyncio.run(run())
    assert store.load("toolerr:breaker:search") == \
        b'{"failures":0,"open_until_ms":0,"phase":"half_open","probe_until_ms":0,"successes":0}'


def test_async_store_is_awaited() -> None:
    class AsyncMemory:
        def __init__(self) -> None:
            self.inner, self.calls = MemoryStore(), 0

        async def load(self, key: str) -> Optional[bytes]:
            self.calls += 1
            return self.inner.load(key)

        async def compare_and_swap(self, key: str, old: Optional[bytes], new: bytes) -> Tuple[bool, Optional[bytes]]:
            self.calls += 1
            return self.inner.compare_and_swap(key, old, new)

    async def ok() -> int:
        return 42

    s = AsyncMemory()
    r = asyncio.run(AsyncExecutor(store=s).call("add", ok))
    assert (r.value, s.calls) == (42, 2)


def test_budget_and_loop_guard_are_the_runs() -> None:
    b, g = Budget({"steps": 3}), LoopGuard(1)
    ex = Executor(budget=b, loop_guard=g, sleep=lambda s: None)

    def bad() -> None:
        raise ToolFailure(toolerr.envelope("INVALID_ARGS", "bad", source="tool"))

    assert ex.call("search", bad, args={"q": 1}).error.code == "INVALID_ARGS"
    assert ex.call("search", bad, args={"q": 1}).error.code == "LOOP_DETECTED"
    assert ex.call("search", lambda: "ok", args={"q": 2}).ok
    assert ex.call("search", lambda: "ok", args={"q": 3}).error.code == "BUDGET_EXHAUSTED"
    assert b.state is not None and b.state["steps"] == 3


class _StrRaises(Exception):
    def __str__(self) -> str:
        raise RuntimeError("__str__ failed")


class _EnvelopeRaises(Exception):
    @property
    def envelope(self) -> Any:
        raise RuntimeError("no envelope")


def _http_error(status: Any = 500, **attrs: Any) -> Exception:
    e = Exception("upstream failed")
    e.status_code = status
    for k, v in attrs.items():
        setattr(e, k, v)
    return e


@pytest.mark.parametrize("exc", [
    _StrRaises(), _EnvelopeRaises(), _http_error(body=b'{"error":"x"}'), _http_error(body=object()),
    _http_error(429, headers="not a mapping"), _http_error(10 ** 30), _http_error(-5), _http_error(True),
    Exception("x" * (33 << 20)),
], ids=["str-raises", "envelope-raises", "bytes-body", "object-body", "str-headers", "huge-status", "negative-status",
        "bool-status", "message-over-the-request-limit"])
def test_a_tool_exception_that_cannot_be_read_whole_is_still_a_failure(exc: Exception) -> None:
    # The executor returns the failure (TOOL_ERROR by the exception's type) instead of raising
    # what reading the exception raised; sync and asyncio alike.
    def fn() -> None:
        raise exc

    async def afn() -> None:
        raise exc

    r = Executor(retry={"max_attempts": 1}).call("search", fn)
    assert r.error is not None and r.exception is exc
    assert (r.error.code, r.error.source, r.error.details.get("tool")) == ("TOOL_ERROR", "tool", "search")
    assert asyncio.run(AsyncExecutor(retry={"max_attempts": 1}).call("search", afn)).error == r.error


def test_a_nan_in_a_failure_body_is_sent_as_null_as_node_sends_it() -> None:
    # A 400 whose body holds a NaN: json wrote NaN, the core refused the request as not JSON and the
    # failure was TOOL_ERROR by its type, where Node's JSON.stringify sends null and classifyResponse
    # gives INVALID_ARGS (conformance/values: a NaN is sent as null in every binding).
    def fn() -> None:
        raise _http_error(400, body={"n": float("nan"), "error": {"message": "bad q"}})

    r = Executor(retry={"max_attempts": 1}).call("search", fn)
    assert r.error is not None and (r.error.code, r.error.details.get("status")) == ("INVALID_ARGS", 400)


def test_a_store_error_whose_str_raises_is_a_store_error() -> None:
    class Broken:
        def load(self, key: str) -> Optional[bytes]:
            raise _StrRaises()

        def compare_and_swap(self, key: str, old: Optional[bytes], new: bytes) -> Tuple[bool, Optional[bytes]]:
            raise _StrRaises()

    r = Executor(store=Broken(), retry={"max_attempts": 1}).call("search", lambda: 42)
    assert (r.value, r.error) == (42, None)


def test_a_success_decided_ahead_is_applied_only_while_its_load_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    # A step that asks for the call may answer on_success (docs/resilience.md):
    # applied without its step while the load made ahead and the replica hold
    # if_loaded, sent as the success step when another replica changed the
    # breaker in between. A core without on_success answers every step.
    answers: List[bytes] = []
    real = toolerr.runtime.invoke_bytes

    def spy(request: bytes) -> bytes:
        out = real(request)
        answers.append(out)
        return out

    monkeypatch.setattr(toolerr.runtime, "invoke_bytes", spy)
    store = MemoryStore()
    ex = Executor(store=store)
    r = ex.call("search", lambda: "ok")
    assert (r.ok, r.value, r.attempts) == (True, "ok", 1)
    ahead = b'"on_success":' in answers[0]
    assert len(answers) == (1 if ahead else 2)

    counted = b'{"failures":1,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}'

    def other_replica_fails() -> str:  # another replica counts a failure while this call runs
        assert store.compare_and_swap("toolerr:breaker:search", store.load("toolerr:breaker:search"), counted)[0]
        return "ok"

    answers.clear()
    r = ex.call("search", other_replica_fails)
    assert (r.ok, r.attempts) == (True, 1)
    # The success went to the core as a step (the start is the answer kept
    # since the first call stood: test_a_successful_call_makes_no_crossing_once_its_start_stands).
    assert len(answers) == (1 if ahead else 2)
    assert b'"decisions":[{"allowed":true,"attempt":1,"kind":"call"' in answers[-1]
    assert store.load("toolerr:breaker:search") == \
        b'{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}'


def _repaired_by_one_cas(sent: List[bytes], garbage: bytes, fresh: bytes) -> MemoryStore:
    """A MemoryStore holding garbage at the search tool's key, after one
    call that repaired it: one compare-and-swap in two steps (sent: the step
    requests, as _spy_steps records them), the records repair, breaker,
    call, and the fresh state stored."""
    store = MemoryStore()
    assert store.compare_and_swap("toolerr:breaker:search", None, garbage)[0]
    records: List[Dict[str, Any]] = []
    sent.clear()
    r = Executor(store=store, on_decision=records.append).call("search", lambda: "ok")
    assert (r.ok, r.value, r.attempts) == (True, "ok", 1)
    assert [rec["kind"] for rec in records] == ["repair", "breaker", "call"]
    assert len(sent) == 2
    assert store.load("toolerr:breaker:search") == fresh
    return store


def test_stored_bytes_that_are_not_utf8_are_repaired_by_one_cas(monkeypatch: pytest.MonkeyPatch) -> None:
    # A step carries the stored bytes as a JSON string (UTF-8 text only), so
    # bytes that are not UTF-8 reach the core as their text with U+FFFD; the
    # repair's compare-and-swap from that text must compare against the
    # bytes the store holds. It compared the text's UTF-8, which no store
    # held: each call lost 1,000 races (2,002 crossings, 2,000 repair
    # records), fell back on contention and never repaired the key.
    sent = _spy_steps(monkeypatch)
    fresh = b'{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}'
    for garbage in (b"\xff\xfe", b'{"phase":"closed\xc3"}', b"\xef\xbf\xbd\xff"):
        store = _repaired_by_one_cas(sent, garbage, fresh)

        async def run() -> None:
            assert store.compare_and_swap("toolerr:breaker:search", fresh, garbage)[0]
            sent.clear()
            r = await AsyncExecutor(store=store).call("search", _async(lambda: "ok"))
            assert (r.ok, r.attempts, len(sent)) == (True, 1, 2)
        asyncio.run(run())
        assert store.load("toolerr:breaker:search") == fresh


def test_stored_bytes_longer_than_a_state_are_repaired_by_one_cas(monkeypatch: pytest.MonkeyPatch) -> None:
    # A value past the core's request limit (32 MiB), or one whose JSON
    # escapes take the request past it (17 MiB of quotes), made every call
    # raise ToolerrError (INVALID_INPUT: the request is too long), and the key
    # was never repaired. Bytes longer than a breaker state may be (64 KiB)
    # go as a text that names their length, and the repair's compare-and-swap
    # compares against the bytes themselves.
    sent = _spy_steps(monkeypatch)
    fresh = b'{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}'
    for garbage in (b"x" * (40 << 20), b'"' * (17 << 20), b"\xff" * ((64 << 10) + 1)):
        store = _repaired_by_one_cas(sent, garbage, fresh)
        assert max(map(len, sent)) < 4096

        async def run() -> None:
            assert store.compare_and_swap("toolerr:breaker:search", fresh, garbage)[0]
            r = await AsyncExecutor(store=store).call("search", _async(lambda: "ok"))
            assert (r.ok, r.attempts) == (True, 1)
        asyncio.run(run())
        assert store.load("toolerr:breaker:search") == fresh
    # Bytes of exactly 64 KiB still go as their text (the core repairs them too).
    store = MemoryStore()
    assert store.compare_and_swap("toolerr:breaker:search", None, b"y" * (64 << 10))[0]
    sent.clear()
    assert Executor(store=store).call("search", lambda: "ok").ok
    assert any(b"y" * (64 << 10) in s for s in sent)
    assert store.load("toolerr:breaker:search") == fresh


def _spy_steps(monkeypatch: pytest.MonkeyPatch) -> List[bytes]:
    """Record every request the runtime sends to the core."""
    sent: List[bytes] = []
    real = toolerr.runtime.invoke_bytes

    def spy(request: bytes) -> bytes:
        sent.append(request)
        return real(request)

    monkeypatch.setattr(toolerr.runtime, "invoke_bytes", spy)
    return sent


def _flaky() -> Any:
    """A tool whose odd calls time out (a retryable failure) and whose even calls succeed."""
    n = [0]

    def fn() -> str:
        n[0] += 1
        if n[0] % 2:
            raise TimeoutError("upstream timed out")
        return "ok"
    return fn


def test_a_retried_call_is_two_crossings(monkeypatch: pytest.MonkeyPatch) -> None:
    # A call that times out once and then succeeds, on a closed breaker with
    # no deadline, crosses into the core twice (docs/resilience.md, "Answers
    # decided ahead"): its start, and its failure carrying the classify
    # request, whose cas, sleep, next call, success and that success's cas
    # come decided inside the answer. It took seven crossings (six steps and
    # a classification). The decisions are the shared scenarios' (above).
    sent = _spy_steps(monkeypatch)
    store = MemoryStore()
    ex = Executor(store=store, sleep=lambda s: None)
    fn = _flaky()
    assert ex.call("search", fn).ok  # the key written, counted, then reset
    sent.clear()
    r = ex.call("search", fn)
    assert (r.ok, r.value, r.attempts) == (True, "ok", 2)
    assert len(sent) == 2, [s[:120] for s in sent]
    assert b'"classify":{"op":"classify_exception","exception":{"type":"TimeoutError","message":"upstream timed out"},"tool":"search"}' in sent[1]
    assert store.load("toolerr:breaker:search") == \
        b'{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}'
    # That start stood on the fresh breaker: the next retried call applies it
    # and crosses once, for its failure.
    sent.clear()
    r = ex.call("search", fn)
    assert (r.ok, r.attempts, len(sent)) == (True, 2, 1)
    assert b'"kind":"failure"' in sent[0]
    # With a timeout the answers that read the clock are left to their steps.
    sent.clear()
    r = Executor(store=store, sleep=lambda s: None, timeout=60).call("search", fn)
    assert (r.ok, r.attempts, len(sent)) == (True, 2, 5)

    async def run() -> None:
        sent.clear()
        ax = AsyncExecutor(store=store, sleep=lambda s: asyncio.sleep(0))
        r = await ax.call("search", _async(fn))
        assert (r.ok, r.attempts, len(sent)) == (True, 2, 2)
    asyncio.run(run())


def _async(fn: Any) -> Any:
    async def afn() -> Any:
        return fn()
    return afn


def test_answers_decided_ahead_yield_to_a_breaker_opened_meanwhile() -> None:
    # A call whose next attempt was decided ahead of its sleep on a closed
    # breaker, while another call opens the breaker during that sleep, sends
    # its slept step after all and is refused (CIRCUIT_OPEN), as without
    # answers decided ahead.
    ex: Executor

    def fail() -> None:
        raise TimeoutError("upstream timed out")

    inner = [0]

    def sleep(seconds: float) -> None:
        inner[0] += 1
        if inner[0] == 1:
            other = ex.call("search", fail)
            assert other.error is not None and other.error.code == "CIRCUIT_OPEN"

    ex = Executor(sleep=sleep)
    calls = [0]

    def tool() -> None:
        calls[0] += 1
        raise TimeoutError("upstream timed out")

    r = ex.call("search", tool)
    assert r.error is not None and (r.error.code, r.attempts, calls[0]) == ("CIRCUIT_OPEN", 1, 1)


@pytest.mark.parametrize("exc", [
    TimeoutError("upstream timed out"), ConnectionResetError("reset by peer"), ValueError("bad value"),
    _http_error(503, headers={"Retry-After": "2"}, text="down"), _http_error(400, text='{"error": "bad query"}'),
    _http_error(429, headers={"retry-after": "7"}), _http_error(10 ** 30), _StrRaises(),
], ids=["timeout", "reset", "value", "http-503", "http-400", "http-429", "huge-status", "str-raises"])
def test_a_failure_classified_inside_its_step_is_failure_envelope(exc: Exception) -> None:
    # The failure event carries the request failure_envelope sends first
    # (classify); the envelope the call stops with is failure_envelope's, a
    # request the core refuses falling back to it, sync and asyncio alike.
    def fn() -> None:
        raise exc

    async def afn() -> None:
        raise exc

    want = toolerr.runtime.failure_envelope(exc, "search")
    r = Executor(retry={"max_attempts": 1}).call("search", fn)
    assert r.error == want
    assert asyncio.run(AsyncExecutor(retry={"max_attempts": 1}).call("search", afn)).error == want


FRESH = b'{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}'


def test_a_successful_call_makes_no_crossing_once_its_start_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    # A start step asked with standing answers "stands" where the same start
    # gets the same bytes at any time (docs/resilience.md, "A start answer
    # that stands"): the executor keeps that answer and applies it to the
    # next call whose load made ahead and replica are what it stood for,
    # with its success decided ahead, so a closed breaker's successful call
    # crosses into the core zero times; the decisions logged are the
    # records of the step it stands for.
    sent = _spy_steps(monkeypatch)
    for store in (MemoryStore(), None):
        records: List[Dict[str, Any]] = []
        ex = Executor(store=store, on_decision=records.append) if store else Executor(on_decision=records.append)
        counts = []
        for _ in range(4):
            sent.clear()
            r = ex.call("search", lambda: "ok", args={"q": "x"})
            assert (r.ok, r.value, r.attempts) == (True, "ok", 1)
            counts.append(len(sent))
        assert counts == [1, 0, 0, 0]
        one = records[:2]
        assert [rec["kind"] for rec in one] == ["breaker", "call"]
        assert records == one * 4  # the records the sent start and success step gave, for every call
        assert records[0] is not records[2]  # each call's own dicts

    async def run() -> None:
        store = MemoryStore()
        assert store.compare_and_swap("toolerr:breaker:search", None, FRESH)[0]
        ax = AsyncExecutor(store=store)
        counts = []
        for _ in range(4):
            sent.clear()
            r = await ax.call("search", _async(lambda: "ok"))
            assert (r.ok, r.attempts) == (True, 1)
            counts.append(len(sent))
        # The first start sees bytes this replica had not seen (the replica
        # changes: not standing), the second stands, the rest apply it.
        assert counts == [1, 1, 0, 0]
    asyncio.run(run())


def test_a_kept_start_nobody_hears_is_called_without_the_step_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    # Once its start stands, a successful call that nobody hears is made by
    # Executor.call itself (no step loop entered, no crossing); a call whose
    # event is not the one decided ahead goes on in the step loop from its
    # call: a failure (its step sent, its retry), and a success after which
    # the store holds what another replica wrote meanwhile (the success step
    # sent, on that state). Each gives what a call from the start gives.
    store = MemoryStore()
    quiet = logging.getLogger("toolerr.tests.quiet")  # heard by no one (pytest's handlers are on the root)
    quiet.propagate = False
    quiet.addHandler(logging.NullHandler())
    ex = Executor(store=store, sleep=lambda s: None, logger=quiet)
    other = Executor(store=store, retry={"max_attempts": 1})
    assert ex.call("search", lambda: "ok").attempts == 1  # the start answer stands from here on
    entered: List[Any] = []
    real = Executor._steps

    def steps(self: Executor, *a: Any, **k: Any) -> Any:
        if self is ex:
            entered.append(a[7] if len(a) > 7 else k.get("resume"))
        return real(self, *a, **k)
    monkeypatch.setattr(Executor, "_steps", steps)
    sent = _spy_steps(monkeypatch)
    r = ex.call("search", lambda: "ok")
    assert (r.value, r.attempts, r.error, entered, sent) == ("ok", 1, None, [], [])

    r = ex.call("search", _flaky())
    assert (r.value, r.attempts, len(entered)) == ("ok", 2, 1) and entered[0] is not None
    assert len(sent) == 1 and b'"kind":"failure"' in sent[0] and store.load("toolerr:breaker:search") == FRESH
    entered.clear()
    sent.clear()

    def meanwhile() -> str:
        assert other.call("search", lambda: (_ for _ in ()).throw(TimeoutError("down"))).attempts == 1
        return "ok"
    r = ex.call("search", meanwhile)
    assert (r.value, r.attempts, r.error, len(entered)) == ("ok", 1, None, 1)
    mine = [q for q in sent if b'"kind":"success"' in q]
    assert len(mine) == 1 and COUNTED.decode().replace('"', '\\"').encode() in mine[0]
    assert store.load("toolerr:breaker:search") == FRESH  # the success counted, as a success step decides


def test_a_retried_call_leaves_no_cycle_for_the_collector() -> None:
    # A failure's exception holds, through its traceback, the frame of the
    # executor's call, and the event of the failure holds the exception: a
    # retried call that succeeds keeps neither in that frame, so that it is
    # freed at once, not left to the cyclic collector (which ran about 15
    # times per 1,000 retried calls when the event was kept).
    import gc

    quiet = logging.getLogger("toolerr.tests.quiet")
    quiet.propagate = False
    quiet.addHandler(logging.NullHandler())
    for logger in (quiet, None):
        ex = Executor(sleep=lambda s: None, logger=logger)
        tool = _flaky()
        assert ex.call("search", lambda: "ok").ok  # the start answer stands from here on
        gc.collect()
        gc.disable()
        try:
            for _ in range(20):
                assert ex.call("search", tool).attempts == 2
            assert gc.collect() == 0
        finally:
            gc.enable()


def test_an_async_kept_start_nobody_hears_is_called_without_the_step_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    # AsyncExecutor as Executor: once its start stands, a successful call
    # that nobody hears is awaited by call itself (no step loop entered, no
    # crossing); a failure goes on in the loop from its call (its step sent,
    # its retry), with the same result as a call from the start.
    store = MemoryStore()
    quiet = logging.getLogger("toolerr.tests.quiet")
    quiet.propagate = False
    quiet.addHandler(logging.NullHandler())
    ex = AsyncExecutor(store=store, sleep=lambda s: asyncio.sleep(0), logger=quiet)
    entered: List[Any] = []
    real = AsyncExecutor._steps

    def steps(self: AsyncExecutor, *a: Any, **k: Any) -> Any:
        entered.append(a[7] if len(a) > 7 else k.get("resume"))
        return real(self, *a, **k)

    async def run() -> None:
        assert (await ex.call("search", _async(lambda: "ok"))).attempts == 1  # the start stands from here on
        monkeypatch.setattr(AsyncExecutor, "_steps", steps)
        sent = _spy_steps(monkeypatch)
        r = await ex.call("search", _async(lambda: "ok"))
        assert (r.value, r.attempts, r.error, entered, sent) == ("ok", 1, None, [], [])
        r = await ex.call("search", _async(_flaky()))
        assert (r.value, r.attempts, len(entered)) == ("ok", 2, 1) and entered[0] is not None
        assert len(sent) == 1 and b'"kind":"failure"' in sent[0] and store.load("toolerr:breaker:search") == FRESH
    asyncio.run(run())


class _Down(Exception):
    """A tool's retryable failure (an HTTP 503) that a weak reference can
    follow (a builtin exception takes none)."""

    status_code = 503


def test_a_failed_call_result_is_freed_without_the_collector() -> None:
    # A failed call's CallResult holds the tool's exception, whose traceback
    # holds the frame of the executor's call: that frame keeps no reference
    # to the exception once the call returns, so the result and the
    # exception are freed with the caller's last reference (before, exc,
    # the last retry and the event in that frame made a cycle that only the
    # collector freed). The exception and its traceback stay readable.
    import gc
    import weakref

    def down() -> None:
        raise _Down("upstream down")

    async def adown() -> None:
        raise _Down("upstream down")

    quiet = logging.getLogger("toolerr.tests.quiet")
    quiet.propagate = False
    quiet.addHandler(logging.NullHandler())
    for logger in (quiet, None):
        ex = Executor(sleep=lambda s: None, logger=logger, retry={"max_attempts": 2})
        ax = AsyncExecutor(sleep=lambda s: asyncio.sleep(0), logger=logger, retry={"max_attempts": 2})
        assert ex.call("search", lambda: "ok").ok and asyncio.run(ax.call("search", _async(lambda: "ok"))).ok
        gc.collect()
        gc.disable()
        try:
            for call in (lambda: ex.call("search", down), lambda: asyncio.run(ax.call("search", adown))):
                r = call()
                assert r.attempts == 2 and r.error is not None and r.error.code == "TRANSPORT"
                assert isinstance(r.exception, _Down) and r.exception.__traceback__ is not None
                result, exception = weakref.ref(r), weakref.ref(r.exception)
                del r
                assert (result(), exception()) == (None, None)
        finally:
            gc.enable()


def test_an_async_retried_call_leaves_no_cycle_for_the_collector() -> None:
    import gc

    async def run(ax: AsyncExecutor) -> None:
        tool = _async(_flaky())
        assert (await ax.call("search", _async(lambda: "ok"))).ok
        gc.collect()
        gc.disable()
        try:
            for _ in range(20):
                assert (await ax.call("search", tool)).attempts == 2
            assert gc.collect() == 0
        finally:
            gc.enable()

    quiet = logging.getLogger("toolerr.tests.quiet")
    quiet.propagate = False
    quiet.addHandler(logging.NullHandler())
    for logger in (quiet, None):
        asyncio.run(run(AsyncExecutor(sleep=lambda s: asyncio.sleep(0), logger=logger)))


def test_a_start_kept_yields_to_a_breaker_another_replica_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two executors share a store. One keeps the fresh breaker's start; the
    # other opens the breaker; the first one's next call loads the open
    # state ahead, which is not what its kept answer stood for, so it sends
    # the start step and is refused without calling the tool.
    sent = _spy_steps(monkeypatch)
    store = MemoryStore()
    a = Executor(store=store, retry={"max_attempts": 1})
    b = Executor(store=store, retry={"max_attempts": 1})
    assert a.call("search", lambda: "ok").ok
    sent.clear()
    assert a.call("search", lambda: "ok").ok and len(sent) == 0

    def fail() -> None:
        raise TimeoutError("upstream timed out")
    for _ in range(3):
        assert b.call("search", fail).error is not None
    assert b'"phase":"open"' in (store.load("toolerr:breaker:search") or b"")
    calls = [0]

    def tool() -> str:
        calls[0] += 1
        return "ok"
    sent.clear()
    r = a.call("search", tool)
    assert r.error is not None and (r.error.code, r.attempts, calls[0]) == ("CIRCUIT_OPEN", 0, 0)
    assert len(sent) == 1


def test_a_start_kept_is_applied_only_while_the_load_and_the_replica_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    # The kept answer holds while the load made ahead answers exactly its
    # if_loaded and the replica is {0, if_loaded}. A counted failure in the
    # store (the load moved), this replica's own counted failure while
    # another replica reset the store to the bytes it stood for (the replica
    # moved), and a store in its back-off window (no load made ahead, the
    # replica's down_until_ms set) each send the start step.
    sent = _spy_steps(monkeypatch)
    store = MemoryStore()
    assert store.compare_and_swap("toolerr:breaker:search", None, FRESH)[0]
    a = Executor(store=store, retry={"max_attempts": 1})
    b = Executor(store=store, retry={"max_attempts": 1})
    assert a.call("search", lambda: "ok").ok and a.call("search", lambda: "ok").ok  # the second start stood
    sent.clear()
    assert a.call("search", lambda: "ok").ok and len(sent) == 0

    def fail() -> None:
        raise TimeoutError("upstream timed out")
    assert b.call("search", fail).error is not None  # the store counts a failure: the load moved
    sent.clear()
    assert a.call("search", lambda: "ok").ok and len(sent) >= 1  # its success resets the count
    assert store.load("toolerr:breaker:search") == FRESH
    sent.clear()
    assert a.call("search", lambda: "ok").ok and len(sent) == 0
    assert a.call("search", fail).error is not None  # this replica saw the count...
    assert b.call("search", lambda: "ok").ok  # ...and the other reset it to the bytes a's answer stood for
    assert store.load("toolerr:breaker:search") == FRESH and a.replica_state("search") != FRESH
    sent.clear()
    assert a.call("search", lambda: "ok").ok and len(sent) >= 1  # the replica moved: sent
    sent.clear()
    assert a.call("search", lambda: "ok").ok and len(sent) == 0

    class Flaky(MemoryStore):
        down = False

        def load(self, key: str) -> Optional[bytes]:
            if self.down:
                raise ConnectionRefusedError("connection refused")
            return super().load(key)
    now = [1_000_000]
    flaky = Flaky()
    c = Executor(store=flaky, clock=lambda: now[0])
    assert c.call("search", lambda: "ok").ok
    sent.clear()
    assert c.call("search", lambda: "ok").ok and len(sent) == 0
    flaky.down = True
    assert c.call("search", lambda: "ok").ok  # decided on the replica's state: the back-off window opens
    flaky.down = False
    for advance in (10, 2_000):  # inside the window, then the first call after it
        now[0] += advance
        sent.clear()
        assert c.call("search", lambda: "ok").ok and len(sent) >= 1
    sent.clear()
    assert c.call("search", lambda: "ok").ok and len(sent) == 0


def test_no_start_stands_with_a_timeout_a_budget_or_the_loop_guard(monkeypatch: pytest.MonkeyPatch) -> None:
    # The call's deadline (timeout: Python's executor takes no caller
    # deadline besides it), the run's budget and the loop guard read the
    # clock or the run's state at the start: every start is a step.
    sent = _spy_steps(monkeypatch)
    for ex in (Executor(timeout=60), Executor(budget=Budget({"steps": 100})), Executor(loop_guard=LoopGuard())):
        for _ in range(3):
            sent.clear()
            assert ex.call("search", lambda: "ok", args={"q": "x"}).ok
            assert b'"standing":true' in sent[0] and b'"event":{"kind":"start"' in sent[0]


def test_a_start_kept_is_not_applied_once_a_budget_or_loop_guard_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    # budget and loop_guard are the executor's public attributes: a run's
    # budget or guard set after a start stood (one executor reused for the
    # next agent run) must be charged and asked on the very next call, as
    # the step does; the kept answer stood for a call with neither.
    sent = _spy_steps(monkeypatch)
    for attr, value in (("budget", Budget({"steps": 1})), ("loop_guard", LoopGuard(threshold=1))):
        ex = Executor(retry={"max_attempts": 1})
        assert ex.call("search", lambda: "ok").ok
        sent.clear()
        assert ex.call("search", lambda: "ok").ok and len(sent) == 0  # the start kept
        setattr(ex, attr, value)
        sent.clear()
        assert ex.call("search", lambda: "ok", args={"q": "x"}).ok
        assert len(sent) >= 1 and b'"event":{"kind":"start"' in sent[0]
        if attr == "budget":
            assert value.state is not None and value.state["steps"] == 1
            r = ex.call("search", lambda: "ok")
            assert r.error is not None and r.error.code == "BUDGET_EXHAUSTED"


def test_a_start_kept_gives_each_call_records_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # An on_decision that annotates the records it is given (a run id, a
    # popped member) changes that call's records only: the start kept and
    # the success it decided ahead give every later call the records the
    # core answered, as the steps would, in dicts no other call holds.
    sent = _spy_steps(monkeypatch)
    got: List[Dict[str, Any]] = []

    def annotate(rec: Dict[str, Any]) -> None:
        got.append(dict(rec))
        rec.pop("level", None)
        rec["run"] = len(got)
    ex = Executor(on_decision=annotate)
    for _ in range(4):
        sent.clear()
        assert ex.call("search", lambda: "ok").ok
    assert len(sent) == 0  # the last calls applied the kept start and its success
    assert [rec["kind"] for rec in got] == ["breaker", "call"] * 4
    assert all("run" not in rec and rec["level"] == "debug" for rec in got)
    assert got == got[:2] * 4


class _StrSub(str):
    pass


def _caused(message: str) -> RuntimeError:
    """RuntimeError(message) raised from a refused connection whose str holds quotes, a NUL and a lone surrogate."""
    exc = RuntimeError(message)
    exc.__cause__ = ConnectionRefusedError(111, 'Connection "refused" \x00 \ud800\nsecond line')
    return exc


class _SubStr(Exception):
    def __str__(self) -> str:
        return _StrSub("a str subclass")


@pytest.mark.parametrize("exc,tool", [
    (TimeoutError("upstream timed out"), "search"), (ValueError('quote " backslash \\ tab \t nul \x00'), "search"),
    (ConnectionError("é ☃ 😀 \u2028"), "búsqueda"), (RuntimeError("lone \ud800 surrogate"), "search"),
    (_SubStr(), "search"), (_StrRaises(), "search"), (_http_error(503, text="down"), "search"),
    (TimeoutError("no tool"), None), (KeyError("k"), "search"), (_caused("search failed"), "search"),
], ids=["plain", "escapes", "non-ascii", "lone-surrogate", "str-subclass", "str-raises", "http", "no-tool", "keyerror",
        "caused"])
def test_the_classify_request_written_as_text_is_the_op_request(exc: Exception, tool: Optional[str]) -> None:
    # The failure event's classify request, written as text for an exception
    # with no HTTP status, is byte for byte the request classify_response
    # sends (the same JSON encoder for each string); anything else, and an
    # exception whose str raises, goes the way it went.
    def request() -> str:
        return toolerr._op_request(*toolerr._response_request(exc, source="tool", tool=tool))

    try:
        want = request()
    except RuntimeError:
        with pytest.raises(RuntimeError):
            toolerr._response_request_text(exc, tool)
        return
    assert toolerr._response_request_text(exc, tool) == want


def _failure_answers(monkeypatch: pytest.MonkeyPatch, draws: List[float]) -> List[bytes]:
    """The core's answers to the failure steps of retried calls, one per draw, each on a fresh executor."""
    answers: List[bytes] = []
    real = toolerr.runtime.invoke_bytes

    def spy(request: bytes) -> bytes:
        out = real(request)
        if b'"kind":"failure"' in request:
            answers.append(out)
        return out

    monkeypatch.setattr(toolerr.runtime, "invoke_bytes", spy)
    for draw in draws:
        r = Executor(sleep=lambda s: None, draw=lambda: draw).call("search", _flaky())
        assert (r.ok, r.attempts) == (True, 2)
    return answers


def test_answers_decided_ahead_read_again_are_the_values_the_answer_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    # A failure's answer holds the five answers decided ahead; read again
    # (the chain after its sleep repeats from one retried call to the next,
    # the delay before it differing with the draw), each level is the value
    # json reads from the whole answer, whether it was read afresh or taken
    # from the texts read before.
    toolerr.runtime._ahead_read.clear()
    answers = _failure_answers(monkeypatch, [0.25, 0.75])
    assert len(answers) == 2 and answers[0] != answers[1]
    read = [toolerr.runtime._read_answer(a, records=True) for a in answers]
    for r, a in zip(read, answers):
        whole = json.loads(a)["ok"]
        assert (r.action, r.records, r.replica, json.loads(r.state)) == \
            (whole["action"], whole["decisions"], whole.get("replica"), whole["state"])
        assert _ahead_value(r.ahead) == whole["on_swapped"]
        assert len(json.dumps(whole["on_swapped"])) > 1000  # the chain of four answers, all of it compared
    # The second answer's chain from its sleep on is the first's: taken as it was read.
    assert read[1].ahead.ahead is read[0].ahead.ahead
    assert read[1].ahead.action != read[0].ahead.action  # its own delay
    assert read[1].action is read[0].action  # the same cas, taken as it was read


def test_a_failure_answer_read_again_scans_only_its_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    # A retried call's failure answer repeats the last one's but for its
    # sleep's delay (its action and records) and its state (the draw): read
    # again, json's scanner reads its sleep's action alone; the members of
    # the sleep's level after its records (if_loaded, the chain decided
    # ahead, replica, state) are taken whole, as read before, and are the
    # values json reads from the whole answer.
    answers = _failure_answers(monkeypatch, [0.25, 0.75, 0.5])
    toolerr.runtime._ahead_read.clear()  # what the calls read forgotten: the first answer read afresh
    first = toolerr.runtime._read_answer(answers[0], records=False)
    scanned: List[int] = []
    real_scan = toolerr.runtime._scan

    def scan(s: str, i: int) -> Tuple[Any, int]:
        scanned.append(i)
        return real_scan(s, i)
    monkeypatch.setattr(toolerr.runtime, "_scan", scan)
    for a in answers[1:]:
        scanned.clear()
        r = toolerr.runtime._read_answer(a, records=False)
        s = a.decode()
        assert [s[i:i + 12] for i in scanned] == ['{"delay_ms":']
        whole = json.loads(a)["ok"]["on_swapped"]
        assert _ahead_value(r.ahead) == whole and r.ahead.action == {"delay_ms": whole["action"]["delay_ms"],
                                                                     "kind": "sleep"}
        assert (r.ahead.if_loaded, r.ahead.state, r.ahead.ahead) == \
            (first.ahead.if_loaded, first.ahead.state, first.ahead.ahead)
        assert r.ahead.ahead is first.ahead.ahead


_AHEAD_MEMBER = {"call": "on_success", "cas": "on_swapped", "sleep": "on_slept"}


def _ahead_value(a: Any) -> Dict[str, Any]:
    """An answer decided ahead as the runtime holds it (toolerr.runtime._Ahead),
    as the dict json reads from its text: its members, its records read for
    the caller, the answer decided ahead inside it under the member its action
    names."""
    d: Dict[str, Any] = {"action": a.action, "decisions": a.own_records(), "if_loaded": a.if_loaded, "state": a.state}
    if a.ahead is not None:
        d[_AHEAD_MEMBER[a.action["kind"]]] = _ahead_value(a.ahead)
    if a.replica is not None:
        d["replica"] = a.replica
    return d


class _RacingStore(MemoryStore):
    """A MemoryStore where another replica writes race to the key just before the next compare-and-swap."""

    race: Optional[bytes] = None

    def compare_and_swap(self, key: str, old: Optional[bytes], new: bytes) -> Tuple[bool, Optional[bytes]]:
        if self.race is not None:
            assert super().compare_and_swap(key, self.load(key), self.race)[0]
            self.race = None
        return super().compare_and_swap(key, old, new)


COUNTED = b'{"failures":1,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}'


def _calls_meeting_other_replicas(monkeypatch: pytest.MonkeyPatch, warm: bool) -> Tuple[List[Any], int]:
    """Retried calls on one store (a fixed clock and draw, so every text
    repeats), after which the answers read before are kept (warm) or
    forgotten before each of the calls that follow: one whose failure's cas
    loses a race to another replica's count, one during whose sleep another
    replica opens the breaker, and, once the open time passed, two that
    succeed (the probe, and the call that closes the breaker). Returns what
    those calls gave (their results, records, the step requests of both
    replicas and the stored bytes after each) and how many values json's
    scanner read for them."""
    store = _RacingStore()
    records: List[Dict[str, Any]] = []
    opened = [False]

    def sleep(seconds: float) -> None:
        if opened[0]:
            opened[0] = False
            for _ in range(3):
                assert other.call("search", lambda: (_ for _ in ()).throw(TimeoutError("down"))).error is not None

    kw: Dict[str, Any] = {"store": store, "clock": lambda: 1_000_000, "draw": lambda: 0.5}
    other = Executor(retry={"max_attempts": 1}, **kw)
    ex = Executor(sleep=sleep, on_decision=records.append, **kw)
    tool = _flaky()
    for _ in range(4):
        assert ex.call("search", tool).attempts == 2
    sent = _spy_steps(monkeypatch)
    scanned = [0]
    real_scan = toolerr.runtime._scan

    def scan(s: str, i: int) -> Tuple[Any, int]:
        scanned[0] += 1
        return real_scan(s, i)
    monkeypatch.setattr(toolerr.runtime, "_scan", scan)
    got: List[Any] = []
    for setup in ("race", "open", "probe", "closes"):
        if not warm:
            toolerr.runtime._ahead_read.clear()
        records.clear()
        sent.clear()
        if setup == "race":
            store.race = COUNTED
        elif setup == "open":
            opened[0] = True
        elif setup == "probe":
            ex = Executor(sleep=sleep, on_decision=records.append, **dict(kw, clock=lambda: 1_000_000 + 60_000))
            tool = lambda: "ok"  # noqa: E731
        r = ex.call("search", tool)
        got.append((r.value, r.error, r.attempts, list(records), list(sent), store.load("toolerr:breaker:search")))
    return got, scanned[0]


def test_answers_read_before_yield_to_a_lost_race_and_a_breaker_changed_meanwhile(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The actions, if_loaded, replicas, states and answers decided ahead read
    # before (toolerr.runtime._ahead_read) are only the values of texts that
    # repeat: with them kept or forgotten before each call, a cas that lost a
    # race to another replica, a breaker another replica opened during the
    # sleep, and the calls after it give the same results, records, step
    # requests and stored bytes; kept, json's scanner reads fewer values.
    warm, warm_scans = _calls_meeting_other_replicas(monkeypatch, warm=True)
    monkeypatch.undo()
    cold, cold_scans = _calls_meeting_other_replicas(monkeypatch, warm=False)
    assert warm == cold
    race, opened, probe, closes = warm
    assert (race[0], race[2], len(race[4])) == ("ok", 2, 2)  # the failure, then the lost cas sent as a step
    assert b'"kind":"cas","swapped":false' in race[4][1] and race[5] == FRESH
    # The slept step sent (its answer decided ahead was for the closed breaker), refused.
    assert opened[1] is not None and (opened[1].code, opened[2]) == ("CIRCUIT_OPEN", 1)
    assert any(b'"kind":"slept"' in q for q in opened[4]) and b'"phase":"open"' in opened[5]
    assert (probe[0], probe[2], closes[0], closes[2], closes[5]) == ("ok", 1, "ok", 1, FRESH)
    assert [rec["kind"] for rec in race[3]] == ["breaker", "call", "retry", "breaker", "call"]
    assert warm_scans < cold_scans


def test_answers_read_before_are_shared_by_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    # Threads whose retried calls have answers of their own (each its own
    # draw, so its own delays and texts: more than the values kept per
    # member, so they replace each other's) read and replace the values
    # read before at once; each call gives the records, result and steps a
    # call gives with nothing read before.
    draws = [0.1, 0.3, 0.5, 0.7, 0.9, 0.2, 0.4, 0.6, 0.8, 0.95]

    def calls(draw: float, n: int, forget: bool) -> List[Any]:
        records: List[Dict[str, Any]] = []
        ex = Executor(sleep=lambda s: None, draw=lambda: draw, on_decision=records.append)
        tool, out = _flaky(), []
        for _ in range(n):
            if forget:
                toolerr.runtime._ahead_read.clear()
            records.clear()
            r = ex.call("search", tool)
            out.append((r.value, r.attempts, list(records)))
        return out

    want = {d: calls(d, 3, forget=True) for d in draws}
    got: Dict[float, List[Any]] = {}
    errors: List[BaseException] = []

    def run(d: float) -> None:
        try:
            got[d] = calls(d, 30, forget=False)
        except BaseException as e:  # noqa: BLE001  reported below
            errors.append(e)

    switch = __import__("sys").getswitchinterval()
    __import__("sys").setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=run, args=(d,)) for d in draws]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        __import__("sys").setswitchinterval(switch)
    assert errors == []
    for d in draws:
        assert got[d][:3] == want[d]
        assert all(c == want[d][2] for c in got[d][2:])  # every call after the first two as the third
        assert want[d][2][0:2] == ("ok", 2) and len(want[d][2][2]) >= 5


def test_records_of_answers_read_before_are_each_calls_own() -> None:
    # An on_decision that changes the records it is given changes that
    # call's only: retried calls whose answers decided ahead repeat, taken
    # from the ones read before, report the core's records every time.
    got: List[List[Dict[str, Any]]] = []

    def annotate(rec: Dict[str, Any]) -> None:
        got[-1].append(dict(rec))
        rec.pop("level", None)
        rec["run"] = len(got)
    for _ in range(3):
        got.append([])
        ex = Executor(sleep=lambda s: None, draw=lambda: 0.5, on_decision=annotate)
        assert ex.call("search", _flaky()).attempts == 2
    assert all("run" not in rec and "level" in rec for call in got for rec in call)
    assert got[0] == got[1] == got[2] and len(got[0]) >= 5


def test_a_stop_read_before_gives_each_call_an_envelope_of_its_own() -> None:
    # The envelope a call stops with is the caller's: changing a nested
    # detail changes no later call's envelope, when the stop came in an
    # answer decided ahead that repeats (fresh executors, the same draws).
    env = toolerr.envelope("UPSTREAM_UNAVAILABLE", "down", retryable=True, details={"upstream": {"region": "eu"}})

    def fail() -> None:
        raise ToolFailure(env)
    errors = []
    for _ in range(3):
        r = Executor(sleep=lambda s: None, draw=lambda: 0.5, retry={"max_attempts": 2}).call("search", fail)
        assert r.error is not None and r.attempts == 2
        errors.append(r.error)
        r.error.details["upstream"]["region"] = "changed"
    assert [e.details["upstream"] for e in errors] == [{"region": "changed"}] * 3
    assert Executor(sleep=lambda s: None, draw=lambda: 0.5, retry={"max_attempts": 2}).call(
        "search", fail).error == env


def test_an_exception_type_of_a_hostile_module_is_classified_never_raised() -> None:
    # _type_name formatted type(exc).__module__ into the type's name: a class whose __module__ cannot be
    # formatted, or whose metaclass's __module__ property raises, raised out of the executor (each fallback
    # read the type's name again). Such a type is named by its __qualname__ alone.
    class Unformattable:
        def __format__(self, spec: str) -> str:
            raise RuntimeError("no format")

    class Meta(type):
        @property
        def __module__(cls) -> str:
            raise RuntimeError("no module")

    odd = type("OddModule", (Exception,), {})
    odd.__module__ = Unformattable()
    for exc in (odd("bad city"), Meta("MetaModule", (Exception,), {})("bad city")):
        def fail(exc: BaseException = exc) -> None:
            raise exc

        r = Executor(retry={"max_attempts": 1}).call("search", fail)
        assert r.error is not None
        assert (r.error.code, r.error.details["exception_type"], r.error.details["tool_message"]) == (
            "TOOL_ERROR", type(exc).__qualname__, "bad city.")


@pytest.mark.parametrize("draw", [float("nan"), float("inf"), -float("inf"), 1.5, None, object()],
                         ids=["nan", "inf", "-inf", "1.5", "none", "object"])
def test_a_draw_outside_0_1_is_refused_in_the_words_of_every_executor(draw: Any) -> None:
    # A NaN or infinite draw was written into the failure event as the text nan or inf, which is no JSON: the
    # core refused the request as "not valid JSON", where Node and Rust (which write them as null) are told
    # "event.draw: is required: a uniform random number in [0, 1)".
    def down() -> None:
        raise ConnectionResetError("connection reset by peer")

    with pytest.raises(ToolerrError) as info:
        Executor(sleep=lambda s: None, draw=lambda: draw).call("search", down)
    assert info.value.envelope.code == "INVALID_INPUT"
    assert info.value.envelope.message == "toolerr: event.draw: is required: a uniform random number in [0, 1)."


def test_answers_read_before_never_answer_another_call() -> None:
    # The runtime reuses the values of answer texts read before (_ahead_read, keyed by their first 64
    # characters, shared by every executor): messages that share those 64 characters, messages that
    # look like the JSON around them, each called twice in turn on two executors, each get their own
    # envelope; changing one call's details changes no later call's.
    head = "a" * 70
    messages = [head + " one", head + " two", 'x"],"if_loaded":null,"state":{}}',
                'x"],"if_loaded":null,"state":{"a":1}}', 'q"},"stands":{"if_loaded":null}', "plain"]
    executors = [Executor(retry={"max_attempts": 1}), Executor(retry={"max_attempts": 2}, sleep=lambda s: None)]
    for _ in range(2):
        for i, m in enumerate(messages):
            def fn(m: str = m) -> None:
                raise ValueError(m)

            for ex in executors:
                r = ex.call(f"search{i % 2}", fn)
                assert r.error is not None and r.error.details["tool_message"] == m + "."
                assert r.error.details["tool"] == f"search{i % 2}"
                r.error.details["tool_message"] = "changed by the caller"


@pytest.mark.parametrize("make,path", [
    (lambda: Executor(timeout=-1), "timeout_ms"),
    (lambda: Executor(timeout=0), "timeout_ms"),
    (lambda: Executor(timeout=float("nan")), "timeout_ms"),
    (lambda: Executor(timeout=float("inf")), "timeout_ms"),
    (lambda: Executor(timeout=1e300), "timeout_ms"),
    (lambda: Executor(store_backoff=-0.5), "store_backoff_ms"),
    (lambda: Executor(loop_guard=LoopGuard(0)), "loop.threshold"),
    (lambda: Executor(loop_guard=LoopGuard(-2)), "loop.threshold"),
    (lambda: Executor(loop_guard=LoopGuard(1.5)), "loop.threshold"),
    (lambda: Executor(budget=Budget({"steps": -1})), "budget.limits.steps"),
    (lambda: Executor(budget=Budget({"tokens": float("nan")})), "budget.limits.tokens"),
], ids=["timeout-neg", "timeout-0", "timeout-nan", "timeout-inf", "timeout-huge", "backoff-neg", "loop-0",
        "loop-neg", "loop-frac", "budget-neg", "budget-nan"])
def test_bad_numeric_options_reach_the_core_and_are_invalid_input(make: Callable[[], Executor], path: str) -> None:
    # Before: a negative timeout became 1 ms (max(1, ...)), 0 and NaN too or a crash (int(nan)), LoopGuard(0)
    # silently the default threshold: each one now reaches the core, which refuses it at its member's path.
    calls = []
    with pytest.raises(ToolerrError) as info:
        make().call("search", lambda: calls.append(1))
    assert info.value.envelope.code == "INVALID_INPUT"
    assert info.value.envelope.details["path"] == path
    assert calls == []


def test_a_timeout_under_a_millisecond_rounds_up() -> None:
    # 1 µs is 1 ms (int() truncated 1.5 ms to 1 and 1 µs to 0, which max(1, ...) hid).
    assert Executor(timeout=1e-6)._config["timeout_ms"] == 1
    assert Executor(timeout=0.0015)._config["timeout_ms"] == 2
    assert Executor(store_backoff=0.0001)._config["store_backoff_ms"] == 1
    assert Executor(timeout=2)._config["timeout_ms"] == 2000


@pytest.mark.parametrize("make", [
    lambda: LoopGuard(True), lambda: LoopGuard("3"), lambda: LoopGuard(None),
    lambda: Budget({"steps": True}), lambda: Budget({"steps": "5"}), lambda: Budget([("steps", 1)]),
    lambda: Executor(timeout=True), lambda: Executor(timeout="5"),
], ids=["loop-bool", "loop-str", "loop-none", "budget-bool", "budget-str", "budget-list", "timeout-bool", "timeout-str"])
def test_a_non_number_option_is_a_type_error(make: Callable[[], Any]) -> None:
    # Before: True was the number 1, "3" failed deep in a comparison or "5" * 1000 was a 5000-character string.
    with pytest.raises(TypeError, match="must be a"):
        make()
