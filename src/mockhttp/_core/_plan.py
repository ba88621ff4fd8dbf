"""Plans: what the server will do for one reply, as a lazy sequence of steps.

A reply compiles to a *body plan*: ``Head``, then ``Data`` and ``Pause`` steps, then one
``End``.  Faults transform that plan (``Plan -> Plan``), framing turns it into a *wire plan*
of ``Raw`` bytes, ``Pause`` and ``End`` steps, and wire faults transform that in turn.  The
executor (``_server``) is the only part that touches a socket or a clock.

Rule 1: steps are plain frozen data; nothing here does I/O or reads a clock.
Rule 2: pauses are relative to the previous step; the executor turns them into absolute
deadlines from the reply's start, so timing does not drift.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = [
    "Data",
    "End",
    "EndHow",
    "Fault",
    "FaultContext",
    "Head",
    "Pause",
    "Plan",
    "Raw",
    "Source",
    "Step",
    "Wait",
]

EndHow = Literal["complete", "close", "reset", "stall"]


@dataclass(frozen=True, slots=True)
class Head:
    """The status line and headers.  ``length`` None means the body length is not known
    up front (chunked transfer coding, or close-delimited for HTTP/1.0 clients)."""

    status: int
    reason: str
    headers: tuple[tuple[str, str], ...]
    length: int | None


@dataclass(frozen=True, slots=True)
class Data:
    """Body bytes, before transfer coding.  ``event`` is the index of the event they belong
    to in an event stream, or None for a plain body.  Bytes that span events (a piece made
    by ``fault.slice``) carry the index of the event of their last byte."""

    data: bytes
    event: int | None = None


@dataclass(frozen=True, slots=True)
class Raw:
    """Bytes exactly as they go on the wire (after framing).  ``body`` counts how many of
    them are body bytes (the rest is head or chunk framing); ``event`` as in ``Data``."""

    data: bytes
    body: int = 0
    event: int | None = None


@dataclass(frozen=True, slots=True)
class Pause:
    """Send nothing for ``seconds`` (relative to the previous step's deadline)."""

    seconds: float


@dataclass(frozen=True, slots=True)
class End:
    """How the reply ends.

    ``complete``: the message is whole (the connection may be reused);
    ``close``: a clean TCP close (FIN) now, whatever was promised;
    ``reset``: a TCP reset (RST), the client sees ECONNRESET;
    ``stall``: keep the connection open and send nothing more until the client hangs up.
    """

    how: EndHow = "complete"


@dataclass(frozen=True, slots=True)
class Wait:
    """Send nothing until ``source`` has more steps (a plan fed while it is sent, see
    ``_feed.Feed``).  The executor calls ``source.wake(callback)`` and resumes when the
    callback runs (from any thread); timing then restarts from that moment."""

    source: Source


class Source(Protocol):
    """What a ``Wait`` waits on: ``wake(callback)`` calls ``callback`` once (from any
    thread) when more steps are ready, at once if they already are; ``status`` is the
    status of the head it has produced (None before it)."""

    @property
    def status(self) -> int | None: ...

    def wake(self, callback: Callable[[], None]) -> None: ...


Step = Head | Data | Raw | Pause | End | Wait
Plan = Iterable[Step]


@dataclass(frozen=True, slots=True)
class FaultContext:
    """What a fault may know about the call it applies to.

    ``call_index`` is 0 for the first call of the mock, 1 for the second, and so on.
    """

    call_index: int = 0


class Fault(Protocol):
    """A fault: a pure transform of a reply's plan.

    ``body`` sees the plan before framing (``Head``/``Data``/``Pause``/``End``),
    ``wire`` sees it after (``Raw``/``Pause``/``End``).  Either may pass steps through.
    """

    def body(self, steps: Iterator[Step], ctx: FaultContext) -> Iterator[Step]: ...

    def wire(self, steps: Iterator[Step], ctx: FaultContext) -> Iterator[Step]: ...
