"""Durations: seconds as float or int, ``datetime.timedelta``, or text like ``20ms``/``1.5s``."""

from __future__ import annotations

import math
import re
from datetime import timedelta

from ._errors import ConfigError

Duration = float | int | timedelta | str

_TEXT = re.compile(r"^\s*((?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(ms|s|m|us|µs)?\s*$")
_UNIT = {"ms": 1e-3, "s": 1.0, "m": 60.0, "us": 1e-6, "µs": 1e-6, None: 1.0}


def seconds(value: Duration, name: str = "delay") -> float:
    """Turn a duration into seconds, refusing negatives, NaN and infinities."""
    if isinstance(value, bool):
        raise ConfigError(f"{name}={value!r} must be a duration (seconds, timedelta or '20ms')")
    if isinstance(value, timedelta):
        result = value.total_seconds()
    elif isinstance(value, int | float):
        result = float(value)
    elif isinstance(value, str):
        found = _TEXT.match(value)
        if found is None:
            raise ConfigError(
                f"{name}={value!r} is not a duration; expected a number of seconds or "
                "text such as '20ms', '1.5s'"
            )
        result = float(found.group(1)) * _UNIT[found.group(2)]
    else:
        raise ConfigError(
            f"{name}={value!r} must be a duration (seconds, timedelta or '20ms'), "
            f"not {type(value).__name__}"
        )
    if not math.isfinite(result) or result < 0:
        raise ConfigError(f"{name}={value!r} must be a finite, non-negative duration")
    return result


def format_seconds(value: float) -> str:
    """The shortest text form that :func:`seconds` reads back to the same value."""
    if value == 0:
        return "0s"
    ms = value * 1000
    if ms == int(ms) and ms < 1000:
        return f"{int(ms)}ms"
    return f"{value!r}s"
