"""``mockhttp --version``: what runs (the version, the Python, the loop, the extras, where).

Rule 1: only what this process can see: the versions are the installed distributions',
the loop is the one ``loop="auto"`` makes here, the location is the imported package's.
"""

from __future__ import annotations

import argparse
import platform
import sys
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["EXTRAS", "VersionAction", "describe"]

# the runtime extras (pyproject.toml's optional-dependencies, the test extra aside) and the
# distribution each one installs
EXTRAS = {
    "fast": "uvloop",
    "metrics": "prometheus_client",
    "tls": "trustme",
    "http2": "h2",
    "otel": "opentelemetry-sdk",
}


def _installed(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def _auto_loop() -> str:
    from .._server._loop import loop_factory, loop_name

    loop = loop_factory("auto")()
    try:
        return loop_name(loop)
    finally:
        loop.close()


def describe() -> str:
    """The lines ``mockhttp --version`` prints."""
    from .. import __file__ as package_file
    from .. import __version__

    python = f"{platform.python_implementation()} {platform.python_version()}"
    uvloop = _installed("uvloop")
    loop = f"loop: auto picks {_auto_loop()}; uvloop " + (
        f"{uvloop} installed" if uvloop else "not installed"
    )
    present = [f"{extra} ({dist} {v})" for extra, dist in EXTRAS.items() if (v := _installed(dist))]
    missing = [f"{extra} (pip install 'mockhttp[{extra}]')"
               for extra, dist in EXTRAS.items() if not _installed(dist)]  # fmt: skip
    extras = "extras: " + (", ".join(present) or "none")
    if missing:
        extras += "; not installed: " + ", ".join(missing)
    return "\n".join(
        [
            f"mockhttp {__version__}",
            f"python: {python} ({sys.executable})",
            loop,
            extras,
            f"installed at: {Path(package_file).parent}",
        ]
    )


class VersionAction(argparse.Action):
    """``--version``: print :func:`describe` and exit 0 (computed only when asked)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "say what runs: version, Python, event loop, extras, location")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any) -> None:
        print(describe())
        parser.exit()
