"""Loading libtoolerr.so and moving bytes through toolerr_invoke_into.

The library is loaded on the first call, not at import, so a process may fork
after ``import toolerr`` and both sides load their own copy. A Go runtime does
not survive fork (its threads stay behind in the parent), so a child forked
after the library was loaded maps a private copy of the file on its first call.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Callable, Optional

ABI_VERSION = 1  # the Invoke contract this binding speaks (toolerr.h TOOLERR_ABI_VERSION)
MAX_REQUEST_BYTES = 32 << 20  # the largest request the core reads (toolerr.h TOOLERR_MAX_REQUEST_BYTES)

_lock = threading.Lock()
class _Library(ctypes.CDLL):
    """libtoolerr.so, with toolerr_invoke_into also as invoke_into_prepared:
    the same function without argtypes, for the per-thread buffer's calls,
    whose arguments are ctypes objects of the exact C types already (see
    _Scratch), so that ctypes converts nothing (0.2-0.5 us of about 2 per
    call)."""

    invoke_into_prepared: Callable[..., Optional[int]]


_lib: Optional[_Library] = None
_stale = False  # set in a forked child whose parent had loaded the library


def library_path() -> str:
    """Return the path of libtoolerr.so: $TOOLERR_LIB, else the bundled file."""
    return os.environ.get("TOOLERR_LIB") or str(Path(__file__).with_name("libtoolerr.so"))


def _where(path: str) -> str:
    # Where the path came from, for the errors: TOOLERR_LIB, or the package.
    return f"{path} (TOOLERR_LIB)" if os.environ.get("TOOLERR_LIB") else path


_FIX = ("install a toolerr wheel for this platform (linux x86_64 glibc), or the sdist with Go and a C compiler "
        "present; from a clone, run `make build` and set TOOLERR_LIB=dist/libtoolerr.so")


def _open(path: str) -> _Library:
    if not os.path.isfile(path):
        raise ImportError(f"toolerr: the core library {_where(path)} does not exist; {_FIX}")
    try:
        lib = _Library(path)
        lib.toolerr_invoke  # an ELF library that is not libtoolerr.so loads, and lacks the symbols
    except (OSError, AttributeError) as e:  # not a library, another platform's, or another library
        raise ImportError(f"toolerr: the core library {_where(path)} does not load: {e}; {_FIX}") from e
    lib.toolerr_invoke.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]
    lib.toolerr_invoke.restype = ctypes.c_void_p
    lib.toolerr_invoke_into.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t,
                                        ctypes.POINTER(ctypes.c_size_t)]
    lib.toolerr_invoke_into.restype = ctypes.c_void_p
    lib.invoke_into_prepared = ctypes.CFUNCTYPE(ctypes.c_void_p)(
        ctypes.cast(lib.toolerr_invoke_into, ctypes.c_void_p).value or 0)
    lib.toolerr_free.argtypes = [ctypes.c_void_p]
    lib.toolerr_free.restype = None
    lib.toolerr_abi_version.argtypes = []
    lib.toolerr_abi_version.restype = ctypes.c_uint32
    if lib.toolerr_abi_version() != ABI_VERSION:
        raise ImportError(f"toolerr: {path} implements ABI {lib.toolerr_abi_version()}, this binding {ABI_VERSION}")
    return lib


def _open_private_copy(path: str) -> _Library:
    # dlopen of the same path returns the parent's (dead) runtime; a copy under
    # another name gets a fresh one. The file is unlinked once mapped.
    d = tempfile.mkdtemp(prefix="toolerr-")
    p = os.path.join(d, "libtoolerr.so")
    try:
        shutil.copyfile(path, p)
        return _open(p)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def lib() -> _Library:
    """Return the loaded library, loading it on first use (thread-safe)."""
    global _lib, _stale
    if _lib is not None and not _stale:
        return _lib
    with _lock:
        if _lib is None or _stale:
            _lib = _open_private_copy(library_path()) if _stale else _open(library_path())
            _stale = False
        return _lib


def _after_fork_in_child() -> None:
    global _stale, _lock
    _lock = threading.Lock()
    _stale = _lib is not None


os.register_at_fork(after_in_child=_after_fork_in_child)


# Each thread answers into a buffer of its own (toolerr_invoke_into): one
# foreign call per invoke, no malloc/free pair, one copy out. A longer answer
# comes back malloc'd, as from toolerr_invoke, and is freed here.
_BUFFER_BYTES = 64 << 10


class _Scratch(threading.local):
    def __init__(self) -> None:
        self.buf = bytearray(_BUFFER_BYTES)
        self.view = memoryview(self.buf)
        self.addr = ctypes.addressof((ctypes.c_char * _BUFFER_BYTES).from_buffer(self.buf))
        self.n = ctypes.c_size_t(0)
        self.n_ref = ctypes.byref(self.n)
        # the arguments of toolerr_invoke_into_prepared, as its C types
        self.addr_arg = ctypes.c_void_p(self.addr)
        self.size_arg = ctypes.c_size_t(_BUFFER_BYTES)
        self.len_arg = ctypes.c_size_t(0)
        # what invoke_bytes reads per call, in one thread-local lookup instead of six
        # (each costs about as much as a dict lookup; 0.87x invoke_bytes's time for (a))
        self.call = (self.len_arg, self.addr_arg, self.size_arg, self.n_ref, self.n, self.view)
        self.busy = False


_scratch = _Scratch()


def invoke_bytes(request: bytes) -> bytes:
    """Run one request (UTF-8 JSON bytes, or any bytes-like object: bytearray,
    memoryview) through the core and return the response bytes. Raises
    TypeError for anything else (a str, an int, a list of ints), which
    bytes() would turn into bytes no one wrote (bytes(10**9) is a GB of
    zeros)."""
    h = _lib if _lib is not None and not _stale else lib()
    s = _scratch
    if not isinstance(request, bytes):
        try:
            view = memoryview(request)
        except TypeError:
            raise TypeError(f"toolerr: a request must be bytes or bytes-like, not {type(request).__name__}") from None
        if view.nbytes > MAX_REQUEST_BYTES:  # refused by its length alone: not copied
            return invoke_length(view.nbytes)
        request = view.tobytes()
    if s.busy:  # a signal handler calling toolerr inside a call of its thread: no buffer for it
        size = ctypes.c_size_t(0)
        return _take(h, h.toolerr_invoke_into(request, len(request), None, 0, ctypes.byref(size)), size.value)
    s.busy = True
    try:
        len_arg, addr_arg, size_arg, n_ref, n_out, view = s.call
        len_arg.value = len(request)
        p = h.invoke_into_prepared(request, len_arg, addr_arg, size_arg, n_ref)
        n: int = n_out.value
        if p is None and n:
            return view[:n].tobytes()
    finally:
        s.busy = False
    return _take(h, p, n)


def invoke_length(n: int) -> bytes:
    """Return the core's answer to a request of n bytes over
    MAX_REQUEST_BYTES, which it refuses by its length alone (INVALID_INPUT,
    bound "request_bytes", count n; toolerr.h: "a longer one gets
    INVALID_INPUT unread"), without the bytes: the caller need not copy
    them into one buffer first."""
    if n <= MAX_REQUEST_BYTES:
        raise ValueError(f"toolerr: invoke_length({n}): only a length over {MAX_REQUEST_BYTES} is answered unread")
    h = _lib if _lib is not None and not _stale else lib()
    size = ctypes.c_size_t(0)
    return _take(h, h.toolerr_invoke_into(None, n, None, 0, ctypes.byref(size)), size.value)


def _take(h: ctypes.CDLL, p: Optional[int], n: int) -> bytes:
    """Copy out and free a response the core allocated (None: the core could not)."""
    if p is None:
        raise MemoryError("toolerr: the core could not allocate its response")
    try:
        return ctypes.string_at(p, n)
    finally:
        h.toolerr_free(p)


def abi_version() -> int:
    """Return the ABI version the loaded library implements."""
    return int(lib().toolerr_abi_version())
