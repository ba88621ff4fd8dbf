"""Build ``dist/mockhttp.pex``, one file that runs with only ``python3``, and run it.

pex (a well-kept tool made for this) puts mockhttp and its dependencies' wheels in one
zip with a ``#!/usr/bin/env python3`` line; the compiled ones (httptools, PyYAML's C
loader) are the wheels of one platform and Python: the machine's, or each ``--platform``
given (pex's own spelling, e.g. ``manylinux2014_x86_64-cp-312-cp312``), so one file can
hold several.  The file is then run with ``python3 -I`` away from the checkout:
``--version`` (which must say it runs from the pex) and one ``serve --port 0``.

Usage: ``python scripts/pex_build.py [--platform P ...]`` (pex comes from the package
index into a throwaway venv; about 3 minutes the first time).  docs/install.md shows a run.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from wheel_smoke import ROOT, serve_once, step

PEX = "pex==2.105.2"


def main(platforms: list[str]) -> None:
    out = ROOT / "dist" / "mockhttp.pex"
    out.parent.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        step("python -m venv (for pex)", sys.executable, "-m", "venv", venv)
        step(f"pip install {PEX}", venv / "bin" / "python", "-m", "pip", "install", "-q", PEX)
        wanted = [arg for p in platforms for arg in ("--platform", p)]
        step("pex . -c mockhttp", venv / "bin" / "pex", ROOT, "-c", "mockhttp", "-o", out,
             "--python-shebang", "/usr/bin/env python3", *wanted)  # fmt: skip
    print(f"     {out.relative_to(ROOT)}: {out.stat().st_size / 1e6:.1f} MB")
    with tempfile.TemporaryDirectory() as away:  # not the checkout: nothing of src/ on the path
        version = step("python3 -I mockhttp.pex --version", "python3", "-I", out, "--version",
                       cwd=Path(away))  # fmt: skip
    for line in version.strip().splitlines():
        print(f"     {line}")
    if "/.deps/mockhttp-" not in version and "installed_wheels" not in version:
        sys.exit(f"mockhttp.pex --version does not say it runs from the pex:\n{version}")
    serve_once(out)


if __name__ == "__main__":
    args = sys.argv[1:]
    main([args[i + 1] for i, a in enumerate(args) if a == "--platform" and i + 1 < len(args)])
