"""Check the package sizes in the README's Install table against built packages.

usage: readme-sizes.py README.md PACKAGES_DIR VERSION

Prints one line per package, "ok README size of NAME: X MiB" or "bad README
size of NAME: ...", the verdict lines scripts/test-packages.sh reads. The
README gives each size in MiB to two significant digits ("(2.8 MiB)",
"(0.45 MiB)"), written after the package's name in backquotes: the wheel by
its platform tag (`py3-none-manylinux_2_17_x86_64`), the others by file name.
A package not built (the optional Node addon) is left out. A size within
10% of the package's is ok: the table tells a user what a download costs,
and a check to the last digit would fail on every small change of the code
(0.445 MiB rounds either way).
"""

import glob
import os
import re
import sys


def main() -> int:
    readme, pkgs, version = sys.argv[1:4]
    text = open(readme, encoding="utf-8").read()
    wheels = glob.glob(os.path.join(pkgs, f"toolerr-{version}-py3-none-*.whl"))
    named = {"py3-none-manylinux_2_17_x86_64": wheels[0] if wheels else None}
    for f in (f"toolerr-{version}.tar.gz", f"toolerr-{version}.tgz", f"toolerr-native-{version}.tgz", f"toolerr-{version}.crate"):
        named[f] = os.path.join(pkgs, f)
    for name, path in named.items():
        if path is None or not os.path.isfile(path):
            continue
        want = f"{os.path.getsize(path) / 2**20:.2g}"
        m = re.search(rf"`{re.escape(name)}` \(([0-9.]+) MiB\)", text)
        if m is None:
            print(f"bad README size of {name}: the Install table gives none (`{name}` (N MiB)); it is {want} MiB")
        elif abs(float(m.group(1)) * 2**20 - os.path.getsize(path)) > 0.1 * os.path.getsize(path):
            print(f"bad README size of {name}: the Install table says {m.group(1)} MiB, the package is {want} MiB (more than 10% apart)")
        else:
            print(f"ok README size of {name}: {want} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
