"""Optional third-party modules: import one, or say which extra of the wheel installs it."""

from __future__ import annotations

import importlib
from types import ModuleType


def require(module: str, extra: str, needer: str = "this integration") -> ModuleType:
    """Import module, or raise ImportError naming toolerr's extra for it.

    needer names what needs it in the message ("this integration",
    "RedisStore"). The message names the extra of the wheel a user installed
    from its file (nothing of toolerr's is on PyPI yet, so a bare
    'toolerr[extra]' would ask PyPI for a package of that name)."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"toolerr: {needer} needs {module!r}: install toolerr's wheel with its {extra!r} extra, "
                          f"pip install './toolerr-<version>-py3-none-<platform>.whl[{extra}]'") from e
