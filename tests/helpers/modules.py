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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["run_module", "run_modules", "user_code"]

_INI = "[pytest]\nasyncio_default_fixture_loop_scope = function\n"
# Plugins the test environment installs that no example uses, blocked in the example's
# process: their imports were two thirds of its start (hypothesis ~1.4 s and langsmith's
# plugin ~1.6 s of a 6 s start with the machine loaded; 2.5 -> 0.85 s of CPU a process).
# docs/pytest.md runs three such processes: once past the suite's 120 s under load.
_UNUSED = ("hypothesispytest", "langsmith_plugin")
_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)")


def run_module(folder: Path, name: str, code: str, *args: str) -> tuple[dict[str, int], str]:
    """Run ``code`` as ``folder/name.py`` with the mockhttp plugin: the outcomes by kind
    (``passed``, ``failed``, ``errors``, ...) and what pytest printed."""
    done = _pytest(folder, {name: code}, args)
    lines = done.stdout.strip().splitlines()
    found = _COUNT.findall(lines[-1]) if lines else []
    outcomes = {("errors" if kind == "error" else kind): int(n) for n, kind in found}
    return outcomes, done.stdout + done.stderr


def run_modules(folder: Path, modules: dict[str, str]) -> tuple[dict[str, dict[str, int]], str]:
    """Run each ``code`` as ``folder/name.py``, all in one pytest process (one start, not
    one a module): each module's outcomes by kind, read from pytest's ``-rA`` lines."""
    done = _pytest(folder, modules, ("-rA",))
    outcomes: dict[str, dict[str, int]] = {name: {} for name in modules}
    for line in done.stdout.splitlines():
        found = _OUTCOME.match(line)
        if found and found["module"] in outcomes:
            kind = _KINDS[found["kind"]]
            seen = outcomes[found["module"]]
            seen[kind] = seen.get(kind, 0) + 1
    return outcomes, done.stdout + done.stderr


_OUTCOME = re.compile(r"^(?P<kind>PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (?P<module>\w+)\.py")
_KINDS = {
    "PASSED": "passed",
    "FAILED": "failed",
    "ERROR": "errors",
    "SKIPPED": "skipped",
    "XFAIL": "xfailed",
    "XPASS": "xpassed",
}


def _pytest(
    folder: Path, modules: dict[str, str], args: tuple[str, ...]
) -> subprocess.CompletedProcess[str]:
    for name, code in modules.items():
        (folder / f"{name}.py").write_text(code)
    (folder / "pytest.ini").write_text(_INI)
    argv = [sys.executable, "-m", "pytest", "-p", "mockhttp", "-p", "no:cacheprovider"]
    argv += [arg for name in _UNUSED for arg in ("-p", f"no:{name}")]
    files = [f"{name}.py" for name in modules]
    return subprocess.run(
        [*argv, *args, *files], cwd=folder, capture_output=True, text=True, timeout=300
    )


@contextmanager
def user_code() -> Iterator[dict[str, object]]:
    """A namespace for a page's examples, run as a user's code runs: a client an example
    leaves open (as user code does, for the collector) may be collected at any moment of
    the page -- a later example rebinding its name puts it in a cycle -- so its socket's
    ``ResourceWarning`` is ignored meanwhile; at the end the namespace is dropped and
    collected, within the page's own test rather than whichever test the collector would
    next run in."""
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        try:
            yield namespace
        finally:
            namespace.clear()
            gc.collect()
