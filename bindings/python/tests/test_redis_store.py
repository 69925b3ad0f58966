"""toolerr.redis_store on a real redis-server started on a free loopback port (stopped after, by pid)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest

redis = pytest.importorskip("redis", reason="the redis extra is not installed (pip install 'toolerr[redis]')")

from toolerr.redis_store import CAS_SCRIPT, AsyncRedisStore, RedisStore  # noqa: E402
from toolerr.runtime import AsyncExecutor, Executor, ToolFailure  # noqa: E402
from toolerr import Envelope  # noqa: E402


@pytest.fixture(scope="module")
def server() -> Iterator[subprocess.Popen[bytes]]:
    bin_ = shutil.which("redis-server")
    if bin_ is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server not found under CI: run scripts/setup-redis.sh")
        pytest.skip("redis-server not found: run scripts/setup-redis.sh")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    d = tempfile.mkdtemp()
    p = subprocess.Popen([bin_, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                          "--dir", d], stdout=subprocess.DEVNULL)
    p.port = port  # type: ignore[attr-defined]
    c = redis.Redis(port=port)
    for _ in range(500):
        try:
            c.ping()
            break
        except redis.ConnectionError:
            time.sleep(0.02)
    yield p
    p.send_signal(signal.SIGCONT)
    p.kill()
    p.wait()
    shutil.rmtree(d, ignore_errors=True)


def url(p: subprocess.Popen[bytes]) -> str:
    return f"redis://127.0.0.1:{p.port}/0"  # type: ignore[attr-defined]


def test_script_is_the_go_one() -> None:
    go = Path(__file__).resolve().parents[3] / "redisstore" / "cas.lua"
    if go.is_file():  # in a clone: byte for byte the file Go embeds
        assert hashlib.sha1(CAS_SCRIPT.encode()).hexdigest() == hashlib.sha1(go.read_bytes()).hexdigest()
    assert "redis.call('SET', KEYS[1], ARGV[3])" in CAS_SCRIPT


def test_compare_and_swap(server: subprocess.Popen[bytes]) -> None:
    s = RedisStore.from_url(url(server))
    s.client.delete("k")
    assert s.load("k") is None
    assert s.compare_and_swap("k", b"x", b"a") == (False, None)
    assert s.compare_and_swap("k", None, b"a") == (True, None)
    assert s.compare_and_swap("k", None, b"b") == (False, b"a")
    assert s.compare_and_swap("k", b"z", b"b") == (False, b"a")
    assert s.compare_and_swap("k", b"a", b"b") == (True, None)
    assert s.load("k") == b"b"


def failing() -> None:
    raise ToolFailure(Envelope("TRANSPORT", "The tool is unavailable.", True, {"status": 503}, "tool"))


def test_replicas_share_one_breaker(server: subprocess.Popen[bytes]) -> None:
    for _ in range(3):
        Executor(store=RedisStore.from_url(url(server), timeout_ms=1000), retry={"max_attempts": 1}).call("shared", failing)
    calls = []
    r = Executor(store=RedisStore.from_url(url(server), timeout_ms=1000)).call("shared", lambda: calls.append(1))
    assert r.error is not None and r.error.code == "CIRCUIT_OPEN"
    assert calls == []
    b = RedisStore.from_url(url(server)).load("toolerr:breaker:shared")
    assert b is not None and b.startswith(b'{"failures":0,"open_until_ms":')


def test_async_store(server: subprocess.Popen[bytes]) -> None:
    async def main() -> None:
        store = AsyncRedisStore.from_url(url(server), timeout_ms=1000)
        x = AsyncExecutor(store=store, retry={"max_attempts": 1})

        async def fail() -> None:
            failing()

        for _ in range(3):
            await x.call("async-shared", fail)

        async def ok() -> int:
            return 1

        r = await x.call("async-shared", ok)
        assert r.error is not None and r.error.code == "CIRCUIT_OPEN"
        assert await store.load("toolerr:breaker:async-shared") == RedisStore.from_url(url(server)).load(
            "toolerr:breaker:async-shared")
        await store.client.aclose()

    asyncio.run(main())


def test_paused_server_costs_one_deadline(server: subprocess.Popen[bytes]) -> None:
    records: list[dict[str, object]] = []
    x = Executor(store=RedisStore.from_url(url(server), timeout_ms=30), store_backoff=0.3,
                 on_decision=records.append)
    assert x.call("paused", lambda: 1).ok
    server.send_signal(signal.SIGSTOP)
    try:
        t0 = time.monotonic()
        assert x.call("paused", lambda: 1).ok
        first = time.monotonic() - t0
        t0 = time.monotonic()
        for _ in range(50):
            assert x.call("paused", lambda: 1).ok
        rest = time.monotonic() - t0
    finally:
        server.send_signal(signal.SIGCONT)
    assert 0.03 <= first < 0.3, first
    assert rest < 0.2, rest  # within the back-off window the paused store is not asked
    reasons = [r["reason"] for r in records if r["kind"] == "fallback"]
    assert reasons[0] == "store_error" and set(reasons[1:]) == {"backoff"}


def test_corrupt_key_is_repaired(server: subprocess.Popen[bytes]) -> None:
    s = RedisStore.from_url(url(server))
    s.client.set("toolerr:breaker:corrupt", b"not json")
    records: list[dict[str, object]] = []
    assert Executor(store=s, on_decision=records.append).call("corrupt", lambda: 1).ok
    assert s.load("toolerr:breaker:corrupt") == \
        b'{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}'
    assert [r["kind"] for r in records][0] == "repair"


def test_swap_answer_reads_only_the_scripts_replies() -> None:
    from toolerr.redis_store import _swap_answer

    assert _swap_answer([1]) == (True, None)
    assert _swap_answer([0]) == (False, None)
    assert _swap_answer([0, b"held"]) == (False, b"held")
    assert _swap_answer([0, "held"]) == (False, b"held")  # a client with decode_responses
    for reply, shape in [
        ([0, 5], "[integer, integer]"),
        ([1, b"secret"], "[integer, bulk string]"),
        ([0, b"secret", None], "[integer, bulk string, nil]"),
        ([0, None], "[integer, nil]"),
        ([2], "[integer]"),
        ([True], "[bool]"),
        ([b"1"], "[bulk string]"),
        ([], "[]"),
        ([0, [b"secret"]], "[integer, array of 1]"),
        ([0, b"a", b"b", b"c", b"d"], "array of 5"),
        (b"secret", "bulk string"),
        (1, "integer"),
        (None, "nil"),
        ([0, 1.5], "[integer, float]"),
        ({b"secret": b"x"}, "dict"),
    ]:
        with pytest.raises(RuntimeError) as e:
            _swap_answer(reply)
        assert str(e.value) == \
            f"toolerr: the compare-and-swap script gave an unexpected reply {shape} (want [1], [0] or [0, bulk string])"
        assert "secret" not in str(e.value)


def test_malformed_reply_falls_back_at_once(server: subprocess.Popen[bytes]) -> None:
    # The real client and server, with redis-py's own response callback
    # replacing each EVALSHA reply by [0, 5]: one store error, then back-off.
    s = RedisStore.from_url(url(server), timeout_ms=1000)
    seen: list[object] = []
    s.client.set_response_callback("EVALSHA", lambda r, **kw: seen.append(r) or [0, 5])
    records: list[dict[str, object]] = []
    Executor(store=s, retry={"max_attempts": 1}, on_decision=records.append).call("malformed", failing)
    assert len(seen) == 1
    reasons = [r["reason"] for r in records if r["kind"] == "fallback"]
    assert reasons and reasons[0] == "store_error"
