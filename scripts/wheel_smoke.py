"""Build mockhttp's wheel and run it from a fresh venv, as ``pipx run`` / ``uvx`` would.

Not from the checkout: the wheel is built (``python -m build`` when it is installed, else
``pip wheel --no-deps .``), installed into a new venv without ``--system-site-packages``
(its dependencies come from the package index pip is configured with), and then
``mockhttp --version`` and one ``mockhttp serve --port 0`` (its URL, its health probe, a
built-in mock answering, the dashboard's static files, a clean stop on SIGTERM) run from
that venv's ``bin``.

Usage: ``python scripts/wheel_smoke.py`` (prints each step with its time; exit 0 when all
pass).  docs/install.md shows a run.
"""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def step(what: str, *command: str | Path, cwd: Path = ROOT) -> str:
    started = time.monotonic()
    done = subprocess.run(
        [str(c) for c in command], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    took = time.monotonic() - started
    if done.returncode != 0:
        sys.exit(f"FAIL {what} ({took:.1f} s):\n{done.stdout}{done.stderr}")
    print(f"ok   {what} ({took:.1f} s)")
    return done.stdout


def build(out: Path) -> Path:
    if importlib.util.find_spec("build") is not None:
        step("python -m build --wheel", sys.executable, "-m", "build", "--wheel", "-o", out)
    else:
        step("pip wheel --no-deps .", sys.executable, "-m", "pip", "wheel", "-q",
             "--no-deps", "-w", out, ".")  # fmt: skip
    (wheel,) = out.glob("mockhttp-*.whl")
    return wheel


def serve_once(mockhttp: Path) -> None:
    started = time.monotonic()
    proc = subprocess.Popen(
        [mockhttp, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, cwd=tempfile.gettempdir(),
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        with urllib.request.urlopen(url + "/__mockhttp/health", timeout=5) as answer:
            health = json.load(answer)
        with urllib.request.urlopen(url + "/v1/models", timeout=5) as answer:
            models = json.load(answer)
        for name in ("", "dashboard.js", "dashboard.css"):  # the dashboard's files are in it
            with urllib.request.urlopen(url + "/__mockhttp/ui/" + name, timeout=5) as answer:
                assert answer.status == 200, name
                assert answer.read(), name
        assert health["status"] == "ok", health
        assert models["data"], models
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(10)
    if code != 0:
        sys.exit(f"FAIL serve exited {code}: {proc.stderr.read() if proc.stderr else ''}")
    took = time.monotonic() - started
    print(f"ok   mockhttp serve --port 0: {url}, health {health}, ui, stopped ({took:.1f} s)")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        wheel = build(where / "dist")
        print(f"     built {wheel.name}")
        step("python -m venv (fresh, no system site-packages)", sys.executable, "-m", "venv",
             where / "venv")  # fmt: skip
        bin_ = where / "venv" / "bin"
        step("pip install the wheel", bin_ / "python", "-m", "pip", "install", "-q", wheel)
        version = step("mockhttp --version", bin_ / "mockhttp", "--version").strip()
        for line in version.splitlines():
            print(f"     {line}")
        if f"installed at: {where / 'venv'}" not in version:  # the wheel runs, not the checkout
            sys.exit(f"mockhttp --version does not say it runs from the new venv:\n{version}")
        serve_once(bin_ / "mockhttp")


if __name__ == "__main__":
    main()
