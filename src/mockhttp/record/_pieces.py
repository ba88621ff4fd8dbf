"""Writes as they arrived, and where the events in them end.

A recorded body is a sequence of :class:`Write`: the bytes one read returned and when
(seconds after the head).  Events end at a blank line (``\\n``, ``\\r\\n`` or ``\\r``
line ends, as the event-stream format allows); :func:`event_ends` finds those offsets so a
replay can tag each byte with its event, as the core's event streams do.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from .._core._errors import ConfigError
from .._core._plan import Data

__all__ = ["Write", "body_of", "data_steps", "event_ends"]


@dataclass(frozen=True, slots=True)
class Write:
    """``data`` arrived ``at`` seconds after the head (kept to the microsecond)."""

    at: float
    data: bytes

    def __post_init__(self) -> None:
        if isinstance(self.at, bool) or not isinstance(self.at, int | float) or not self.at >= 0:
            raise ConfigError(f"write at={self.at!r} must be a number of seconds >= 0")
        if not isinstance(self.data, bytes):
            raise ConfigError(f"write data={self.data!r} must be bytes")
        object.__setattr__(self, "at", round(float(self.at), 6))


def body_of(writes: Sequence[Write]) -> bytes:
    """The body: every write's bytes, in order."""
    return b"".join(w.data for w in writes)


def event_ends(body: bytes) -> list[int]:
    """The offsets just after each blank line that ends a block of lines (an event, or a
    comment block), for any mix of ``\\r\\n``, ``\\n`` and ``\\r`` line ends."""
    ends: list[int] = []
    n = len(body)
    i = line_start = 0
    pending = False
    while i < n:
        c = body[i]
        if c != 10 and c != 13:
            i += 1
            continue
        j = i + 2 if c == 13 and i + 1 < n and body[i + 1] == 10 else i + 1
        if i == line_start:
            if pending:
                ends.append(j)
            pending = False
        else:
            pending = True
        i = line_start = j
    return ends


def data_steps(writes: Sequence[Write], stream: bool) -> Iterator[tuple[float, Data]]:
    """``(at, Data)`` for each write, split where events end so each ``Data`` holds one
    event's bytes (tagged with its index) when ``stream``; whole writes otherwise."""
    if not stream:
        for w in writes:
            yield w.at, Data(w.data)
        return
    ends = event_ends(body_of(writes))
    event = 0
    offset = 0
    for w in writes:
        data = w.data
        start = 0
        while start < len(data):
            stop = len(data)
            if event < len(ends) and ends[event] - offset < stop:
                stop = ends[event] - offset
            yield w.at, Data(data[start:stop], event)
            if event < len(ends) and offset + stop == ends[event]:
                event += 1
            start = stop
        offset += len(data)
