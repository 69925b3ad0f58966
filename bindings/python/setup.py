"""Builds toolerr's wheel and sdist; the metadata is in pyproject.toml.

The wheel carries libtoolerr.so, the Go core built as a C shared library, and
is tagged ``py3-none-<platform>``: the library is loaded through ctypes, so it
does not depend on the CPython ABI, only on the platform (scripts/packages.sh
then retags it with auditwheel, e.g. manylinux_2_34_x86_64).

Where libtoolerr.so comes from, the first that applies:

1. ``toolerr/libtoolerr.so`` already in the source tree (scripts/packages.sh
   and scripts/test-python.sh copy ``dist/libtoolerr.so`` there);
2. built from the Go source with ``go build -buildmode=c-shared``: ``gosrc/``
   in an sdist, or the repository root when building from a clone. That needs
   Go (``$TOOLERR_GO``, else ``go`` on PATH; the version in gosrc/go.mod) and
   the C compiler cgo uses (``$CC``, else gcc).

With neither, the build stops and says which of them is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

try:  # setuptools >= 70.1 has bdist_wheel (pyproject.toml asks for >= 77)
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover
    from wheel.bdist_wheel import bdist_wheel  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
LIB = "libtoolerr.so"


def go_source() -> Path | None:
    """Return the module root holding the core's Go source (cshared/ and core/), if any."""
    for root in (HERE / "gosrc", HERE.parent.parent):
        if (root / "go.mod").is_file() and (root / "cshared" / "main.go").is_file():
            return root
    return None


def build_core(out: Path) -> None:
    """Build libtoolerr.so from the Go source into out, or stop with what is missing."""
    src = go_source()
    go = os.environ.get("TOOLERR_GO") or shutil.which("go")
    cc = os.environ.get("CC") or "gcc"
    missing = []
    if src is None:
        missing.append("the core's Go source (gosrc/ in the sdist, or a toolerr clone)")
    if go is None:
        missing.append("Go (https://go.dev/dl; set TOOLERR_GO or put `go` on PATH)")
    if shutil.which(cc.split()[0]) is None:
        missing.append(f"a C compiler for cgo ({cc!r} not found; set CC or install gcc)")
    if missing:
        raise SystemExit(
            "toolerr: no prebuilt libtoolerr.so for this platform, and it cannot be built here: missing "
            + "; ".join(missing)
            + ". Install a toolerr wheel built for your platform (linux x86_64 glibc), or provide the above."
        )
    assert src is not None and go is not None
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [go, "build", "-trimpath", "-buildvcs=false", "-ldflags=-buildid=", "-buildmode=c-shared",
           "-o", str(out), "./cshared"]
    print(f"toolerr: building {LIB} from the Go source in {src} with {go}", flush=True)
    env = dict(os.environ, CGO_ENABLED="1")
    try:
        subprocess.run(cmd, cwd=src, env=env, check=True)
    except subprocess.CalledProcessError as e:
        raise SystemExit(f"toolerr: `{' '.join(cmd)}` failed (exit {e.returncode}) in {src}") from None
    out.with_suffix(".h").unlink(missing_ok=True)  # cgo's generated header is not shipped


class BuildPy(build_py):
    """Copies the package, then makes sure libtoolerr.so is beside it (prebuilt or built from Go)."""

    def run(self) -> None:
        super().run()
        target = (Path(self.build_lib) / "toolerr" / LIB).resolve()
        if not target.is_file():
            build_core(target)


class BinaryDistribution(Distribution):
    """Marks the package platform-specific (it carries libtoolerr.so): a platlib wheel."""

    def has_ext_modules(self) -> bool:
        return True


class BdistWheel(bdist_wheel):
    """Tags the wheel py3-none-<platform>: one wheel per platform, any Python 3."""

    def get_tag(self) -> tuple[str, str, str]:
        return "py3", "none", super().get_tag()[2]


setup(distclass=BinaryDistribution, cmdclass={"build_py": BuildPy, "bdist_wheel": BdistWheel})
