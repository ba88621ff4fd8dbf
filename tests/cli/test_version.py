"""``mockhttp --version`` says what runs: version, Python, loop, extras, location."""

from __future__ import annotations

import platform
import sys
from importlib import metadata
from pathlib import Path

import pytest
import tomllib

import mockhttp
from mockhttp._cli import _version
from tests.helpers.cli_process import run

ROOT = Path(__file__).resolve().parents[2]


def test_version_names_what_runs_here() -> None:
    """Each line checked against this process's own facts (the test extra has uvloop,
    prometheus_client, trustme, h2 and opentelemetry-sdk)."""
    done = run("--version")
    assert (done.returncode, done.stderr) == (0, "")
    uvloop, prometheus = metadata.version("uvloop"), metadata.version("prometheus_client")
    trustme, h2 = metadata.version("trustme"), metadata.version("h2")
    otel = metadata.version("opentelemetry-sdk")
    python = f"{platform.python_implementation()} {platform.python_version()}"
    assert done.stdout.splitlines() == [
        f"mockhttp {mockhttp.__version__}",
        f"python: {python} ({sys.executable})",
        f"loop: auto picks uvloop; uvloop {uvloop} installed",
        f"extras: fast (uvloop {uvloop}), metrics (prometheus_client {prometheus}), "
        f"tls (trustme {trustme}), http2 (h2 {h2}), otel (opentelemetry-sdk {otel})",
        f"installed at: {Path(mockhttp.__file__).parent}",
    ]


def test_missing_extras_say_how_to_install_them(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without uvloop and prometheus_client: not installed, and the pip line for each."""
    monkeypatch.setattr(_version, "_installed", lambda dist: None)
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as if it were not installed
    lines = _version.describe().splitlines()
    assert lines[2] == "loop: auto picks asyncio; uvloop not installed"
    assert lines[3] == (
        "extras: none; not installed: fast (pip install 'mockhttp[fast]'), "
        "metrics (pip install 'mockhttp[metrics]'), tls (pip install 'mockhttp[tls]'), "
        "http2 (pip install 'mockhttp[http2]'), otel (pip install 'mockhttp[otel]')"
    )


def test_extras_are_pyprojects_runtime_extras() -> None:
    """EXTRAS names every optional-dependencies group but test, with what it installs."""
    groups = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert set(_version.EXTRAS) == set(groups) - {"test"}
    for extra, dist in _version.EXTRAS.items():
        assert any(req.startswith(dist) for req in groups[extra]), (extra, groups[extra])
