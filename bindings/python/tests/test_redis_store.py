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
import threading
import time
import warnings
from pathlib import Path
from typing import Iterator

import pytest

redis = pytest.importorskip("redis", reason="the redis extra is not installed (pip install './toolerr-<version>-py3-none-<platform>.whl[redis]')")

from toolerr.redis_store import CAS_SCRIPT, WRONG_TYPE_STATE, AsyncRedisStore, RedisStore  # noqa: E402
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


def warm_until_answered(x: Executor, tool: str, records: list[dict[str, object]], backoff: float) -> None:
    """Call tool until one call is answered by the store, then clear records.

    On a loaded machine a 30 ms deadline can be missed; that call's fallback
    opens a back-off window in which a measured call would never ask a
    paused server, so the window is waited out and the store asked again."""
    for i in range(20):
        records.clear()
        assert x.call(tool, lambda: 1).ok
        if not any(r["kind"] == "fallback" for r in records):
            records.clear()
            return
        time.sleep(backoff + 0.05)
    raise AssertionError("the store missed its deadline on 20 calls in a row")


def test_paused_server_costs_one_deadline(server: subprocess.Popen[bytes]) -> None:
    records: list[dict[str, object]] = []
    x = Executor(store=RedisStore.from_url(url(server), timeout_ms=30), store_backoff=0.3,
                 on_decision=records.append)
    warm_until_answered(x, "paused", records, 0.3)
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


class DelayedAccept:
    """A loopback TCP proxy to the server that accepts each connection only after delay s
    (the client's TCP connect completes in the kernel's backlog; its handshake and first
    command wait), then relays bytes both ways. Stopped by close()."""

    def __init__(self, port: int, delay: float) -> None:
        self.port, self.delay = port, delay
        self.lsock = socket.socket()
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(16)
        self.url = f"redis://127.0.0.1:{self.lsock.getsockname()[1]}/0"
        self.accepted = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            time.sleep(self.delay)
            try:
                c, _ = self.lsock.accept()
            except OSError:
                return
            self.accepted += 1
            u = socket.create_connection(("127.0.0.1", self.port))
            for a, b in ((c, u), (u, c)):
                threading.Thread(target=self._relay, args=(a, b), daemon=True).start()

    @staticmethod
    def _relay(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        finally:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.lsock.close()


def test_first_connect_has_the_connect_deadline(server: subprocess.Popen[bytes]) -> None:
    proxy = DelayedAccept(server.port, 0.2)  # type: ignore[attr-defined]
    try:
        records: list[dict[str, object]] = []
        s = RedisStore.from_url(proxy.url)  # 50 ms, 500 ms until Redis first answers
        x = Executor(store=s, on_decision=records.append)
        t0 = time.monotonic()
        assert x.call("slow-accept", lambda: 1).ok
        took = time.monotonic() - t0
        assert 0.19 <= took < 0.5, took  # the first connect waited out the 200 ms accept
        assert [r for r in records if r["kind"] == "fallback"] == []
        assert proxy.accepted == 1  # one connection, held: later operations reuse it
        assert s.load("slow-accept-absent") is None
        # Answered: the held connection and the pool's new ones have the 50 ms deadline.
        assert s._free[0].connection.socket_timeout == 0.05
        assert s.client.connection_pool.connection_kwargs["socket_timeout"] == 0.05
        s.close()
        # Without the connect deadline (connect_timeout_ms no longer than timeout_ms) it fails at 50 ms.
        t = RedisStore.from_url(proxy.url, connect_timeout_ms=50)
        t0 = time.monotonic()
        with pytest.raises(redis.TimeoutError):
            t.load("k")
        assert time.monotonic() - t0 < 0.19
        t.close()
    finally:
        proxy.close()


def test_async_store_gets_an_asyncio_retry(server: subprocess.Popen[bytes]) -> None:
    """AsyncRedisStore.from_url gives its redis.asyncio client redis.asyncio's Retry (no
    retries, no backoff), not redis.retry's: redis-py warns of a synchronous one
    ("A synchronous redis.retry.Retry was passed to an asyncio client ...") and
    converts it, and an older redis-py awaits its non-coroutine call_with_retry."""
    from redis.asyncio.retry import Retry as AsyncRetry
    from redis.backoff import NoBackoff

    async def main() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # any warning (the synchronous Retry's) fails the test
            store = AsyncRedisStore.from_url(url(server), timeout_ms=1000)
            assert await store.compare_and_swap("async-retry", None, b"a") in ((True, None), (False, b"a"))
            assert await store.load("async-retry") == b"a"
        for retry in (store.client.get_retry(), store._free[0].connection.retry):
            assert type(retry) is AsyncRetry
            assert retry._retries == 0 and isinstance(retry._backoff, NoBackoff)
        await store.aclose()

    asyncio.run(main())


def test_first_connect_has_the_connect_deadline_async(server: subprocess.Popen[bytes]) -> None:
    proxy = DelayedAccept(server.port, 0.2)  # type: ignore[attr-defined]

    async def main() -> None:
        s = AsyncRedisStore.from_url(proxy.url)
        t0 = time.monotonic()
        assert await s.compare_and_swap("slow-accept-async", None, b"a") in ((True, None), (False, b"a"))
        took = time.monotonic() - t0
        assert 0.19 <= took < 0.5, took
        assert s._free[0].connection.socket_timeout == 0.05
        await s.aclose()
        t = AsyncRedisStore.from_url(proxy.url, connect_timeout_ms=50)
        t0 = time.monotonic()
        with pytest.raises(redis.TimeoutError):
            await t.load("k")
        assert time.monotonic() - t0 < 0.19
        await t.aclose()

    try:
        asyncio.run(main())
    finally:
        proxy.close()


def test_paused_server_costs_the_store_deadline_per_window(server: subprocess.Popen[bytes]) -> None:
    """After the first answer a paused server costs timeout_ms per back-off window, not the
    500 ms connect deadline, on the held connection and on the one that replaces it."""
    for store in (RedisStore.from_url(url(server)), RedisStore.from_url(url(server), connect_timeout_ms=2000)):
        seen: list[dict[str, object]] = []
        x = Executor(store=store, store_backoff=0.2, on_decision=seen.append)
        warm_until_answered(x, "paused-window", seen, 0.2)
        server.send_signal(signal.SIGSTOP)
        try:
            costs = []
            for _ in range(3):
                t0 = time.monotonic()
                assert x.call("paused-window", lambda: 1).ok
                costs.append(time.monotonic() - t0)
                time.sleep(0.25)  # past the back-off window: the store is asked again
        finally:
            server.send_signal(signal.SIGCONT)
        assert all(0.045 <= c < 0.3 for c in costs), costs
        store.close()


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


class EveryFifthFails:
    """The bench's tool: every fifth attempt raises a retryable TimeoutError."""

    def __init__(self) -> None:
        self.attempts = 0

    def __call__(self) -> str:
        self.attempts += 1
        if self.attempts % 5 == 0:
            raise TimeoutError("upstream timed out")
        return "ok"


def sent(admin: "redis.Redis[bytes]") -> dict[str, int]:
    """The commands clients sent the server, by name, from INFO commandstats:
    cas.lua's own GET and SET (one GET per EVALSHA, a SET per swap) are
    counted there too, so they are taken out; INFO itself is left out."""
    calls = {k[len("cmdstat_"):]: int(v["calls"]) for k, v in admin.info("commandstats").items()}
    calls["get"] = calls.get("get", 0) - calls.get("evalsha", 0)
    calls.pop("set", None)  # only the script sets
    calls.pop("info", None)
    return calls


def delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}


def test_round_trips_per_call(server: subprocess.Popen[bytes]) -> None:
    # 100 calls, 24 of them retried once (attempts 5, 10, ..., 120): a successful
    # call is two GETs (the loads made ahead of its start and its success), a
    # retried one four GETs and two EVALSHAs (the failure counted, then
    # reset). Nothing else: no PING, no SCRIPT LOAD, no reconnection
    # handshake (HELLO, CLIENT SETINFO) after the first call.
    admin = redis.Redis(port=server.port)  # type: ignore[attr-defined]
    store = RedisStore.from_url(url(server), timeout_ms=1000)
    x = Executor(store=store, sleep=lambda s: None, retry={"max_attempts": 3})
    tool = EveryFifthFails()
    assert x.call("counted", tool).ok  # the script loaded, the connection taken
    tool.attempts = 0
    connections = admin.info("stats")["total_connections_received"]
    before = sent(admin)
    for _ in range(100):
        assert x.call("counted", tool).ok
    assert tool.attempts == 124
    assert delta(before, sent(admin)) == {"get": 76 * 2 + 24 * 4, "evalsha": 24 * 2}
    assert admin.info("stats")["total_connections_received"] == connections  # the one held since the first call
    store.close()
    admin.close()


def test_round_trips_per_call_async(server: subprocess.Popen[bytes]) -> None:
    admin = redis.Redis(port=server.port)  # type: ignore[attr-defined]

    async def main() -> dict[str, int]:
        store = AsyncRedisStore.from_url(url(server), timeout_ms=1000)

        async def nap(_s: float) -> None:
            pass

        x = AsyncExecutor(store=store, sleep=nap, retry={"max_attempts": 3})
        tool = EveryFifthFails()

        async def call() -> str:
            return tool()

        assert (await x.call("counted-async", call)).ok
        tool.attempts = 0
        before = sent(admin)
        for _ in range(100):
            assert (await x.call("counted-async", call)).ok
        assert tool.attempts == 124
        d = delta(before, sent(admin))
        await store.aclose()
        return d

    assert asyncio.run(main()) == {"get": 76 * 2 + 24 * 4, "evalsha": 24 * 2}
    admin.close()


def test_threads_sharing_a_store_lose_no_update(server: subprocess.Popen[bytes]) -> None:
    # 8 threads increment one counter by load and compare-and-swap, and each
    # reads its own key in between: no swap is lost and no thread reads
    # another's reply, each command on a held connection of its own.
    store = RedisStore.from_url(url(server), timeout_ms=2000)
    store.client.delete("threads:n")
    errors: list[str] = []

    def work(i: int) -> None:
        own = f"threads:own:{i}".encode()
        store.client.set(f"threads:own:{i}", own)
        for _ in range(100):
            while True:
                cur = store.load("threads:n")
                swapped, _ = store.compare_and_swap("threads:n", cur, str(int(cur or b"0") + 1).encode())
                if swapped:
                    break
            got = store.load(f"threads:own:{i}")
            if got != own:
                errors.append(f"thread {i} read {got!r}")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []
    assert store.load("threads:n") == b"800"
    held = store.client.connection_pool._created_connections
    assert 1 < held <= 8  # one per thread sending at once, at most
    store.close()
    assert store.load("threads:n") == b"800"
    assert store.client.connection_pool._created_connections == held  # given back to the pool, and taken again
    store.close()


def test_a_command_cut_short_leaves_no_reply_behind(server: subprocess.Popen[bytes]) -> None:
    # The GET that timed out on the held connection gets its reply when the
    # server resumes; redis-py disconnected on the timeout, so the next
    # command reads its own reply on a new connection, never that one.
    s = RedisStore.from_url(url(server), timeout_ms=30)
    s.client.set("cut:a", b"a")
    s.client.set("cut:b", b"b")
    assert s.load("cut:a") == b"a"
    server.send_signal(signal.SIGSTOP)
    try:
        with pytest.raises(redis.TimeoutError):
            s.load("cut:a")
    finally:
        server.send_signal(signal.SIGCONT)
    time.sleep(0.05)
    assert s.load("cut:b") == b"b"
    assert s.compare_and_swap("cut:b", b"b", b"c") == (True, None)
    s.close()

    async def cancelled() -> None:  # the same for a task cancelled while it waits for its reply
        a = AsyncRedisStore.from_url(url(server), timeout_ms=5000)
        assert await a.load("cut:a") == b"a"
        server.send_signal(signal.SIGSTOP)
        try:
            task = asyncio.ensure_future(a.load("cut:a"))
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        finally:
            server.send_signal(signal.SIGCONT)
        await asyncio.sleep(0.05)
        assert await a.load("cut:b") == b"c"
        await a.aclose()

    asyncio.run(cancelled())


def test_your_client_keeps_working(server: subprocess.Popen[bytes]) -> None:
    # A client of yours, used through its own execute_command: its pool's
    # options apply, its response callbacks too (one set after the store's
    # first command applies; it is given the stored bytes, read undecoded
    # whatever decode_responses says), and it stays open and yours after
    # store.close(); the store goes on using it.
    c = redis.Redis(port=server.port, decode_responses=True, socket_timeout=1)  # type: ignore[attr-defined]
    s = RedisStore(c)
    c.delete("yours")
    assert s.compare_and_swap("yours", None, b"a") == (True, None)
    assert s.load("yours") == b"a"
    assert s.compare_and_swap("yours", None, b"b") == (False, b"a")
    seen: list[object] = []
    c.set_response_callback("GET", lambda r, **kw: seen.append(r) or r)
    assert s.load("yours") == b"a" and seen == [b"a"]
    s.close()
    assert c.get("yours") == "a"  # open, and yours
    assert s.load("yours") == b"a"
    s.close()
    c.close()


def test_a_forked_child_takes_its_own_connection(server: subprocess.Popen[bytes]) -> None:
    # After fork the held socket is the parent's too: the child takes a
    # connection of its own, so parent and child each read their own replies.
    if not hasattr(os, "fork"):
        pytest.skip("no os.fork on this platform")
    s = RedisStore.from_url(url(server), timeout_ms=2000)
    s.client.set("fork:parent", b"p")
    s.client.set("fork:child", b"c")
    assert s.load("fork:parent") == b"p"
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: exit code 0 when every reply was its own
        ok = all(s.load("fork:child") == b"c" for _ in range(200))
        os.write(w, b"1" if ok else b"0")
        os._exit(0)
    os.close(w)
    parent_ok = all(s.load("fork:parent") == b"p" for _ in range(200))
    child_ok = os.read(r, 1) == b"1"
    os.close(r)
    os.waitpid(pid, 0)
    assert parent_ok and child_ok
    s.close()


def test_a_server_that_lost_the_script_gets_it_again(server: subprocess.Popen[bytes]) -> None:
    # SCRIPT FLUSH (as a restarted server): the next compare-and-swap gets
    # NOSCRIPT, loads the script once and swaps, on the held connection.
    admin = redis.Redis(port=server.port)  # type: ignore[attr-defined]
    s = RedisStore.from_url(url(server), timeout_ms=1000)
    s.client.delete("flushed")
    assert s.compare_and_swap("flushed", None, b"a") == (True, None)
    admin.script_flush()
    before = admin.info("commandstats")
    assert s.compare_and_swap("flushed", b"a", b"b") == (True, None)
    after = admin.info("commandstats")
    assert {k: after[k]["calls"] - before.get(k, {"calls": 0})["calls"] for k in after if k != "cmdstat_info"
            and after[k]["calls"] != before.get(k, {"calls": 0})["calls"]} == \
        {"cmdstat_evalsha": 2, "cmdstat_script|load": 1, "cmdstat_get": 1, "cmdstat_set": 1}  # the script's own

    async def main() -> None:
        a = AsyncRedisStore.from_url(url(server), timeout_ms=1000)
        assert await a.compare_and_swap("flushed", b"b", b"c") == (True, None)
        admin.script_flush()
        assert await a.compare_and_swap("flushed", b"c", b"d") == (True, None)
        assert await a.load("flushed") == b"d"
        await a.aclose()

    asyncio.run(main())
    yours = RedisStore(redis.Redis(port=server.port))  # type: ignore[attr-defined]
    admin.script_flush()
    assert yours.compare_and_swap("flushed", b"d", b"e") == (True, None)  # through your client: loaded again too
    yours.client.close()
    s.close()
    admin.close()


def test_a_pool_at_max_connections_still_serves_your_client(server: subprocess.Popen[bytes]) -> None:
    # A client of yours whose pool is bounded (max_connections; redis-py 8's
    # default is 100): the store holds none of its connections between
    # commands, so your client's own commands still get one when the store
    # has sent some (before: the store kept the connection it took, and your
    # client got MaxConnectionsError, or waited out a BlockingConnectionPool's
    # timeout).
    port = server.port  # type: ignore[attr-defined]
    for pool in (redis.ConnectionPool(port=port, max_connections=1, socket_timeout=1),
                 redis.BlockingConnectionPool(port=port, max_connections=1, timeout=0.2, socket_timeout=1)):
        c = redis.Redis(connection_pool=pool)
        c.delete("bounded")
        s = RedisStore(c)
        assert s.compare_and_swap("bounded", None, b"a") == (True, None)
        assert s.load("bounded") == b"a"
        assert c.get("bounded") == b"a"
        assert c.set("bounded", b"b") and s.load("bounded") == b"b"
        s.close()
        c.close()

    async def main() -> None:
        c = redis.asyncio.Redis(connection_pool=redis.asyncio.ConnectionPool(port=port, max_connections=1))
        s = AsyncRedisStore(c)
        await c.delete("bounded")
        assert await s.compare_and_swap("bounded", None, b"a") == (True, None)
        assert await s.load("bounded") == b"a"
        assert await c.get("bounded") == b"a"
        await s.aclose()
        await c.aclose()

    asyncio.run(main())


def test_bytes_that_are_not_utf8_are_read_and_repaired_with_decode_responses(server: subprocess.Popen[bytes]) -> None:
    # A client with decode_responses (from_url's, RESP2 and RESP3, or yours):
    # the store reads the stored bytes as bytes, never through the client's
    # decoding, so a key holding bytes that are not UTF-8 is read (and the
    # breaker repaired), as Go's and Node's stores read it, instead of
    # failing every load with UnicodeDecodeError (the breaker then never
    # shared again by this replica).
    fresh = b'{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}'
    port = server.port  # type: ignore[attr-defined]
    admin = redis.Redis(port=port)
    stores = [RedisStore.from_url(url(server), timeout_ms=1000, decode_responses=True),
              RedisStore.from_url(url(server), timeout_ms=1000, decode_responses=True, protocol=3),
              RedisStore(redis.Redis(port=port, decode_responses=True, socket_timeout=1))]
    for s in stores:
        admin.set("toolerr:breaker:latin", b"\xff\xfe")
        assert s.load("toolerr:breaker:latin") == b"\xff\xfe"
        assert s.compare_and_swap("toolerr:breaker:latin", None, b"x") == (False, b"\xff\xfe")
        records: list[dict[str, object]] = []
        assert Executor(store=s, on_decision=records.append).call("latin", lambda: 1).ok
        assert [r["kind"] for r in records][0] == "repair"
        assert admin.get("toolerr:breaker:latin") == fresh
        s.close()

    async def main() -> None:
        for a in (AsyncRedisStore.from_url(url(server), timeout_ms=1000, decode_responses=True),
                  AsyncRedisStore(redis.asyncio.Redis(port=port, decode_responses=True))):
            admin.set("toolerr:breaker:latin", b"\xff\xfe")
            assert await a.load("toolerr:breaker:latin") == b"\xff\xfe"
            assert await a.compare_and_swap("toolerr:breaker:latin", None, b"x") == (False, b"\xff\xfe")
            assert (await AsyncExecutor(store=a).call("latin", _ok)).ok
            assert admin.get("toolerr:breaker:latin") == fresh
            await a.aclose()
            if not a._owned:
                await a.client.aclose()

    asyncio.run(main())
    admin.close()


async def _ok() -> int:
    return 1


def test_a_key_of_another_redis_type_is_repaired(server: subprocess.Popen[bytes]) -> None:
    # A list, hash or set at a breaker's key: GET answers WRONGTYPE. The
    # store reads it as WRONG_TYPE_STATE, the text cas.lua compares it as,
    # so the executor repairs the key (a fresh state over it) as it repairs
    # bytes that are not a state, as Go's, Node's and Rust's stores do.
    # Before, every load and compare-and-swap on the key raised: a
    # store_error each back-off window, forever, and the window left the
    # store alone for every other tool too.
    fresh = b'{"failures":0,"open_until_ms":0,"phase":"closed","probe_until_ms":0,"successes":0}'
    port = server.port  # type: ignore[attr-defined]
    admin = redis.Redis(port=port)
    assert f"'{WRONG_TYPE_STATE}'" in CAS_SCRIPT
    puts = [lambda k: admin.rpush(k, "a"), lambda k: admin.hset(k, "phase", "closed"), lambda k: admin.sadd(k, "a")]
    for s in (RedisStore.from_url(url(server), timeout_ms=1000), RedisStore(redis.Redis(port=port, socket_timeout=1))):
        for put in puts:
            admin.delete("toolerr:breaker:typed", "toolerr:breaker:other")
            put("toolerr:breaker:typed")
            assert s.load("toolerr:breaker:typed") == WRONG_TYPE_STATE.encode()
            assert s.compare_and_swap("toolerr:breaker:typed", b"x", b"y") == (False, WRONG_TYPE_STATE.encode())
            records: list[dict[str, object]] = []
            x = Executor(store=s, on_decision=records.append, retry={"max_attempts": 1})
            assert x.call("typed", lambda: 1).ok
            assert admin.get("toolerr:breaker:typed") == fresh
            assert x.call("other", failing).error is not None  # the store is not in a back-off window
            assert [r["kind"] for r in records if r["kind"] in ("repair", "fallback")] == ["repair"]
            assert admin.get("toolerr:breaker:other") == fresh.replace(b'"failures":0', b'"failures":1')
        s.close()

    async def main() -> None:
        for a in (AsyncRedisStore.from_url(url(server), timeout_ms=1000), AsyncRedisStore(redis.asyncio.Redis(port=port))):
            admin.delete("toolerr:breaker:typed")
            admin.rpush("toolerr:breaker:typed", "a")
            assert await a.load("toolerr:breaker:typed") == WRONG_TYPE_STATE.encode()
            records: list[dict[str, object]] = []
            assert (await AsyncExecutor(store=a, on_decision=records.append).call("typed", _ok)).ok
            assert [r["kind"] for r in records if r["kind"] in ("repair", "fallback")] == ["repair"]
            assert admin.get("toolerr:breaker:typed") == fresh
            await a.aclose()
            if not a._owned:
                await a.client.aclose()

    asyncio.run(main())
    admin.close()
