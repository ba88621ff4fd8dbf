"""Faults: pure transforms of a reply's plan that break it on purpose.

A fault has two hooks (the ``Fault`` protocol in ``_plan``): ``body`` rewrites the body plan
(``Head``/``Data``/``Pause``/``End``) before framing, ``wire`` rewrites the wire plan
(``Raw``/``Pause``/``End``) after it.  The server chains every fault's ``body``, frames,
then chains every fault's ``wire``.

Rule 1: no I/O and no clock.  A fault that waits yields a ``Pause``; one that cuts yields an
``End``.  Randomness comes from ``random.Random`` seeded by the fault's ``seed`` (and the
call's index for ``sometimes``), so a run replays exactly.
Rule 2: lazy.  Plans may be endless; a fault reads one step at a time and never lists a plan.
Rule 3: never more than promised.  A cut fault stops *in place of* the first byte (or event)
past its limit, so a body no longer than the limit goes out untouched.
Rule 4: byte counts are body bytes (what the client's HTTP library hands over after
de-chunking) unless a fault says ``count="wire"``; then head and chunk framing count too.
Byte cuts work on the wire plan either way (``Raw.body`` says how many body bytes a step
holds), so a cut can fall inside a chunk, as a real dropped connection does.
Rule 5: every piece a fault cuts keeps the ``event`` index of the bytes it holds (a
``slice`` piece that spans events: the index of the event of its last byte).
Rule 6: a hook that rewrites a plan yields nothing after the first ``End``; a hook that does
not apply returns the plan it was given, unread.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, cast

from ._errors import ConfigError
from ._plan import Data, End, EndHow, Fault, FaultContext, Head, Pause, Raw, Step
from ._units import format_seconds, seconds

__all__ = [
    "CloseAfterEvents",
    "Count",
    "EmptyResponse",
    "EndAfterEvents",
    "First",
    "FirstByteDelay",
    "Garbage",
    "Latency",
    "LimitData",
    "MalformedChunk",
    "Reset",
    "ResetAfterBytes",
    "ResetAfterEvents",
    "Slice",
    "Sometimes",
    "Stall",
    "Throttle",
    "TruncateEvent",
]

Count = Literal["body", "wire"]
Steps = Iterator[Step]


# -- argument checks (ConfigError at construction, naming the argument) -------------------


def _check_size(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name}={value!r} must be an int, not {type(value).__name__}")
    if value < 0:
        raise ConfigError(f"{name}={value!r} must be a non-negative int")
    return value


def _check_count(value: object) -> Count:
    if value == "body":
        return "body"
    if value == "wire":
        return "wire"
    raise ConfigError(f"count={value!r} must be 'body' or 'wire'")


def _check_seed(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"seed={value!r} must be an int")
    return value


def _check_fault(value: object) -> Fault:
    if not (callable(getattr(value, "body", None)) and callable(getattr(value, "wire", None))):
        raise ConfigError(
            f"fault={value!r} must be a fault (such as fault.limit_data(100)), "
            f"not {type(value).__name__}"
        )
    return cast(Fault, value)


# -- the base class: passthrough hooks, file form and repr ------------------------------


class _Fault:
    """Shared behaviour: hooks that pass steps through, ``to_args`` and ``repr``."""

    __slots__ = ()
    name: ClassVar[str] = ""
    _durations: ClassVar[tuple[str, ...]] = ()

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        """Rewrite the body plan (before framing); the default passes it through."""
        return steps

    def wire(self, steps: Steps, ctx: FaultContext) -> Steps:
        """Rewrite the wire plan (after framing); the default passes it through."""
        return steps

    def to_args(self) -> list[Any]:
        """The fault's file form: ``[name, positional..., {keyword: value}]``.

        Required arguments are positional; optional ones go in a trailing mapping, and only
        when they differ from the default.  Durations are written as text (``"20ms"``), a
        nested fault as its own file form.  ``fault.from_args`` reads it back.
        """
        positional: list[Any] = []
        keywords: dict[str, Any] = {}
        for field in dataclasses.fields(self):  # type: ignore[arg-type]  # subclasses are dataclasses
            value = self._file_value(field.name)
            if field.default is dataclasses.MISSING:
                positional.append(value)
            elif getattr(self, field.name) != field.default:
                keywords[field.name] = value
        return [self.name, *positional, *([keywords] if keywords else [])]

    def _file_value(self, name: str) -> Any:
        value = getattr(self, name)
        if name in self._durations:
            return _duration_form(value)
        if name == "fault":
            to_args = getattr(value, "to_args", None)
            if to_args is None:
                raise ConfigError(f"fault={value!r} has no file form (no to_args method)")
            return to_args()
        return value

    def __repr__(self) -> str:
        args: list[str] = []
        for field in dataclasses.fields(self):  # type: ignore[arg-type]  # subclasses are dataclasses
            value = getattr(self, field.name)
            text = repr(_duration_form(value) if field.name in self._durations else value)
            if field.default is dataclasses.MISSING:
                args.append(text)
            elif value != field.default:
                args.append(f"{field.name}={text}")
        return f"{self.name}({', '.join(args)})"


def _duration_form(value: float) -> str | float:
    """Text such as ``"20ms"`` when it reads back to ``value`` exactly, else the float."""
    text = format_seconds(value)
    try:
        same = seconds(text) == value
    except ConfigError:  # format_seconds can write exponents (1e-07s) that seconds() refuses
        same = False
    return text if same else value


# -- shared cutting helpers -------------------------------------------------------------


def _cut_body(steps: Steps, n: int, end: End) -> Steps:
    """On the wire plan: pass ``n`` body bytes, then ``end`` in place of byte ``n + 1``.

    The cut may fall inside a chunk: its size line, already sent, announces more bytes than
    follow, as when a connection drops mid-write.  A chunk of which no body byte may go is
    not started.
    """
    sent = 0
    for step in steps:
        if isinstance(step, Raw) and step.body:
            room = n - sent
            if step.body > room:
                if room:
                    yield Raw(step.data[: _wire_offset(step, room)], room, step.event)
                yield end
                return
            sent += step.body
        yield step
        if isinstance(step, End):
            return


def _wire_offset(raw: Raw, k: int) -> int:
    """Where the first ``k`` body bytes of ``raw`` end in ``raw.data``."""
    if raw.body == len(raw.data):
        return k
    # A chunk frame: "<hex size>\r\n<body>\r\n" (RFC 9112 §7.1).
    return raw.data.index(b"\r\n") + 2 + k


def _body_within(raw: Raw, k: int) -> int:
    """How many of ``raw.body`` body bytes lie in the first ``k`` bytes of ``raw.data``."""
    if raw.body == 0:
        return 0
    if raw.body == len(raw.data):
        return min(k, raw.body)
    # A chunk frame: "<hex size>\r\n<body>\r\n" (RFC 9112 §7.1).
    start = raw.data.index(b"\r\n") + 2
    return max(0, min(k - start, raw.body))


def _cut_wire(steps: Steps, n: int, end: End) -> Steps:
    """Pass ``n`` wire bytes (head and framing included), then ``end``."""
    sent = 0
    for step in steps:
        if isinstance(step, Raw) and step.data:
            room = n - sent
            if len(step.data) > room:
                if room:
                    yield Raw(step.data[:room], _body_within(step, room), step.event)
                yield end
                return
            sent += len(step.data)
        yield step
        if isinstance(step, End):
            return


def _cut_events(steps: Steps, k: int, end: End) -> Steps:
    """Pass ``k`` whole events, then ``end`` in place of the next event's first byte.

    Events are counted as they appear (a new ``Data.event`` index starts one); ``Data``
    without an event index (a plain body) never counts, so a plain body passes untouched.
    """
    seen = 0
    current: int | None = None
    for step in steps:
        if isinstance(step, Data) and step.event is not None and step.event != current:
            if seen == k:
                yield end
                return
            seen += 1
            current = step.event
        yield step
        if isinstance(step, End):
            return


def _until_end(steps: Steps) -> Steps:
    """The steps up to and including the first ``End`` (a hook never yields past it)."""
    for step in steps:
        yield step
        if isinstance(step, End):
            return


def _end_before_head(steps: Steps, how: EndHow) -> Steps:
    """Keep the pauses before the head (``latency``), then end before any byte."""
    for step in steps:
        if not isinstance(step, Pause):
            break
        yield step
    yield End(how)


# -- cuts: close, reset, stall ------------------------------------------------------------


@dataclass(frozen=True, slots=True, repr=False)
class _BytesCut(_Fault):
    """``n`` bytes reach the client, then the connection ends as ``end`` says."""

    end: ClassVar[EndHow]
    n: int
    count: Count = "body"

    def __post_init__(self) -> None:
        _check_size("n", self.n)
        _check_count(self.count)

    def wire(self, steps: Steps, ctx: FaultContext) -> Steps:
        cut = _cut_body if self.count == "body" else _cut_wire
        return cut(steps, self.n, End(self.end))


@dataclass(frozen=True, slots=True, repr=False)
class LimitData(_BytesCut):
    """Exactly ``n`` bytes reach the client, then a clean close mid-body."""

    name: ClassVar[str] = "limit_data"
    end: ClassVar[EndHow] = "close"


@dataclass(frozen=True, slots=True, repr=False)
class ResetAfterBytes(_BytesCut):
    """``n`` bytes reach the client, then a TCP reset."""

    name: ClassVar[str] = "reset_after_bytes"
    end: ClassVar[EndHow] = "reset"


@dataclass(frozen=True, slots=True, repr=False)
class _EventsCut(_Fault):
    """``k`` whole events reach the client, then the connection ends as ``end`` says."""

    end: ClassVar[EndHow]
    k: int

    def __post_init__(self) -> None:
        _check_size("k", self.k)

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        return _cut_events(steps, self.k, End(self.end))


@dataclass(frozen=True, slots=True, repr=False)
class CloseAfterEvents(_EventsCut):
    """``k`` whole events reach the client, then a clean close."""

    name: ClassVar[str] = "close_after_events"
    end: ClassVar[EndHow] = "close"


@dataclass(frozen=True, slots=True, repr=False)
class EndAfterEvents(_EventsCut):
    """``k`` whole events reach the client, then the body ends as a complete one (the
    last chunk sent, the connection kept): a server closing a stream on purpose."""

    name: ClassVar[str] = "end_after_events"
    end: ClassVar[EndHow] = "complete"


@dataclass(frozen=True, slots=True, repr=False)
class ResetAfterEvents(_EventsCut):
    """``k`` whole events reach the client, then a TCP reset."""

    name: ClassVar[str] = "reset_after_events"
    end: ClassVar[EndHow] = "reset"


@dataclass(frozen=True, slots=True, repr=False)
class EmptyResponse(_Fault):
    """Close the connection before any byte of the reply."""

    name: ClassVar[str] = "empty_response"

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        return _end_before_head(steps, "close")


@dataclass(frozen=True, slots=True, repr=False)
class Reset(_Fault):
    """Reset the connection before any byte of the reply."""

    name: ClassVar[str] = "reset"

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        return _end_before_head(steps, "reset")


@dataclass(frozen=True, slots=True, repr=False)
class Stall(_Fault):
    """Stop sending and keep the connection open, after some bytes or events."""

    name: ClassVar[str] = "stall"
    after_bytes: int | None = None
    after_events: int | None = None

    def __post_init__(self) -> None:
        if self.after_bytes is not None and self.after_events is not None:
            raise ConfigError(
                f"after_bytes={self.after_bytes!r} and after_events={self.after_events!r} "
                "were both given; give one of them (or neither, to stall before the head)"
            )
        if self.after_bytes is not None:
            _check_size("after_bytes", self.after_bytes)
        if self.after_events is not None:
            _check_size("after_events", self.after_events)

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        if self.after_bytes is not None:
            return steps
        if self.after_events is not None:
            return _cut_events(steps, self.after_events, End("stall"))
        return _end_before_head(steps, "stall")

    def wire(self, steps: Steps, ctx: FaultContext) -> Steps:
        if self.after_bytes is None:
            return steps
        return _cut_body(steps, self.after_bytes, End("stall"))


@dataclass(frozen=True, slots=True, repr=False)
class TruncateEvent(_Fault):
    """Cut event ``k`` (0-based) after ``at`` of its bytes, then close."""

    name: ClassVar[str] = "truncate_event"
    k: int
    at: int | None = None

    def __post_init__(self) -> None:
        _check_size("k", self.k)
        if self.at is not None and (isinstance(self.at, bool) or not isinstance(self.at, int)):
            raise ConfigError(f"at={self.at!r} must be an int (negative counts from the end)")

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        seen = 0
        current: int | None = None
        for step in steps:
            if isinstance(step, Data) and step.event is not None and step.event != current:
                current = step.event
                if seen == self.k:
                    yield from self._cut(step, steps)
                    return
                seen += 1
            yield step
            if isinstance(step, End):
                return

    def _cut(self, first: Data, steps: Steps) -> Steps:
        # Hold the whole event (its Data and any pauses inside it) to know its length.
        held: list[Data | Pause] = [first]
        for step in steps:
            if not (
                isinstance(step, Pause) or (isinstance(step, Data) and step.event == first.event)
            ):
                break
            held.append(step)
        size = sum(len(s.data) for s in held if isinstance(s, Data))
        room = self.position(size)
        for step in held:
            if room <= 0:
                break
            if isinstance(step, Data):
                yield Data(step.data[:room], step.event)
                room -= len(step.data)
            else:
                yield step
        yield End("close")

    def position(self, size: int) -> int:
        """Where an event of ``size`` bytes is cut: ``at`` (default half), clamped so that
        at least its last byte is missing."""
        at = size // 2 if self.at is None else self.at
        if at < 0:
            at += size
        return max(0, min(at, size - 1))


# -- timing: latency, first byte delay, throttle, slice ------------------------------------


@dataclass(frozen=True, slots=True, repr=False)
class Latency(_Fault):
    """Wait before the status line."""

    name: ClassVar[str] = "latency"
    _durations: ClassVar[tuple[str, ...]] = ("seconds",)
    seconds: float

    def __post_init__(self) -> None:
        seconds(self.seconds, "seconds")

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        yield Pause(self.seconds)
        yield from _until_end(steps)


@dataclass(frozen=True, slots=True, repr=False)
class FirstByteDelay(_Fault):
    """Send the head at once, then wait before the first body byte."""

    name: ClassVar[str] = "first_byte_delay"
    _durations: ClassVar[tuple[str, ...]] = ("seconds",)
    seconds: float

    def __post_init__(self) -> None:
        seconds(self.seconds, "seconds")

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        headed = False
        for step in steps:
            if headed and (isinstance(step, End) or (isinstance(step, Data) and step.data)):
                yield Pause(self.seconds)
                yield from _until_end(itertools.chain((step,), steps))
                return
            headed = headed or isinstance(step, Head)
            yield step
            if isinstance(step, End):
                return


@dataclass(frozen=True, slots=True, repr=False)
class Throttle(_Fault):
    """Send the body no faster than ``bytes_per_second``."""

    name: ClassVar[str] = "throttle"
    bytes_per_second: float

    def __post_init__(self) -> None:
        rate = self.bytes_per_second
        if isinstance(rate, bool) or not isinstance(rate, int | float):
            raise ConfigError(f"bytes_per_second={rate!r} must be a number")
        if not (math.isfinite(rate) and rate > 0):
            raise ConfigError(f"bytes_per_second={rate!r} must be a finite number above 0")

    @property
    def piece(self) -> int:
        """Bytes per piece: about 20 ms worth at this rate, at least 1."""
        return max(1, int(self.bytes_per_second * 0.02))

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        # Zero-burst pacing: the next piece may leave once the previous pieces' time
        # (bytes / rate) has passed; pauses already in the plan count towards that wait.
        owed = 0.0
        for step in steps:
            if isinstance(step, Pause):
                owed = max(0.0, owed - step.seconds)
                yield step
            elif isinstance(step, Data) and step.data:
                for start in range(0, len(step.data), self.piece):
                    if owed > 0:
                        yield Pause(owed)
                    chunk = step.data[start : start + self.piece]
                    yield Data(chunk, step.event)
                    owed = len(chunk) / self.bytes_per_second
            else:
                yield step
                if isinstance(step, End):
                    return


@dataclass(frozen=True, slots=True, repr=False)
class Slice(_Fault):
    """Send the body in pieces of ``size`` bytes, ``delay`` apart."""

    name: ClassVar[str] = "slice"
    _durations: ClassVar[tuple[str, ...]] = ("delay",)
    size: int
    delay: float = 0.0

    def __post_init__(self) -> None:
        _check_size("size", self.size)
        if self.size == 0:
            raise ConfigError("size=0 must be at least 1 (bytes per piece)")
        seconds(self.delay, "delay")

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        # Pieces run on across Data steps (and so across events); the piece being filled
        # goes out before any other step, so no byte leaves later than the plan says.
        held = b""
        event: int | None = None
        first = True
        for step in steps:
            if isinstance(step, Data):
                data = held + step.data
                whole = len(data) - len(data) % self.size
                for start in range(0, whole, self.size):
                    yield from self._piece(data[start : start + self.size], step.event, first)
                    first = False
                held = data[whole:]
                if step.data:
                    event = step.event
                continue
            if held:
                yield from self._piece(held, event, first)
                held, first = b"", False
            yield step
            if isinstance(step, End):
                return

    def _piece(self, data: bytes, event: int | None, first: bool) -> Steps:
        # A piece is tagged with the event of its last byte (Rule 5, for pieces that span).
        if self.delay and not first:
            yield Pause(self.delay)
        yield Data(data, event)


# -- framing breakers: garbage, malformed chunk -----------------------------------------


@dataclass(frozen=True, slots=True, repr=False)
class Garbage(_Fault):
    """A valid head, then ``n`` seeded random bytes instead of the body, then close."""

    name: ClassVar[str] = "garbage"
    n: int
    seed: int = 0

    def __post_init__(self) -> None:
        _check_size("n", self.n)
        _check_seed(self.seed)

    @property
    def data(self) -> bytes:
        """The bytes sent after the head (the same for every call)."""
        return random.Random(self.seed).randbytes(self.n)

    def wire(self, steps: Steps, ctx: FaultContext) -> Steps:
        for step in steps:
            yield step
            if isinstance(step, End):
                return
            if isinstance(step, Raw):  # the first Raw is the head
                if self.n:
                    yield Raw(self.data)
                yield End("close")
                return


MALFORMED_SIZE_LINE = b"zz\r\n"


@dataclass(frozen=True, slots=True, repr=False)
class MalformedChunk(_Fault):
    """Force chunked framing and send the first chunk with a size line that is not hex."""

    name: ClassVar[str] = "malformed_chunk"

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        for step in steps:
            if isinstance(step, Head) and step.length is not None:
                step = dataclasses.replace(step, length=None)
            yield step
            if isinstance(step, End):
                return

    def wire(self, steps: Steps, ctx: FaultContext) -> Steps:
        headed = False
        for step in steps:
            if headed and isinstance(step, Raw) and _is_chunk(step):
                payload = step.data[step.data.index(b"\r\n") + 2 :]
                yield Raw(MALFORMED_SIZE_LINE + payload, 0, step.event)
                yield End("close")
                return
            headed = headed or isinstance(step, Raw)
            yield step
            if isinstance(step, End):
                return


def _is_chunk(raw: Raw) -> bool:
    """A chunk frame (``hex\\r\\n…\\r\\n``) or the last chunk ``0\\r\\n\\r\\n``."""
    return (0 < raw.body < len(raw.data)) or raw.data == b"0\r\n\r\n"


# -- chaos: sometimes, first ------------------------------------------------------------


@dataclass(frozen=True, slots=True, repr=False)
class Sometimes(_Fault):
    """Apply ``fault`` to a call with probability ``p``, decided by ``seed`` and the call."""

    name: ClassVar[str] = "sometimes"
    p: float
    fault: Fault
    seed: int = 0

    def __post_init__(self) -> None:
        p = self.p
        if isinstance(p, bool) or not isinstance(p, int | float):
            raise ConfigError(f"p={p!r} must be a probability (a number from 0 to 1)")
        if not 0 <= p <= 1:
            raise ConfigError(f"p={p!r} must be a probability from 0 to 1")
        _check_fault(self.fault)
        _check_seed(self.seed)

    def applies(self, call_index: int) -> bool:
        """Whether the fault applies to the call with this 0-based index."""
        # A text seed is hashed with SHA-512 by random.Random: stable across runs and
        # PYTHONHASHSEED, and independent for each call.
        return random.Random(f"sometimes:{self.seed}:{call_index}").random() < self.p

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        return self.fault.body(steps, ctx) if self.applies(ctx.call_index) else steps

    def wire(self, steps: Steps, ctx: FaultContext) -> Steps:
        return self.fault.wire(steps, ctx) if self.applies(ctx.call_index) else steps


@dataclass(frozen=True, slots=True, repr=False)
class First(_Fault):
    """Apply ``fault`` to the first ``n`` calls of the mock only."""

    name: ClassVar[str] = "first"
    n: int
    fault: Fault

    def __post_init__(self) -> None:
        _check_size("n", self.n)
        _check_fault(self.fault)

    def body(self, steps: Steps, ctx: FaultContext) -> Steps:
        return self.fault.body(steps, ctx) if ctx.call_index < self.n else steps

    def wire(self, steps: Steps, ctx: FaultContext) -> Steps:
        return self.fault.wire(steps, ctx) if ctx.call_index < self.n else steps
