"""Durations: the forms accepted, and text that reads back to the same value."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp import ConfigError
from mockhttp._core._units import format_seconds, seconds


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.02, 0.02),
        (3, 3.0),
        (timedelta(milliseconds=20), 0.02),
        ("20ms", 0.02),
        ("1.5s", 1.5),
        ("2", 2.0),
        ("1m", 60.0),
        ("250us", 0.00025),
        ("1e3ms", 1.0),
    ],
)
def test_accepted_forms(value, expected) -> None:
    """Numbers, timedeltas and text with a unit all give seconds."""
    assert seconds(value) == pytest.approx(expected)


@pytest.mark.parametrize("value", [-1, "fast", float("nan"), float("inf"), True, None, "-2s"])
def test_refused_forms(value) -> None:
    """Negative, non-finite and unreadable durations raise ConfigError naming the value."""
    with pytest.raises(ConfigError, match="delay="):
        seconds(value)


@given(st.floats(min_value=0, max_value=1e18, allow_nan=False, allow_infinity=False))
def test_format_reads_back(value: float) -> None:
    """format_seconds writes text that seconds() reads back to the same value."""
    assert seconds(format_seconds(value)) == pytest.approx(value, rel=1e-12, abs=1e-15)
