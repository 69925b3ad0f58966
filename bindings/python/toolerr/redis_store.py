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
off instead; see docs/resilience.md, "Redis sick or unreachable"). Until Redis
first answers, from_url's store gives each operation, its connect and
handshake included, ``connect_timeout_ms`` (500 ms by default, as Go's
``redisstore.DefaultConnectTimeout``) instead, so a fresh store on a loaded
machine does not fail its first connect (RATIONALE.md, "why a store has a
connect deadline until Redis first answers").

Needs the ``redis`` package: the wheel's ``redis`` extra,
``pip install './toolerr-<version>-py3-none-<platform>.whl[redis]'`` (nothing is on PyPI yet).
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Any, Optional, Tuple

from ._extras import require

__all__ = ["AsyncRedisStore", "CAS_SCRIPT", "DEFAULT_CONNECT_TIMEOUT_MS", "DEFAULT_TIMEOUT_MS", "RedisStore",
           "WRONG_TYPE_STATE"]

DEFAULT_TIMEOUT_MS = 50
"""The deadline of each store operation from_url sets, in ms (Go: redisstore.DefaultTimeout)."""

DEFAULT_CONNECT_TIMEOUT_MS = 500
"""The deadline from_url sets for each operation until Redis first answers, connect and
handshake included, in ms (Go: redisstore.DefaultConnectTimeout)."""


WRONG_TYPE_STATE = "toolerr: the key holds another Redis type than a string (WRONGTYPE)"
"""What a key of another Redis type than a string (a list, a hash: GET answers WRONGTYPE) reads as,
in load and in cas.lua alike (Go: redisstore.WrongTypeState): not a breaker state, so the
executor repairs the key instead of failing every operation on it."""


def _read_script() -> str:
    try:
        return resources.files(__package__).joinpath("cas.lua").read_text("utf-8")
    except FileNotFoundError:  # a source checkout: the one file, beside the Go store
        return (Path(__file__).resolve().parents[3] / "redisstore" / "cas.lua").read_text("utf-8")


CAS_SCRIPT: str = _read_script()
"""The compare-and-swap Lua script, byte for byte the one Go embeds (same SHA-1)."""


def _client_options(timeout_ms: int, connect_timeout_ms: int, *, asyncio: bool = False) -> dict[str, Any]:
    """from_url's client options: connect_timeout_ms (never shorter than timeout_ms;
    <= 0: DEFAULT_CONNECT_TIMEOUT_MS) as both redis-py deadlines, socket_timeout
    (which bounds the handshake's replies as well as commands') and
    socket_connect_timeout (the TCP connect), until _Deadline.saw shortens them;
    and no client-side retries: a Retry of no retries, redis.asyncio.retry's
    for an asyncio client (asyncio), whose call_with_retry is a coroutine
    (redis-py warns of redis.retry's there and converts it)."""
    from redis.backoff import NoBackoff

    if asyncio:
        from redis.asyncio.retry import Retry as AsyncRetry
        retry: Any = AsyncRetry(NoBackoff(), 0)
    else:
        from redis.retry import Retry
        retry = Retry(NoBackoff(), 0)
    ct = max(timeout_ms, connect_timeout_ms if connect_timeout_ms > 0 else DEFAULT_CONNECT_TIMEOUT_MS) / 1000
    return {"socket_timeout": ct, "socket_connect_timeout": ct, "retry": retry}


class _Deadline:
    """from_url's store deadlines: the connect deadline until Redis first answers
    (a reply or a Redis error reply), then timeout_ms, for the pool's new
    connections (its connection_kwargs) and each connection the store uses
    (fit, before each operation). seconds None (a client of yours, or
    socket_timeout / socket_connect_timeout given to from_url): never changed."""

    __slots__ = ("answered", "kwargs", "seconds")

    def __init__(self, client: Any, timeout_ms: Optional[int]) -> None:
        self.kwargs: dict[str, Any] = client.connection_pool.connection_kwargs
        self.seconds = None if timeout_ms is None else timeout_ms / 1000
        self.answered = self.seconds is None

    def saw(self, conn: Any) -> None:
        """Redis answered on conn: from now on every operation has timeout_ms."""
        if not self.answered:
            self.answered = True
            self.kwargs["socket_timeout"] = self.kwargs["socket_connect_timeout"] = self.seconds
            self.fit(conn)

    def fit(self, conn: Any) -> None:
        """Give conn timeout_ms once Redis has answered: its reads and writes
        (socket_timeout, and the open socket's timeout: sync redis-py sets it
        only at connect; redis.asyncio reads the attribute per command) and
        its next connect (socket_connect_timeout)."""
        if self.answered and self.seconds is not None and conn.socket_timeout != self.seconds:
            conn.socket_timeout = conn.socket_connect_timeout = self.seconds
            sock = getattr(conn, "_sock", None)  # sync redis-py's open socket (None: closed, or asyncio)
            if sock is not None and sock.gettimeout() != 0:  # 0: inside a non-blocking can_read
                sock.settimeout(self.seconds)


def _own_deadline(client: Any, timeout_ms: int, options: dict[str, Any]) -> _Deadline:
    """from_url's _Deadline: none to change when the caller set the socket deadlines."""
    mine = "socket_timeout" not in options and "socket_connect_timeout" not in options
    return _Deadline(client, timeout_ms if mine else None)


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


# Why a connection held for the store, and what it costs (redis-py 8.1.0 on
# the bench's loopback redis-server, CPU per GET at load 9-11): 34 µs
# through the client's pool, 13 µs through a client of one connection, 8-9
# µs as a Connection's own send_command and read_response. The pool's
# checkout (ConnectionPool.get_connection) takes its lock, records two
# connection-count metrics, calls connect() and polls the socket
# (Connection.can_read) for a stale reply, and its release does the same
# again, for every command; Redis.execute_command adds its own layers
# (observability records, the HIMPORT check, a closure per command). Through
# the executor, on the bench's work, the held client gave 7,463 and the
# held Connection 10,546 calls/s (9 interleaved rounds, load 9). So the
# store holds Connections of the client's pool, each taken as redis-py takes
# one for a single-connection client (Redis.client(): "a new Redis client
# with a single connection from the same pool", so the pool's options apply:
# timeouts, credentials, TLS, protocol and parser), and sends its two
# commands on it with the Connection's own methods: RESP encoding and
# parsing, connect on first use, and a disconnect on any error while writing
# or reading, a timeout or a cancellation included (Connection.read_response
# and send_packed_command: "close in case of BaseException", redis-py
# #1128), so a reply left unread never answers the next command, which
# connects anew. Around them the store does what Redis.execute_command
# would for these two: the connection's retry policy (conn.retry:
# from_url's makes no retries), the client's response callbacks (the
# client's dict, read at each reply), and for EVALSHA what redis-py's Script
# does (the SHA-1 computed once; SCRIPT LOAD only after a NOSCRIPT reply); it
# adds no health check (health_check_interval stays the client's, 0 by
# default: no PING). A breaker key's GET is packed once (the connection's
# pack_command, kept per key) and sent with send_packed_command (redis-py
# 8.1's CacheProxyConnection clears its cache key there, so with a
# client-side cache, cache_config, the reply is still the server's; read in
# its source, not run: that cache needs Redis 7.4, the tests' is 7.0). Not
# done on it: redis-py 8's OpenTelemetry records of
# the two commands, and the reconnect a Redis Enterprise maintenance
# notification asks for (RESP3 push messages are still read and handled by
# the parser).
#
# A single connection is "not thread safe" (the Redis docstring of
# single_connection_client; redis-py #1426: threads sharing one mixed each
# other's replies), so each command has a held connection to itself: the
# store keeps the idle ones in a list, a thread (an asyncio task) pops one
# and appends it back after its reply (list.pop and list.append are atomic
# in CPython, free-threaded builds included), and takes a new one from the
# pool when none is idle. The store so holds as many connections as
# commands ever ran at once through it, as the pool would have opened for
# them (its max_connections bounds both); sharers never wait for each
# other's round trips. It does so only with from_url's client, which is the
# store's: held from a client the application passes, the idle ones would
# count against that pool's max_connections (redis-py 8: 100 by default),
# and the application's own commands would get MaxConnectionsError (or wait
# out a BlockingConnectionPool's timeout) while the store holds connections
# it is not using (test_a_pool_at_max_connections_still_serves_your_client);
# such a client is used through its own execute_command. A forked child never uses its parent's held sockets
# (the pool's _checkpid does the same for pooled connections): the store
# drops them and takes new ones once the process was forked (below).


# How many times this process was forked into (os.register_at_fork): a
# store compares it with the count it held its connections at, where
# os.getpid() was a system call on each command (three per call on the
# bench's work, 0.45 µs each).
_forks = 0


def _forked() -> None:
    global _forks
    _forks += 1


os.register_at_fork(after_in_child=_forked)

_PACKED_KEYS = 1024  # the breaker keys whose GET a store keeps packed (one per tool)
# The stored bytes are read as bytes whatever the client decodes
# (decode_responses): redis-py's NEVER_DECODE option of execute_command, and
# read_response(disable_decoding=True) on a held connection, as redis-py
# reads DUMP. A key holding bytes that are not UTF-8 is then read, and the
# breaker repaired, as Go's and Node's stores do; decoded, every load of it
# raised UnicodeDecodeError, and this replica never shared the breaker again.
_RAW = {"NEVER_DECODE": True}


def _parsed(client: Any, command: str, reply: Any) -> Any:
    """reply as client.execute_command(command, ...) returns it: through the
    client's response callback for command, if it has one."""
    cb = client.response_callbacks.get(command)
    return reply if cb is None else cb(reply)


class RedisStore:
    """The runtime's Store over a ``redis.Redis`` client.

    Use ``RedisStore.from_url("redis://host:6379/0")`` for a client whose
    operations end within ``timeout_ms``; a client you build yourself bounds
    them by its own ``socket_timeout`` (redis-py's default is 5 s).

    With from_url's client, the store's own, the store takes connections
    from its pool (``client.client()``, one per thread sending at once: one
    for a single thread) and holds them; it sends ``GET`` and ``EVALSHA`` on
    them with the pool's options, the connection's retry policy and the
    client's response callbacks, as ``client.get`` would. ``close()`` gives
    the idle ones back to the pool (so does dropping the store). A client of
    yours (a ``redis.Redis``, a ``RedisCluster``) is used as it is, through
    its own ``execute_command`` (``GET``, and ``EVALSHA`` with the
    ``SCRIPT LOAD`` redis-py's Script sends after NOSCRIPT), each command
    taking a connection from your pool and giving it back: the store holds
    none of the connections your pool's ``max_connections`` (redis-py 8:
    100 by default) leaves your other commands, and your client stays yours,
    open, and usable for anything else. Either way the stored bytes are
    read undecoded, whatever ``decode_responses`` says (a response callback
    for ``GET`` or ``EVALSHA`` is given them as bytes), so bytes that are not
    UTF-8 are read and the breaker repaired.
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self._cas = client.register_script(CAS_SCRIPT)
        # The held connections not in use, as the clients of one connection
        # that hold them (client.client()): list.pop and list.append are
        # atomic, so a thread takes one, or takes a new one, without a lock.
        self._free: list[Any] = []
        self._forks = _forks  # the process the held connections belong to (_take)
        # Whether the client is the one from_url made, the store's own: only
        # its connections are held (held from a client of yours, they would
        # be taken from what its pool's max_connections leaves your other
        # commands), and close() closes it.
        self._owned = False
        self._packed: dict[str, Any] = {}  # per key, its GET as the pool's connections pack it (pack_command)
        self._deadline = _Deadline(client, None)  # from_url's: the connect deadline until Redis answers

    @classmethod
    def from_url(cls, url: str, *, timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 connect_timeout_ms: int = DEFAULT_CONNECT_TIMEOUT_MS, **options: Any) -> "RedisStore":
        """Return a store over a new ``redis.Redis.from_url(url)`` whose every operation
        (connect included) ends within timeout_ms once Redis has first answered,
        within connect_timeout_ms (ms, never shorter than timeout_ms; <= 0: the
        default) until then, with no client-side retries; ``close()`` closes that
        client too. options go to redis-py's from_url (socket_timeout or
        socket_connect_timeout among them: those deadlines, always).
        Without the redis package, ImportError naming the wheel's redis extra."""
        redis = require("redis", "redis", "RedisStore")

        client = redis.Redis.from_url(url, **{**_client_options(timeout_ms, connect_timeout_ms), **options})
        store = cls(client)
        store._owned = True
        store._deadline = _own_deadline(client, timeout_ms, options)
        return store

    def _take(self) -> Any:
        """A held connection's client for one command: an idle one, else a new one.

        A new one connects at once (redis-py's single-connection client
        does), so a server that is down fails this operation within the
        client's deadline. In a forked child the parent's are dropped, never
        used (redis-py never shuts a socket from a process that did not
        open it)."""
        if self._forks != _forks:
            self._free, self._forks = [], _forks
        try:
            return self._free.pop()
        except IndexError:
            return self.client.client()

    def _get(self, conn: Any, key: str) -> Any:
        packed = self._packed.get(key)
        if packed is None:
            packed = conn.pack_command("GET", key)
            if len(self._packed) < _PACKED_KEYS:
                self._packed[key] = packed
        self._deadline.fit(conn)
        conn.send_packed_command(packed)
        return _parsed(self.client, "GET", _read(conn, self._deadline))

    def _evalsha(self, conn: Any, key: str, args: list[Any]) -> Any:
        self._deadline.fit(conn)
        try:
            conn.send_command("EVALSHA", self._cas.sha, 1, key, *args)
            return _parsed(self.client, "EVALSHA", _read(conn, self._deadline))
        except _no_script():  # a server that lost its scripts (restarted, SCRIPT FLUSH): load it once, again
            conn.send_command("SCRIPT", "LOAD", CAS_SCRIPT)
            conn.read_response()  # the same SHA-1: the script's
            conn.send_command("EVALSHA", self._cas.sha, 1, key, *args)
            return _parsed(self.client, "EVALSHA", conn.read_response(disable_decoding=True))

    def load(self, key: str) -> Optional[bytes]:
        """Return the bytes stored under key (GET), or None; WRONG_TYPE_STATE for a key
        of another Redis type."""
        try:
            if not self._owned:
                return _as_bytes(self.client.execute_command("GET", key, **_RAW))
            held = self._take()
            conn = held.connection
            try:
                return _as_bytes(conn.retry.call_with_retry(lambda: self._get(conn, key), _disconnect(conn)))
            finally:
                self._free.append(held)
        except _reply_error() as e:
            return _wrong_type(e)

    def compare_and_swap(self, key: str, old: Optional[bytes], new: bytes) -> Tuple[bool, Optional[bytes]]:
        """Store new under key only if it holds exactly old (None: nothing), atomically in Redis.

        Returns (swapped, current): when not swapped, the bytes stored now (None for none)."""
        args = _args(old, new)
        if not self._owned:
            try:
                return _swap_answer(self.client.execute_command("EVALSHA", self._cas.sha, 1, key, *args, **_RAW))
            except _no_script():  # as redis-py's Script does: load it, then the same EVALSHA
                self.client.script_load(CAS_SCRIPT)
                return _swap_answer(self.client.execute_command("EVALSHA", self._cas.sha, 1, key, *args, **_RAW))
        held = self._take()
        conn = held.connection
        try:
            return _swap_answer(conn.retry.call_with_retry(lambda: self._evalsha(conn, key, args),
                                                           _disconnect(conn)))
        finally:
            self._free.append(held)

    def close(self) -> None:
        """Give the idle held connections back to the client's pool (and close
        the client, if from_url made it). The store may be used again after:
        it takes connections again."""
        free, self._free = self._free, []
        if self._forks == _forks:
            for held in free:
                held.close()
        if self._owned:
            self.client.close()


def _read(conn: Any, deadline: _Deadline) -> Any:
    """conn's next reply, undecoded, recording that Redis answered (an error reply included)."""
    try:
        reply = conn.read_response(disable_decoding=True)
    except _reply_error():
        deadline.saw(conn)
        raise
    deadline.saw(conn)
    return reply


def _reply_error() -> type[BaseException]:
    """redis-py's exception for a Redis error reply (the server answered)."""
    from redis.exceptions import ResponseError
    return ResponseError


def _wrong_type(e: BaseException) -> bytes:
    """WRONG_TYPE_STATE when e is Redis's WRONGTYPE reply to a GET; otherwise e, raised again."""
    if str(e).startswith("WRONGTYPE"):
        return WRONG_TYPE_STATE.encode()
    raise e


def _disconnect(conn: Any) -> Any:
    """The failure handler a retry policy calls: what Redis.execute_command's does."""
    return lambda _error: conn.disconnect()


def _no_script() -> type[BaseException]:
    from redis.exceptions import NoScriptError

    return NoScriptError


class AsyncRedisStore:
    """The runtime's AsyncStore over a ``redis.asyncio.Redis`` client.

    ``AsyncRedisStore.from_url`` builds one whose operations end within
    timeout_ms. As RedisStore does, the store holds connections of that
    client's pool (``client.client()``, connected on its first command), one
    per task that sends at once, with the same options, retry policy and
    response callbacks; ``aclose()`` gives the idle ones back and closes the
    client. A client of yours is used as it is (its ``execute_command``),
    holding none of its pool's connections. The stored bytes are read
    undecoded, as RedisStore reads them. Use the
    store from the event loop its client belongs to, as any
    ``redis.asyncio`` client.
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self._cas = client.register_script(CAS_SCRIPT)
        self._free: list[Any] = []  # the idle held connections' clients, as RedisStore's
        self._owned = False  # from_url's client: held from and closed, as RedisStore's
        self._deadline = _Deadline(client, None)  # from_url's, as RedisStore's

    @classmethod
    def from_url(cls, url: str, *, timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 connect_timeout_ms: int = DEFAULT_CONNECT_TIMEOUT_MS, **options: Any) -> "AsyncRedisStore":
        """Return a store over a new ``redis.asyncio.Redis.from_url(url)`` whose every
        operation ends within timeout_ms once Redis has first answered, within
        connect_timeout_ms until then (as RedisStore.from_url), with no
        client-side retries; ``aclose()`` closes that client too. Without the
        redis package, ImportError naming the wheel's redis extra."""
        redis_asyncio = require("redis.asyncio", "redis", "AsyncRedisStore")

        client = redis_asyncio.Redis.from_url(url, **{**_client_options(timeout_ms, connect_timeout_ms, asyncio=True),
                                                           **options})
        store = cls(client)
        store._owned = True
        store._deadline = _own_deadline(client, timeout_ms, options)
        return store

    async def _take(self) -> Any:
        """An idle held connection's client, else a new one (redis.asyncio's
        client() takes its connection from the pool in initialize())."""
        try:
            return self._free.pop()
        except IndexError:
            held = self.client.client()
            try:
                await held.initialize()
            except BaseException:
                await held.aclose()
                raise
            return held

    async def _get(self, conn: Any, key: str) -> Any:
        self._deadline.fit(conn)
        await conn.send_command("GET", key)
        return _parsed(self.client, "GET", await _aread(conn, self._deadline))

    async def _evalsha(self, conn: Any, key: str, args: list[Any]) -> Any:
        self._deadline.fit(conn)
        try:
            await conn.send_command("EVALSHA", self._cas.sha, 1, key, *args)
            return _parsed(self.client, "EVALSHA", await _aread(conn, self._deadline))
        except _no_script():
            await conn.send_command("SCRIPT", "LOAD", CAS_SCRIPT)
            await conn.read_response()
            await conn.send_command("EVALSHA", self._cas.sha, 1, key, *args)
            return _parsed(self.client, "EVALSHA", await conn.read_response(disable_decoding=True))

    async def load(self, key: str) -> Optional[bytes]:
        """Return the bytes stored under key (GET), or None; WRONG_TYPE_STATE for a key
        of another Redis type."""
        try:
            if not self._owned:
                return _as_bytes(await self.client.execute_command("GET", key, **_RAW))
            held = await self._take()
            conn = held.connection
            try:
                return _as_bytes(await conn.retry.call_with_retry(lambda: self._get(conn, key), _adisconnect(conn)))
            finally:
                self._free.append(held)
        except _reply_error() as e:
            return _wrong_type(e)

    async def compare_and_swap(self, key: str, old: Optional[bytes], new: bytes) -> Tuple[bool, Optional[bytes]]:
        """See RedisStore.compare_and_swap."""
        args = _args(old, new)
        if not self._owned:
            try:
                return _swap_answer(await self.client.execute_command("EVALSHA", self._cas.sha, 1, key, *args, **_RAW))
            except _no_script():
                await self.client.script_load(CAS_SCRIPT)
                return _swap_answer(await self.client.execute_command("EVALSHA", self._cas.sha, 1, key, *args,
                                                                      **_RAW))
        held = await self._take()
        conn = held.connection
        try:
            return _swap_answer(await conn.retry.call_with_retry(lambda: self._evalsha(conn, key, args),
                                                                 _adisconnect(conn)))
        finally:
            self._free.append(held)

    async def aclose(self) -> None:
        """Give the idle held connections back to the client's pool (and close
        the client, if from_url made it). The store may be used again after."""
        free, self._free = self._free, []
        for held in free:
            await held.aclose()
        if self._owned:
            await self.client.aclose()


async def _aread(conn: Any, deadline: _Deadline) -> Any:
    """_read for a redis.asyncio connection."""
    try:
        reply = await conn.read_response(disable_decoding=True)
    except _reply_error():
        deadline.saw(conn)
        raise
    deadline.saw(conn)
    return reply


def _adisconnect(conn: Any) -> Any:
    """The asyncio retry policy's failure handler (a coroutine function)."""
    async def fail(_error: Exception) -> None:
        await conn.disconnect()
    return fail
