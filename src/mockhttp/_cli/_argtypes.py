"""Argument types shared by the command lines (``mockhttp serve``, ``mockhttp check``)."""

from __future__ import annotations

import argparse
import math

from .._server._budget import parse_size

__all__ = ["MAX_SECONDS", "count", "seconds", "size"]

MAX_SECONDS = 7 * 24 * 3600  # a week: longer ones overflow the timers (1e308 did)


def seconds(text: str) -> float:
    """A positive, finite number of seconds, at most ``MAX_SECONDS``."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"{text!r} is more than {MAX_SECONDS:,} seconds")
    return value


def size(text: str) -> int:
    """A size such as ``64MiB``, ``500k`` or ``1000000``, at least one byte."""
    try:
        value = parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1 byte")
    return value


def count(text: str) -> int:
    """A positive whole number."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return value
