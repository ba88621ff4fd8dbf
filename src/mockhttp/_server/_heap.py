"""Giving memory back after a big JSON body: the shell's one place that talks to the allocator.

A big JSON body is parsed into a tree many times its size (a 10 MiB list of numbers is
~50 MiB of objects).  Two things kept that memory after the request: reference cycles that
hold the tree (python-jsonpath's matches link parents and children; ``_core._match``
unlinks the ones it can reach, a JSONPath with ``..`` leaves others), which only a full
collection frees and a server that allocates few containers seldom runs; and glibc's heap,
which keeps freed pages.  After a request whose parsed body was at least ``BIG_BODY``
bytes, :func:`release` runs a full collection and ``malloc_trim(0)`` (where glibc is).
Both cost a few milliseconds, against the tens that parsing such a body took.

A big admin write (thousands of mocks) makes millions of objects, most of them gone when
it is done: the collector's passes over them ran in whichever thread allocated next, and
stalled every stream for seconds (4 s for 14,000 mocks).  :func:`collector_paused` keeps
the collector off while it runs and, in a process that froze its heap at start (``mockhttp
serve`` does), freezes what the write left alive (the new mocks), so later full passes
skip them too.  (``_core._gc.collector_off`` only keeps it off, where the work leaves
nothing alive: the loader's composing, the hub of ``--workers``.)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["BIG_BODY", "FREEZE_AFTER", "collector_paused", "kept", "release"]

BIG_BODY = 1 << 20  # a parsed body at least this big is followed by release()


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None (musl, macOS, Windows)."""
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError, TypeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_TRIM = _malloc_trim()


def release() -> None:
    """Free what a big parsed body left: its reference cycles, then the allocator's pages."""
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)


FREEZE_AFTER = 500  # mocks kept since the last freeze before the next (or a quarter more)

_FROZE = [False]  # the process froze its heap (known once seen: it is never thawed here)
_KEPT = [0, 0]  # mocks kept since the last freeze; mocks frozen


def _froze() -> bool:
    """True when the process keeps a frozen heap.  ``gc.get_freeze_count()`` walks every
    frozen object (~150,000 at start, more with each mock kept: 80 ms a write on the loaded
    2-core machine at 1,000 mocks), so it is asked only until the answer is yes."""
    if not _FROZE[0]:
        _FROZE[0] = gc.get_freeze_count() > 0  # (no frozen object: an empty walk)
    return _FROZE[0]


def kept(n: int) -> None:
    """``n`` mocks were added and stay: they count toward the next freeze."""
    _KEPT[0] += n


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off for a big piece of admin work (parsing and adding mocks);
    then, when the process keeps a frozen heap (``gc.freeze()`` at start) and enough mocks
    were kept since the last freeze (``FREEZE_AFTER``, or a quarter of those frozen), what
    is alive frozen with it, after a collection of what is not (which costs what was made
    since the last freeze, not what is frozen).

    Not after every write: a freeze also takes whatever is alive at that moment, the
    write's own request among it (its call, its future, its reply: reference cycles), and
    once frozen a cycle is never freed.  Freezing after each write kept ~6 KB of every
    one, rejected writes included (10,000 bad POSTs: +64 MiB); now a rejected write
    freezes nothing, and the few requests in flight at a freeze are spread over hundreds
    of mocks.  In a process that never froze (a test suite using ``Server``), nothing is
    frozen: the collector just resumes."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if _KEPT[0] and _KEPT[0] >= max(FREEZE_AFTER, _KEPT[1] // 4) and _froze():
            gc.collect()  # (frozen objects are not visited)
            gc.freeze()
            _KEPT[1] += _KEPT[0]
            _KEPT[0] = 0
        if was:
            gc.enable()
