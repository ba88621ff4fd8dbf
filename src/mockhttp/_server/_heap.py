"""Giving memory back after a big JSON body: the shell's one place that talks to the allocator.

A big JSON body is parsed into a tree many times its size (a 10 MiB list of numbers is
~50 MiB of objects).  Two things kept that memory after the request: reference cycles that
hold the tree (python-jsonpath's matches link parents and children; ``_core._match``
unlinks the ones it can reach, a JSONPath with ``..`` leaves others), which only a full
collection frees and a server that allocates few containers seldom runs; and glibc's heap,
which keeps freed pages.  After a request whose parsed body was at least ``BIG_BODY``
bytes, :func:`release` runs a full collection and ``malloc_trim(0)`` (where glibc is).
Both cost a few milliseconds, against the tens that parsing such a body took.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from collections.abc import Callable

__all__ = ["BIG_BODY", "release"]

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
