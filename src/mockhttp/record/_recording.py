"""A recording: a reply that replays the bytes and timing an upstream sent.

``Recording`` is a ``Reply``, so it goes wherever a reply goes (``mock.reply(...)``,
faults in ``pipe``, mock files).  It keeps the writes as they arrived; its plan pauses
between them as they were apart (divided by ``speed``; not at all with ``timing="none"``),
splits them where events end (so event faults and the journal count events), and ends as
the upstream did (``end``: ``complete``, or ``close`` / ``reset`` for a cut connection).
A ``variant`` (see ``_variants``) replays a derived form of the same stream.
"""

from __future__ import annotations

import base64
import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from .._core._errors import ConfigError
from .._core._plan import Data, End, EndHow, Head, Pause, Step
from .._core._registry import ReplyKind
from .._core._reply import Reply
from .._core._request import Request
from .._core._units import format_seconds
from .._mockfile._forms import FlowMap, Quoted
from ._pieces import Write, body_of, data_steps

__all__ = ["ENDS", "TIMINGS", "Recording", "Timing"]

# The variant maker, registered by ``_variants`` (which imports this module, not the reverse).
DERIVE: list[Callable[[Recording, str], Played]] = []

Timing = Literal["original", "none"]
TIMINGS: tuple[Timing, ...] = ("original", "none")
ENDS: tuple[EndHow, ...] = ("complete", "close", "reset")


@dataclass(frozen=True, slots=True)
class Played:
    """What a recording (or one of its variants) sends: writes, announced length, end."""

    writes: tuple[Write, ...]
    length: int | None
    end: EndHow


@dataclass(frozen=True, slots=True)
class Recording(Reply, ReplyKind):
    """A recorded reply, and the composing reply kind ``recording`` of mock files.

    Status, reason, headers and the delay before the head are the ``Reply``'s; the body
    is ``writes``.

    Attributes:
        writes: the body as it arrived, read by read, with when (seconds after the head).
        length: the ``Content-Length`` the upstream announced (None: it was not, and the
            replay is chunked).
        end: ``complete``; ``close`` or ``reset`` when the upstream cut the connection.
        timing: ``original`` replays the pauses; ``none`` sends everything at once.
        speed: divides every pause (2 replays twice as fast).
        variant: the name of a variant of the stream to send instead (see
            :func:`mockhttp.variants`).
        truncated: None for a whole recording; else the body bytes the upstream sent,
            of which ``writes`` hold only the first (the recorder's
            ``max_recording_size``): such a recording ends as ``close``.
    """

    writes: tuple[Write, ...] = ()
    length: int | None = None
    end: EndHow = "complete"
    timing: Timing = "original"
    speed: float = 1.0
    variant: str | None = None
    truncated: int | None = None
    played: Played = field(init=False, compare=False, repr=False)
    file_key: ClassVar[str] = "recording"
    composes: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if not isinstance(self.writes, tuple) or not all(isinstance(w, Write) for w in self.writes):
            raise ConfigError(f"writes={self.writes!r} must be a tuple of Write")
        if self.length is not None and (type(self.length) is not int or self.length < 0):
            raise ConfigError(f"length={self.length!r} must be a non-negative int or None")
        if self.truncated is not None and (type(self.truncated) is not int or self.truncated < 0):
            raise ConfigError(f"truncated={self.truncated!r} must be a byte count or None")
        if self.end not in ENDS:
            raise ConfigError(f"end={self.end!r} must be one of {', '.join(ENDS)}")
        if self.timing not in TIMINGS:
            raise ConfigError(f"timing={self.timing!r} must be one of {', '.join(TIMINGS)}")
        speed = self.speed
        if isinstance(speed, bool) or not isinstance(speed, int | float) or not speed > 0:
            raise ConfigError(f"speed={speed!r} must be a number above 0 (2: twice as fast)")
        if speed == float("inf"):
            raise ConfigError("speed=inf: use timing='none' to replay without pauses")
        object.__setattr__(self, "speed", float(speed))
        base = Played(self.writes, self.length, self.end)
        if self.variant is not None:
            base = DERIVE[0](self, self.variant)  # set by _variants, which reads recordings
        object.__setattr__(self, "played", base)

    @property
    def body_bytes(self) -> bytes:
        """The recorded body (before any variant)."""
        return body_of(self.writes)

    @property
    def is_event_stream(self) -> bool:
        """True when the reply's ``Content-Type`` is ``text/event-stream``."""
        return any(
            k.lower() == "content-type" and "event-stream" in v.lower() for k, v in self.headers
        )

    def with_(self, **changes: object) -> Recording:
        """A copy with ``changes`` (``timing``, ``speed``, ``variant``, ...)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def head(self) -> Head:
        return Head(self.status_code, self.reason, self.headers, self.played.length)

    def plan(self) -> Iterator[Step]:
        timed = self.timing == "original"
        if self.head_delay and timed:
            yield Pause(self.head_delay / self.speed)
        yield self.head()
        last = 0.0
        for at, data in data_steps(self.played.writes, self.is_event_stream):
            if timed and at > last:
                yield Pause((at - last) / self.speed)
            last = max(last, at)
            yield Data(data.data, data.event)
        yield End(self.played.end)

    def build(self, request: Request) -> Reply:
        return self  # a fixed reply: the same for every request

    def to_args(self) -> dict[str, Any]:
        """The ``recording`` value of a mock file (options that differ, then writes)."""
        out: dict[str, Any] = {}
        if self.length is not None:
            out["length"] = self.length
        if self.end != "complete":
            out["end"] = self.end
        if self.timing != "original":
            out["timing"] = self.timing
        if self.speed != 1:
            out["speed"] = int(self.speed) if self.speed.is_integer() else self.speed
        if self.variant is not None:
            out["variant"] = self.variant
        if self.truncated is not None:
            out["truncated"] = self.truncated
        out["writes"] = [_write_form(w) for w in self.writes]
        return out

    def describe(self) -> str:
        what = f"{self.status_code} recording ({len(self.writes)} writes"
        if self.variant is not None:
            what += f", variant {self.variant}"
        if self.truncated is not None:
            what += f", truncated: {self.truncated} bytes sent"
        return what + ")"


def _write_form(w: Write) -> FlowMap:
    """``{at: 20ms, data: "..."}`` (text double-quoted), or base64 for bytes not UTF-8."""
    try:
        return FlowMap(at=_at(w.at), data=Quoted(w.data.decode("utf-8")))
    except UnicodeDecodeError:
        return FlowMap(at=_at(w.at), base64=base64.b64encode(w.data).decode("ascii"))


def _at(value: float) -> str:
    text = format_seconds(value)
    if text.endswith("ms") or text == "0s":
        return text
    ms = f"{value * 1000:.3f}".rstrip("0").rstrip(".")
    return f"{ms}ms"
