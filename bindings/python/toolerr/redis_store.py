"""Breakers shared between replicas through Redis: the runtime's Store port over redis-py.

``RedisStore`` (for ``toolerr.runtime.Executor``, over ``redis.Redis``) and
``AsyncRedisStore`` (for ``AsyncExecutor``, over ``redis.asyncio.Redis``)
are what Go's ``redisstore`` is: ``load`` is a ``GET``, ``compare_and_swap``
one ``EVALSHA`` of the compare-and-swap script every language's Redis store
runs (``cas.lua``, shipped inside this package from ``redisstore/cas.lua``),
with the same keys and the core's canonical state bytes, so Go, Python, Node
and Rust replicas share one breaker per tool. The breaker logic stays in the
core; Redis only makes one change atomic.

Each operation ends within the store's deadline or raises: the client's
``socket_timeout`` (``from_url`` sets it to ``timeout_ms``, 50 ms by default,
and turns off the client's own retries, as the executor falls back and backs
off instead; see docs/resilience.md, "Redis sick or unreachable").

Needs the ``redis`` package: ``pip install 'toolerr[redis]'``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Optional, Tuple

__all__ = ["AsyncRedisStore", "CAS_SCRIPT", "DEFAULT_TIMEOUT_MS", "RedisStore"]

DEFAULT_TIMEOUT_MS = 50
"""The deadline of each store operation from_url sets, in ms (Go: redisstore.DefaultTimeout)."""


def _read_script() -> str:
    try:
        return resources.files(__package__).joinpath("cas.lua").read_text("utf-8")
    except FileNotFoundError:  # a source checkout: the one file, beside the Go store
        return (Path(__file__).resolve().parents[3] / "redisstore" / "cas.lua").read_text("utf-8")


CAS_SCRIPT: str = _read_script()
"""The compare-and-swap Lua script, byte for byte the one Go embeds (same SHA-1)."""


def _client_options(timeout_ms: int) -> dict[str, Any]:
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    t = timeout_ms / 1000
    return {"socket_timeout": t, "socket_connect_timeout": t, "retry": Retry(NoBackoff(), 0)}


def _swap_answer(res: Any) -> Tuple[bool, Optional[bytes]]:
    """Read the script's reply: [1] swapped, [0] absent, [0, current] other bytes.

    Any other shape (a server not running cas.lua) raises, naming the shape and
    never the bytes, so the executor falls back and backs off."""
    if isinstance(res, list) and res and type(res[0]) is int:
        if len(res) == 1 and res[0] in (0, 1):
            return res[0] == 1, None
        if len(res) == 2 and res[0] == 0 and isinstance(res[1], (bytes, str)):
            return False, _as_bytes(res[1])  # str: a client with decode_responses
    raise RuntimeError(f"toolerr: the compare-and-swap script gave an unexpected reply {_shape(res, True)}"
                       " (want [1], [0] or [0, bulk string])")


def _shape(v: Any, top: bool = False) -> str:
    """Name a redis-py reply's type, an array's by its elements'."""
    if isinstance(v, list):
        if not top or len(v) > 4:
            return f"array of {len(v)}"
        return "[" + ", ".join(_shape(e) for e in v) + "]"
    names = {int: "integer", bytes: "bulk string", str: "bulk string", type(None): "nil"}
    return names.get(type(v), type(v).__name__)


def _as_bytes(v: Any) -> Optional[bytes]:
    if v is None:
        return None
    return v.encode() if isinstance(v, str) else bytes(v)


def _args(old: Optional[bytes], new: bytes) -> list[Any]:
    return ["1" if old is None else "0", b"" if old is None else old, new]


class RedisStore:
    """The runtime's Store over a ``redis.Redis`` client (the caller owns it).

    Use ``RedisStore.from_url("redis://host:6379/0")`` for a client whose
    operations end within ``timeout_ms``; a client you build yourself bounds
    them by its own ``socket_timeout`` (redis-py's default is 5 s).
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self._cas = client.register_script(CAS_SCRIPT)

    @classmethod
    def from_url(cls, url: str, *, timeout_ms: int = DEFAULT_TIMEOUT_MS, **options: Any) -> "RedisStore":
        """Return a store over a new ``redis.Redis.from_url(url)`` whose every operation
        (connect included) ends within timeout_ms, with no client-side retries."""
        import redis

        return cls(redis.Redis.from_url(url, **{**_client_options(timeout_ms), **options}))

    def load(self, key: str) -> Optional[bytes]:
        """Return the bytes stored under key (GET), or None."""
        return _as_bytes(self.client.get(key))

    def compare_and_swap(self, key: str, old: Optional[bytes], new: bytes) -> Tuple[bool, Optional[bytes]]:
        """Store new under key only if it holds exactly old (None: nothing), atomically in Redis.

        Returns (swapped, current): when not swapped, the bytes stored now (None for none)."""
        return _swap_answer(self._cas(keys=[key], args=_args(old, new)))


class AsyncRedisStore:
    """The runtime's AsyncStore over a ``redis.asyncio.Redis`` client (the caller owns it).

    ``AsyncRedisStore.from_url`` builds one whose operations end within timeout_ms.
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self._cas = client.register_script(CAS_SCRIPT)

    @classmethod
    def from_url(cls, url: str, *, timeout_ms: int = DEFAULT_TIMEOUT_MS, **options: Any) -> "AsyncRedisStore":
        """Return a store over a new ``redis.asyncio.Redis.from_url(url)`` whose every
        operation ends within timeout_ms, with no client-side retries."""
        import redis.asyncio

        return cls(redis.asyncio.Redis.from_url(url, **{**_client_options(timeout_ms), **options}))

    async def load(self, key: str) -> Optional[bytes]:
        """Return the bytes stored under key (GET), or None."""
        return _as_bytes(await self.client.get(key))

    async def compare_and_swap(self, key: str, old: Optional[bytes], new: bytes) -> Tuple[bool, Optional[bytes]]:
        """See RedisStore.compare_and_swap."""
        return _swap_answer(await self._cas(keys=[key], args=_args(old, new)))
