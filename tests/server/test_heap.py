"""Giving memory back (_server/_heap.py): ``release`` frees what cycles hold, and
``collector_paused`` keeps the collector off for a big admin write and freezes what it
left alive only in a process that froze its heap, and only after enough mocks.

The freeze is for good (a frozen object is never freed), so the tests that freeze run in
a fresh interpreter of their own."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from mockhttp._server import _heap
from mockhttp._server._heap import BIG_BODY, FREEZE_AFTER, collector_paused, kept, release

SRC = str(Path(_heap.__file__).resolve().parents[2])


@pytest.fixture(autouse=True)
def _fresh_counts(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The module's counts of this test alone, and the collector as it was."""
    monkeypatch.setattr(_heap, "_KEPT", [0, 0])
    monkeypatch.setattr(_heap, "_FROZE", [False])
    was = gc.isenabled()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def test_release_frees_what_only_a_cycle_held() -> None:
    gc.disable()  # as in a server that allocates few containers: no pass would come
    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    assert gone() is not None  # the cycle keeps it
    release()
    assert gone() is None


def test_glibc_s_trim_is_found_where_glibc_is() -> None:
    import platform

    if platform.system() != "Linux" or platform.libc_ver()[0] != "glibc":
        pytest.skip("malloc_trim is glibc's")
    trim = _heap._malloc_trim()
    assert trim is not None
    assert trim(0) in (0, 1)  # 1: memory was given back, 0: there was none to give


def test_the_numbers() -> None:
    assert BIG_BODY == 1024 * 1024
    assert FREEZE_AFTER == 500


def test_paused_is_off_inside_and_back_after_even_on_an_error() -> None:
    gc.enable()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("a rejected write")
    assert gc.isenabled()
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_a_process_that_never_froze_freezes_nothing() -> None:
    if gc.get_freeze_count():
        pytest.skip("this interpreter froze its heap (not a plain test process)")
    kept(FREEZE_AFTER * 2)
    with collector_paused():
        pass
    assert gc.get_freeze_count() == 0
    assert _heap._KEPT == [FREEZE_AFTER * 2, 0]  # still counted, for a freeze to come


def _run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": SRC, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_in_a_frozen_process_what_a_big_write_left_is_frozen() -> None:
    out = _run(
        """
        import gc
        from mockhttp._server import _heap
        from mockhttp._server._heap import FREEZE_AFTER, collector_paused, kept

        gc.freeze()  # as mockhttp serve does at start
        start = gc.get_freeze_count()

        def write(n):
            alive = [[i] for i in range(n)]  # the new mocks
            with collector_paused():
                kept(n)
            return alive

        small = write(10)  # too few mocks: nothing frozen
        print(gc.get_freeze_count() == start, _heap._KEPT)
        with collector_paused():  # a rejected write: nothing kept, nothing frozen
            pass
        print(gc.get_freeze_count() == start, _heap._KEPT)
        big = write(FREEZE_AFTER)  # 510 since the last freeze: frozen, with what lives
        print(gc.get_freeze_count() >= start + FREEZE_AFTER, _heap._KEPT)
        print(gc.isenabled())
        """
    )
    assert out.splitlines() == [
        "True [10, 0]",
        "True [10, 0]",
        f"True [0, {FREEZE_AFTER + 10}]",
        "True",
    ]


def test_after_many_frozen_the_next_freeze_waits_for_a_quarter_more() -> None:
    out = _run(
        """
        import gc
        from mockhttp._server import _heap
        from mockhttp._server._heap import collector_paused, kept

        gc.freeze()
        _heap._KEPT[1] = 4000  # mocks frozen so far: the next freeze after 1,000 more
        for n in (600, 399, 1):
            before = gc.get_freeze_count()
            with collector_paused():
                kept(n)
            print(gc.get_freeze_count() > before, _heap._KEPT)
        """
    )
    assert out.splitlines() == [
        "False [600, 4000]",
        "False [999, 4000]",
        "True [0, 5000]",
    ]
