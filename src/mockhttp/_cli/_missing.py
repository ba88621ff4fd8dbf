"""``serve DIR --record-missing --upstream URL``: the flags, their checks, the wiring.

The recording itself is ``record._missing``'s (imported on use: ``serve`` without the
flag loads no recorder); this module installs its fallback mock among the served mocks
(again after each reload) and serves each recording it makes as a file mock.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .._core._mock import Mock
from .._server._server import Server

if TYPE_CHECKING:
    from ..record._missing import MissRecorder

__all__ = ["add_arguments", "problem", "recorder", "with_fallback"]

Expand = Callable[[list[Mock]], list[Mock]]


def add_arguments(serve: argparse.ArgumentParser) -> None:
    """Add ``--record-missing`` and ``--upstream`` to the ``serve`` parser."""
    group = serve.add_argument_group("record-on-miss")
    group.add_argument(
        "--record-missing",
        action="store_true",
        help="forward every request no mock matches to --upstream, stream the reply "
        "through, and record it into DIR (the one PATH) as a new mock file that answers "
        "the same request from then on",
    )
    group.add_argument(
        "--upstream",
        metavar="URL",
        help="with --record-missing: the http(s) base URL misses are forwarded to",
    )


def problem(args: argparse.Namespace, paths: Sequence[Path]) -> str | None:
    """What is wrong with the record-on-miss flags (None: nothing, or they are unused)."""
    if not args.record_missing:
        if args.upstream is not None:
            return "--upstream URL is for --record-missing (forward and record the misses)"
        return None
    if args.upstream is None:
        return "--record-missing needs --upstream URL: where the requests no mock matches go"
    if len(args.paths) != 1 or paths[0].is_file():
        return "--record-missing needs one PATH, the directory the recordings are written to"
    if args.workers is not None:
        return "--record-missing records from one process: leave out --workers"
    return None


def recorder(
    args: argparse.Namespace, server: Server, serve: Callable[[Mock], None]
) -> MissRecorder:
    """The recorder of ``args.paths[0]``, forwarding to ``args.upstream``.

    Raises:
        ConfigError: the upstream is not an http(s) URL.
    """
    from ..record._missing import MissRecorder

    return MissRecorder(
        args.upstream,
        Path(args.paths[0]),
        url=lambda: server.url,
        serve=serve,
        log=None if args.quiet else sys.stderr,
    )


def with_fallback(expand: Expand, fallback: Mock) -> Expand:
    """``expand``, then the fallback mock (what a reload serves)."""

    def expanded(mocks: list[Mock]) -> list[Mock]:
        return [*expand(mocks), fallback]

    return expanded
