"""``collector_off`` (_core/_gc.py): the cyclic collector off for a piece of work, and
back as it was."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from mockhttp._core._gc import collector_off


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_off_inside_and_on_after_when_it_was_on() -> None:
    gc.enable()
    with collector_off():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_left_off_after_when_it_was_off() -> None:
    gc.disable()
    with collector_off():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_back_on_after_an_error_inside() -> None:
    gc.enable()
    with pytest.raises(ValueError, match="inside"), collector_off():
        raise ValueError("inside")
    assert gc.isenabled()


def test_nested_uses_restore_in_turn() -> None:
    gc.enable()
    with collector_off():
        with collector_off():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer one still holds it off
    assert gc.isenabled()


def test_no_collection_runs_inside_however_much_is_made() -> None:
    gc.enable()
    before = gc.get_stats()[0]["collections"]
    with collector_off():
        made = [[i] for i in range(200_000)]  # far past generation 0's threshold
        assert gc.get_stats()[0]["collections"] == before
    del made
