"""A page's ``python test`` block run as a pytest module in a process of its own.

Not with ``pytester``: its fixture restores ``sys.modules`` at teardown, which drops the
modules the SDKs import lazily on a first request (httpx2's transports, say) while the
modules that import them stay; the next example then reads a class of a fresh import,
and an SDK's ``except`` of the old class lets a connection error through unwrapped.
"""

from __future__ import annotations

import gc
import re
import subprocess
import sys
import warnings
from pathlib import Path

__all__ = ["let_go", "run_module"]

_INI = "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)")


def run_module(folder: Path, name: str, code: str, *args: str) -> tuple[dict[str, int], str]:
    """Run ``code`` as ``folder/name.py`` with the mockhttp plugin: the outcomes by kind
    (``passed``, ``failed``, ``errors``, ...) and what pytest printed."""
    (folder / f"{name}.py").write_text(code)
    (folder / "pytest.ini").write_text(_INI)
    argv = [sys.executable, "-m", "pytest", "-p", "mockhttp", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*argv, *args, f"{name}.py"], cwd=folder, capture_output=True, text=True, timeout=300
    )
    lines = done.stdout.strip().splitlines()
    found = _COUNT.findall(lines[-1]) if lines else []
    outcomes = {("errors" if kind == "error" else kind): int(n) for n, kind in found}
    return outcomes, done.stdout + done.stderr


def let_go(namespace: dict[str, object]) -> None:
    """Drop what a page's examples made, now, within the page's own test: a client they
    left open (as user code does, for the collector) would otherwise warn of its socket
    in whichever test the collector happens to run in."""
    namespace.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()
