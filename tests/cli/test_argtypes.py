"""The argument types of ``mockhttp serve`` and ``mockhttp check``: what a user may type for
seconds, sizes and counts, and the error argparse shows for the rest."""

from __future__ import annotations

import argparse
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp._cli._argtypes import MAX_SECONDS, count, seconds, size


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="mockhttp", exit_on_error=False)
    made.add_argument("--deadline", type=seconds)
    made.add_argument("--max-bytes", type=size)
    made.add_argument("--max-lines", type=count)
    return made


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2", 2.0), ("0.5", 0.5), ("1e-3", 0.001), (" 3 ", 3.0), (str(MAX_SECONDS), MAX_SECONDS)],
)
def test_seconds_accepts_positive_finite_numbers(text: str, expected: float) -> None:
    assert seconds(text) == expected


@pytest.mark.parametrize("text", ["0", "-1", "nan", "inf", "-inf", "fast", "", "2s"])
def test_seconds_refuses_what_no_timer_can_wait(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="is not a positive number of seconds"):
        seconds(text)


@pytest.mark.parametrize("text", [str(MAX_SECONDS + 1), "1e308"])
def test_seconds_refuses_more_than_a_week(text: str) -> None:
    """1e308 seconds overflowed the event loop's timers."""
    with pytest.raises(argparse.ArgumentTypeError, match="is more than 604,800 seconds"):
        seconds(text)


@given(st.floats(min_value=1e-9, max_value=MAX_SECONDS))
def test_any_number_in_range_reads_back(value: float) -> None:
    assert seconds(repr(value)) == value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", 1),
        ("1000000", 1_000_000),
        ("500k", 500_000),
        ("500KB", 500_000),
        ("64MiB", 64 * 1024 * 1024),
        ("64 MiB", 64 * 1024 * 1024),
        ("1m", 1_000_000),
        ("2GiB", 2 * 1024**3),
        ("1g", 1_000_000_000),
        ("256KiB", 262_144),
    ],
)
def test_size_reads_decimal_and_binary_units(text: str, expected: int) -> None:
    assert size(text) == expected


@pytest.mark.parametrize("text", ["0", "0MiB"])
def test_size_refuses_nothing(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="must be at least 1 byte"):
        size(text)


@pytest.mark.parametrize("text", ["", "-1", "1.5MiB", "64MB/s", "lots", "1TiB", "MiB"])
def test_size_refuses_what_it_cannot_read_and_says_what_it_wants(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="is not a size such as 64MiB, 500k"):
        size(text)


@given(st.integers(min_value=1, max_value=10**6), st.sampled_from(["", "k", "KiB", "m", "MiB"]))
def test_size_is_the_number_times_its_unit(number: int, unit: str) -> None:
    factor = {"": 1, "k": 1000, "KiB": 1024, "m": 1000**2, "MiB": 1024**2}[unit]
    assert size(f"{number}{unit}") == number * factor


@pytest.mark.parametrize(("text", "expected"), [("1", 1), ("100000", 100_000), ("+7", 7)])
def test_count_accepts_positive_whole_numbers(text: str, expected: int) -> None:
    assert count(text) == expected


@pytest.mark.parametrize("text", ["0", "-3", "1.5", "ten", ""])
def test_count_refuses_the_rest(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="is not a positive whole number"):
        count(text)


def test_argparse_shows_the_option_and_the_reason() -> None:
    """What a user of the command line sees for a bad value."""
    with pytest.raises(argparse.ArgumentError) as caught:
        parser().parse_args(["--deadline", "inf"])
    assert str(caught.value) == "argument --deadline: 'inf' is not a positive number of seconds"
    with pytest.raises(argparse.ArgumentError) as caught:
        parser().parse_args(["--max-bytes", "lots"])
    assert "argument --max-bytes: 'lots' is not a size" in str(caught.value)


def test_good_values_reach_the_namespace() -> None:
    args = parser().parse_args(["--deadline", "2.5", "--max-bytes", "1MiB", "--max-lines", "9"])
    assert (args.deadline, args.max_bytes, args.max_lines) == (2.5, 1_048_576, 9)
    assert not math.isnan(args.deadline)
