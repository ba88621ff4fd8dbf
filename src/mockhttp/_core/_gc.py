"""The cyclic collector kept off for a piece of work (pure: no I/O, no state of ours)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_off"]


@contextmanager
def collector_off() -> Iterator[None]:
    """The cyclic collector off for a piece of work that makes many objects and keeps none
    in a cycle (they go with their last reference): its passes over them held the
    interpreter, and made the work several times slower.  Back on afterwards if it was."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
