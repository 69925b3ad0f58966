"""The toolerr runtime (toolerr.runtime.Executor, toolerr.redis_store.RedisStore)
beside the Python peers on the same work: pybreaker 1.x (in memory, and with its
CircuitRedisStorage) and tenacity.

The work: one tool call whose every fifth attempt raises a retryable
TimeoutError (20% of attempts fail), retried up to 3 attempts; the breaker
(3 consecutive failures) stays closed, as it does most of the time. Every
library runs with sleeping switched off (its own sleep hook made a no-op), so
what is measured is deciding, not waiting. Each contender must end every call
with the tool's value after the same number of attempts, or the bench stops.

  * decision overhead, in process: CPU time per call (the process's, every
    thread, the core's Go runtime included: a machine shared with other work
    disturbs it far less than wall time) minus that of a plain try/except
    retry loop doing the same calls; toolerr's Executor (retry and
    breaker) beside tenacity (retry only), pybreaker (breaker only, under the
    plain loop) and tenacity around pybreaker (retry and breaker, what toolerr
    does);
  * the same overhead under asyncio: toolerr's AsyncExecutor beside
    tenacity's AsyncRetrying, each awaited call above a plain async
    try/except loop (one event loop per contender and round, its CPU time
    taken inside the loop's coroutine);
  * Redis-backed throughput (calls per wall-clock second, one replica, the redis-server at
    TOOLERR_BENCH_REDIS=host:port that scripts/bench-runtime.sh started):
    toolerr's RedisStore beside pybreaker's CircuitRedisStorage (under the
    plain loop, and under tenacity), and one redis-py GET per call as the
    floor of any shared breaker; the round trips each toolerr call sends
    (INFO commandstats); and BENCH_THREADS (default 4) threads sharing one
    RedisStore (each its own tool) beside as many pybreaker storages sharing
    one redis-py client.

Rounds are interleaved (every contender once per round, the order rotating)
and each ratio is the median of the per-round ratios, so a machine whose load
changes during the run moves both sides of a ratio alike. BENCH_ROUNDS
(default 7) and BENCH_RUNTIME_CALLS (default 2000) set the size.
TOOLERR_BENCH_BEFORE=dir names another copy of the package (an earlier
revision's toolerr/, over the same libtoolerr.so): it runs as one more
contender ("toolerr before"), so a change is measured before and after in the
same rounds. Run by scripts/bench-runtime.sh.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import logging
import os
import statistics
import sys
import threading
import time
from importlib.metadata import version
from typing import Awaitable, Callable, Dict, List, Tuple

import pybreaker
import redis
import tenacity

import toolerr
from toolerr.redis_store import RedisStore
from toolerr.runtime import AsyncExecutor, Executor

def load_before(path: str) -> Tuple[object, object]:
    """The runtime and redis_store modules of the package at path, imported as
    toolerr_before over the library this process already loaded."""
    os.environ["TOOLERR_LIB"] = toolerr.library_path()  # one Go runtime per process: the same file
    spec = importlib.util.spec_from_file_location("toolerr_before", os.path.join(path, "__init__.py"),
                                                  submodule_search_locations=[path])
    if spec is None or spec.loader is None:
        raise ImportError(f"no package at {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["toolerr_before"] = mod
    spec.loader.exec_module(mod)
    return importlib.import_module("toolerr_before.runtime"), importlib.import_module("toolerr_before.redis_store")


BEFORE = load_before(os.environ["TOOLERR_BENCH_BEFORE"]) if os.environ.get("TOOLERR_BENCH_BEFORE") else None

FAIL_EVERY = 5
MAX_ATTEMPTS = 3


def no_sleep(_seconds: float) -> None:
    """Every library's sleep hook: the retry delay is decided, never waited."""


class Tool:
    """The tool: every fail_every-th attempt raises TimeoutError (0: none), the rest return "ok"."""

    def __init__(self, fail_every: int = FAIL_EVERY) -> None:
        self.attempts, self.fail_every = 0, fail_every

    def __call__(self) -> str:
        self.attempts += 1
        if self.fail_every and self.attempts % self.fail_every == 0:
            raise TimeoutError("upstream timed out")
        return "ok"


def plain_retry(call: Callable[[], str]) -> str:
    """The plain loop: up to MAX_ATTEMPTS tries of call on TimeoutError."""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            return call()
        except TimeoutError:
            if attempt == MAX_ATTEMPTS:
                raise
    raise AssertionError("unreachable")


def tenacity_retrying() -> tenacity.Retrying:
    # Full jitter (wait_random_exponential), as toolerr's retry decides it.
    return tenacity.Retrying(stop=tenacity.stop_after_attempt(MAX_ATTEMPTS),
                             wait=tenacity.wait_random_exponential(multiplier=0.5, max=8),
                             retry=tenacity.retry_if_exception_type(TimeoutError), sleep=no_sleep, reraise=True)


POLICY = {"max_attempts": MAX_ATTEMPTS, "base_ms": 500, "cap_ms": 8000}
SETTINGS = {"failure_threshold": 3, "open_ms": 30000, "success_threshold": 2}


def toolerr_executor(executor: type = Executor, **store: object) -> Executor:
    return executor(sleep=no_sleep, retry=POLICY, breaker=SETTINGS, **store)  # type: ignore[no-any-return]


def step_requests() -> List[bytes]:
    """The step op's requests for one successful call on a closed breaker, as the
    Executor sends them when it holds no start answer that stood (each with its
    load made ahead, on_success and standing asked): the start step, and the
    success step only when the core did not decide it ahead. What the core is
    asked per such call, whatever the binding does around it; once a start
    stood, a successful call sends none of them."""
    base = {"policy": POLICY, "settings": SETTINGS, "op": "step", "tool": "search", "on_success": True,
            "standing": True}
    state, out, r = None, [], {}
    ahead = {"kind": "loaded", "value": None}
    for event in ({"kind": "start", "loaded": ahead}, {"kind": "success", "loaded": ahead}):
        req = json.dumps(dict(base, state=state, event=event, now_ms=time.time_ns() // 1_000_000,
                              replica={"down_until_ms": 0, "state": None}), separators=(",", ":")).encode()
        r = json.loads(toolerr.invoke_bytes(req))["ok"]
        out.append(req)
        if "on_success" in r:
            r = r["on_success"]
            break
        state = r["state"]
    if r["action"]["kind"] != "stop":
        raise AssertionError(f"the step requests do not end the call: {r['action']}")
    return out


STEPS = step_requests()


def core_floor(reqs: List[bytes]) -> Runner:
    """n times the step requests of one call through toolerr.invoke_bytes (ctypes and the core)."""

    def run(n: int) -> float:
        t0 = time.process_time()
        for _ in range(n):
            for req in reqs:
                toolerr.invoke_bytes(req)
        return time.process_time() - t0

    return run


Runner = Callable[[int], float]
cpu = time.process_time  # CPU time of the process, every thread (the Go runtime's too)


def runner(make: Callable[[Tool], Callable[[], str]], clock: Callable[[], float],
           fail_every: int = FAIL_EVERY) -> Runner:
    """A contender: make(tool) returns one protected call; the runner times n of them
    on clock and checks that each returned the tool's value after the same attempts
    as the plain loop (the tool failing every fail_every-th attempt, 0: never)."""

    def run(n: int) -> float:
        tool = Tool(fail_every)
        call = make(tool)
        t0 = clock()
        for _ in range(n):
            if call() != "ok":
                raise AssertionError("a call did not return the tool's value")
        elapsed = clock() - t0
        want = n + (n // (fail_every - 1) if fail_every else 0)  # every 4th success is preceded by one failure
        if abs(tool.attempts - want) > 1:
            raise AssertionError(f"{tool.attempts} attempts for {n} calls, want {want}")
        return elapsed

    return run


def toolerr_call(ex: Executor) -> Callable[[Tool], Callable[[], str]]:
    def make(tool: Tool) -> Callable[[], str]:
        def call() -> str:
            r = ex.call("search", tool)
            if not r.ok:
                raise AssertionError(f"toolerr: {r.error}")
            return r.value  # type: ignore[return-value]
        return call
    return make


def rounds(contenders: Dict[str, Runner], n: int, count: int) -> List[Dict[str, float]]:
    """count rounds of every contender once, in an order that rotates each round."""
    names = list(contenders)
    for name in names:  # warm-up
        contenders[name](max(1, n // 10))
    out = []
    for i in range(count):
        order = names[i % len(names):] + names[:i % len(names)]
        out.append({name: contenders[name](n) for name in order})
    return out


def median_ratio(rs: List[Dict[str, float]], f: Callable[[Dict[str, float]], float]) -> float:
    return statistics.median(f(r) for r in rs)


def in_process(n: int, count: int, fail_every: int = FAIL_EVERY) -> List[Tuple[str, float, float]]:
    """The decision overhead on the work (fail_every FAIL_EVERY), or on
    successful calls alone (fail_every 0: what a closed breaker's call costs
    when nothing fails), each contender beside the plain loop."""
    ex = toolerr_executor()
    breaker = pybreaker.CircuitBreaker(fail_max=3, reset_timeout=30)
    both = pybreaker.CircuitBreaker(fail_max=3, reset_timeout=30)
    retrying, retrying_both = tenacity_retrying(), tenacity_retrying()
    f = fail_every
    contenders: Dict[str, Runner] = {
        "plain": runner(lambda tool: lambda: plain_retry(tool), cpu, f),
        "toolerr": runner(toolerr_call(ex), cpu, f),
        "tenacity": runner(lambda tool: lambda: retrying(tool), cpu, f),
        "pybreaker": runner(lambda tool: lambda: plain_retry(lambda: breaker.call(tool)), cpu, f),
        "tenacity+pybreaker": runner(lambda tool: lambda: retrying_both(both.call, tool), cpu, f),
        "core": core_floor(STEPS),
    }
    if BEFORE is not None:
        contenders["before"] = runner(toolerr_call(toolerr_executor(BEFORE[0].Executor)), cpu, f)  # type: ignore[attr-defined]
    rs = rounds(contenders, n, count)
    over = lambda r, k: (r[k] - r["plain"]) / n * 1e6  # noqa: E731  µs per call above the plain loop
    lines = []
    for peer in ("tenacity", "pybreaker", "tenacity+pybreaker"):
        lines.append((peer, statistics.median(over(r, peer) for r in rs),
                      median_ratio(rs, lambda r, p=peer: over(r, p) / over(r, "toolerr"))))
    lines.insert(0, ("toolerr", statistics.median(over(r, "toolerr") for r in rs), 1.0))
    plain = statistics.median(r["plain"] / n * 1e6 for r in rs)
    work = "" if fail_every else ", successful calls alone"
    print(f"== python {sys.version.split()[0]}, in process{work}: decision overhead per call "
          f"(µs above the plain loop, {plain:.2f} µs/call; median of {count} rounds of {n} calls)")
    for name, us, ratio in lines:
        print(f"  {name:<44} {us:9.2f} µs/call" + ("" if name == "toolerr" else f"   toolerr {ratio:6.2f}x its speed"))
    if BEFORE is not None:
        print(f"  {'toolerr before (TOOLERR_BENCH_BEFORE)':<44} {statistics.median(over(r, 'before') for r in rs):9.2f} µs/call"
              f"   toolerr {median_ratio(rs, lambda r: over(r, 'before') / over(r, 'toolerr')):6.2f}x its speed")
    core = statistics.median(r["core"] / n * 1e6 for r in rs)
    share = median_ratio(rs, lambda r: r["core"] / (r["toolerr"] - r["plain"]))
    print(f"  the core: the step crossings of a successful call whose start is not kept ({len(STEPS)}) through "
          f"invoke_bytes {core:.2f} µs/call ({share:.0%} of toolerr's overhead; none once a start stood)")
    return lines

async def no_sleep_async(_seconds: float) -> None:
    """The async libraries' sleep hook: the retry delay is decided, never waited."""


class AsyncTool(Tool):
    """Tool as a coroutine function: each await makes one attempt of Tool's."""

    async def attempt(self) -> str:
        return Tool.__call__(self)


async def plain_retry_async(call: Callable[[], Awaitable[str]]) -> str:
    """plain_retry, awaiting call."""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        try:
            return await call()
        except TimeoutError:
            if attempt == MAX_ATTEMPTS:
                raise
    raise AssertionError("unreachable")


def async_runner(make: Callable[[AsyncTool], Callable[[], Awaitable[str]]]) -> Runner:
    """runner for a coroutine: n awaited calls in one event loop, their CPU
    time (the process's) measured inside it, checked as runner checks them."""

    def run(n: int) -> float:
        tool = AsyncTool()
        call = make(tool)

        async def calls() -> float:
            t0 = cpu()
            for _ in range(n):
                if await call() != "ok":
                    raise AssertionError("a call did not return the tool's value")
            return cpu() - t0

        elapsed = asyncio.run(calls())
        want = n + n // (FAIL_EVERY - 1)
        if abs(tool.attempts - want) > 1:
            raise AssertionError(f"{tool.attempts} attempts for {n} calls, want {want}")
        return elapsed

    return run


def toolerr_async_call(ex: AsyncExecutor) -> Callable[[AsyncTool], Callable[[], Awaitable[str]]]:
    def make(tool: AsyncTool) -> Callable[[], Awaitable[str]]:
        async def call() -> str:
            r = await ex.call("search", tool.attempt)
            if not r.ok:
                raise AssertionError(f"toolerr: {r.error}")
            return r.value  # type: ignore[return-value]
        return call
    return make


def in_process_async(n: int, count: int) -> List[Tuple[str, float, float]]:
    """The decision overhead on the work under asyncio: AsyncExecutor beside
    tenacity's AsyncRetrying (full jitter, as tenacity_retrying), each above
    the plain async loop."""
    retrying = tenacity.AsyncRetrying(stop=tenacity.stop_after_attempt(MAX_ATTEMPTS),
                                      wait=tenacity.wait_random_exponential(multiplier=0.5, max=8),
                                      retry=tenacity.retry_if_exception_type(TimeoutError), sleep=no_sleep_async,
                                      reraise=True)
    options = {"retry": POLICY, "breaker": SETTINGS, "sleep": no_sleep_async}
    contenders: Dict[str, Runner] = {
        "plain": async_runner(lambda tool: lambda: plain_retry_async(tool.attempt)),
        "toolerr": async_runner(toolerr_async_call(AsyncExecutor(**options))),  # type: ignore[arg-type]
        "tenacity": async_runner(lambda tool: lambda: retrying(tool.attempt)),
    }
    if BEFORE is not None:
        contenders["before"] = async_runner(toolerr_async_call(BEFORE[0].AsyncExecutor(**options)))  # type: ignore[attr-defined]
    rs = rounds(contenders, n, count)
    over = lambda r, k: (r[k] - r["plain"]) / n * 1e6  # noqa: E731  µs per call above the plain loop
    lines = [("toolerr", statistics.median(over(r, "toolerr") for r in rs), 1.0),
             ("tenacity", statistics.median(over(r, "tenacity") for r in rs),
              median_ratio(rs, lambda r: over(r, "tenacity") / over(r, "toolerr")))]
    plain = statistics.median(r["plain"] / n * 1e6 for r in rs)
    print(f"== python {sys.version.split()[0]}, asyncio, in process: decision overhead per call "
          f"(µs above the plain async loop, {plain:.2f} µs/call; median of {count} rounds of {n} calls)")
    label = {"toolerr": "toolerr AsyncExecutor", "tenacity": "tenacity AsyncRetrying"}
    for name, us, ratio in lines:
        print(f"  {label[name]:<44} {us:9.2f} µs/call" + ("" if name == "toolerr" else f"   toolerr {ratio:6.2f}x its speed"))
    if BEFORE is not None:
        print(f"  {'toolerr before (TOOLERR_BENCH_BEFORE)':<44} {statistics.median(over(r, 'before') for r in rs):9.2f} µs/call"
              f"   toolerr {median_ratio(rs, lambda r: over(r, 'before') / over(r, 'toolerr')):6.2f}x its speed")
    return [(f"{name} (asyncio)", us, ratio) for name, us, ratio in lines]


def through_redis(addr: str, n: int, count: int) -> List[Tuple[str, float, float]]:
    host, port = addr.rsplit(":", 1)
    url = f"redis://{host}:{port}/0"
    store = RedisStore.from_url(url, timeout_ms=1000)
    store.client.flushdb()
    ex = toolerr_executor(store=store)
    raw = redis.Redis(host=host, port=int(port))
    p1 = pybreaker.CircuitBreaker(fail_max=3, reset_timeout=30, state_storage=pybreaker.CircuitRedisStorage(
        pybreaker.STATE_CLOSED, redis.Redis(host=host, port=int(port)), namespace="bench-plain"))
    p2 = pybreaker.CircuitBreaker(fail_max=3, reset_timeout=30, state_storage=pybreaker.CircuitRedisStorage(
        pybreaker.STATE_CLOSED, redis.Redis(host=host, port=int(port)), namespace="bench-tenacity"))
    retrying = tenacity_retrying()

    def one_get(tool: Tool) -> Callable[[], str]:
        def call() -> str:
            raw.get("toolerr:breaker:search")
            return plain_retry(tool)
        return call

    contenders: Dict[str, Runner] = {
        "toolerr": runner(toolerr_call(ex), time.perf_counter),
        "pybreaker": runner(lambda tool: lambda: plain_retry(lambda: p1.call(tool)), time.perf_counter),
        "tenacity+pybreaker": runner(lambda tool: lambda: retrying(p2.call, tool), time.perf_counter),
        "floor": runner(one_get, time.perf_counter),
    }
    before_store = None
    if BEFORE is not None:
        before_store = BEFORE[1].RedisStore.from_url(url, timeout_ms=1000)  # type: ignore[attr-defined]
        contenders["before"] = runner(toolerr_call(toolerr_executor(BEFORE[0].Executor, store=before_store)),  # type: ignore[attr-defined]
                                      time.perf_counter)
    rs = rounds(contenders, n, count)
    rate = lambda r, k: n / r[k]  # noqa: E731
    lines = [("toolerr", statistics.median(rate(r, "toolerr") for r in rs), 1.0)]
    for peer in ("pybreaker", "tenacity+pybreaker", "floor") + (("before",) if BEFORE is not None else ()):
        lines.append((peer, statistics.median(rate(r, peer) for r in rs),
                      median_ratio(rs, lambda r, p=peer: rate(r, "toolerr") / rate(r, p))))
    print(f"== python, through Redis: calls per second, one replica (median of {count} rounds of {n} calls)")
    label = {"toolerr": "toolerr Executor + RedisStore", "pybreaker": "pybreaker + CircuitRedisStorage",
             "tenacity+pybreaker": "tenacity + pybreaker CircuitRedisStorage",
             "floor": "floor: one redis-py GET per call", "before": "toolerr before (TOOLERR_BENCH_BEFORE)"}
    for name, cps, ratio in lines:
        print(f"  {label[name]:<44} {cps:9.0f} calls/s" + ("" if name == "toolerr" else f"   toolerr {ratio:6.2f}x"))
    store.client.close()
    raw.close()
    if before_store is not None:
        before_store.client.close()
    return [line for line in lines if line[0] != "before"]


def shared_by_threads(addr: str, n: int, count: int, threads: int) -> List[Tuple[str, float, float]]:
    """Calls per wall-clock second of `threads` threads sharing one store (one
    redis-py client for pybreaker's storages), each calling its own tool (its
    own breaker key: no thread's failures open another's breaker), n calls in
    all per round."""
    host, port = addr.rsplit(":", 1)
    url = f"redis://{host}:{port}/0"
    per = max(1, n // threads)

    def together(makes: List[Callable[[Tool], Callable[[], str]]]) -> Runner:
        def run(_n: int) -> float:
            runs = [runner(make, time.perf_counter) for make in makes]
            ts = [threading.Thread(target=r, args=(per,)) for r in runs]
            t0 = time.perf_counter()
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            return time.perf_counter() - t0
        return run

    def toolerr_threads(executor: type, store: object) -> Runner:
        ex = toolerr_executor(executor, store=store)

        def make_for(tool_name: str) -> Callable[[Tool], Callable[[], str]]:
            def make(tool: Tool) -> Callable[[], str]:
                def call() -> str:
                    r = ex.call(tool_name, tool)
                    if not r.ok:
                        raise AssertionError(f"toolerr: {r.error}")
                    return r.value  # type: ignore[return-value]
                return call
            return make
        return together([make_for(f"search-{i}") for i in range(threads)])

    store = RedisStore.from_url(url, timeout_ms=1000)
    shared = redis.Redis(host=host, port=int(port))
    breakers = [pybreaker.CircuitBreaker(fail_max=3, reset_timeout=30, state_storage=pybreaker.CircuitRedisStorage(
        pybreaker.STATE_CLOSED, shared, namespace=f"bench-threads-{i}")) for i in range(threads)]
    contenders: Dict[str, Runner] = {
        "toolerr": toolerr_threads(Executor, store),
        "pybreaker": together([lambda tool, b=b: lambda: plain_retry(lambda: b.call(tool)) for b in breakers]),
    }
    before_store = None
    if BEFORE is not None:
        before_store = BEFORE[1].RedisStore.from_url(url, timeout_ms=1000)  # type: ignore[attr-defined]
        contenders["before"] = toolerr_threads(BEFORE[0].Executor, before_store)  # type: ignore[attr-defined]
    rs = rounds(contenders, n, count)
    total = per * threads
    rate = lambda r, k: total / r[k]  # noqa: E731
    lines = [("toolerr", statistics.median(rate(r, "toolerr") for r in rs), 1.0)]
    for peer in ("pybreaker",) + (("before",) if BEFORE is not None else ()):
        lines.append((peer, statistics.median(rate(r, peer) for r in rs),
                      median_ratio(rs, lambda r, p=peer: rate(r, "toolerr") / rate(r, p))))
    print(f"== python, through Redis, {threads} threads sharing one store: calls per second "
          f"(median of {count} rounds of {total} calls)")
    label = {"toolerr": "toolerr Executor + RedisStore", "pybreaker": "pybreaker + CircuitRedisStorage",
             "before": "toolerr before (TOOLERR_BENCH_BEFORE)"}
    for name, cps, ratio in lines:
        print(f"  {label[name]:<44} {cps:9.0f} calls/s" + ("" if name == "toolerr" else f"   toolerr {ratio:6.2f}x"))
    store.close()
    shared.close()
    if before_store is not None:
        before_store.client.close()
    return [(f"{name} ({threads} threads)", cps, ratio) for name, cps, ratio in lines
            if name not in ("toolerr", "before")]


def commands_per_call(addr: str, n: int) -> None:
    """Print the commands toolerr's RedisStore sends per call on this work
    (INFO commandstats before and after n calls of one executor; cas.lua's
    own GET and SET, counted there too, taken out: one GET per EVALSHA)."""
    host, port = addr.rsplit(":", 1)
    admin = redis.Redis(host=host, port=int(port))
    store = RedisStore.from_url(f"redis://{host}:{port}/0", timeout_ms=1000)
    ex = toolerr_executor(store=store)
    ex.call("counted", Tool())  # the script loaded, the connection held

    def sent() -> Dict[str, int]:
        calls = {k[len("cmdstat_"):]: int(v["calls"]) for k, v in admin.info("commandstats").items()}
        calls["get"] = calls.get("get", 0) - calls.get("evalsha", 0)
        for k in ("set", "info"):
            calls.pop(k, None)
        return calls

    before = sent()
    runner(toolerr_call(ex), time.perf_counter)(n)
    after = sent()
    delta = {k: after[k] - before.get(k, 0) for k in after if after[k] != before.get(k, 0)}
    print(f"  round trips per toolerr call: {sum(delta.values()) / n:.2f} ("
          + ", ".join(f"{k} {v / n:.2f}" for k, v in sorted(delta.items())) + f"; {n} calls)")
    store.close()
    admin.close()


def verdict(what: str, ratio: float) -> str:
    return f"{what}: toolerr {ratio:.2f}x the peer's, goal >= 1.00x {'met' if ratio >= 1.0 else 'missed'}"


def main() -> None:
    # The peers log nothing on this work, and neither does toolerr here: its
    # logger is set above its records' levels, so no record is made (as in a
    # process that configured no logging, where only the package's
    # NullHandler would receive them).
    logging.getLogger("toolerr").setLevel(logging.ERROR)
    n = int(os.environ.get("BENCH_RUNTIME_CALLS", "2000"))
    count = int(os.environ.get("BENCH_ROUNDS", "7"))
    print("python peers: " + ", ".join(f"{p} {version(p)}" for p in ("pybreaker", "tenacity", "redis")))
    lines = in_process(n, count)
    in_process(n, count, fail_every=0)
    lines += in_process_async(n, count)[1:]
    addr = os.environ.get("TOOLERR_BENCH_REDIS")
    rlines = through_redis(addr, max(1, n // 2), count) if addr else []
    if addr:
        commands_per_call(addr, max(1, n // 2))
        rlines += shared_by_threads(addr, max(1, n // 2), count, int(os.environ.get("BENCH_THREADS", "4")))
    if not addr:
        print("== python, through Redis: skipped (TOOLERR_BENCH_REDIS is not set)")
    print("== python goals (speed relative to each peer, medians of per-round ratios)")
    for name, _, ratio in lines[1:]:
        print("  " + verdict(f"decision overhead vs {name}", ratio))
    for name, _, ratio in rlines[1:]:
        if name != "floor":
            print("  " + verdict(f"Redis throughput vs {name}", ratio))


if __name__ == "__main__":
    main()
