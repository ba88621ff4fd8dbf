"""Faults: break a mock's reply on purpose, byte-exactly, composably and seeded.

A mock takes faults with ``.pipe(fault.a(...), fault.b(...))``; they apply in order, to event
streams and plain bodies alike::

    server.mock(mockhttp.post("/v1/chat/completions")
                .pipe(fault.limit_data(100))
                .reply(mockhttp.ok().event_stream(...)))

Counting: byte counts are **body bytes** -- what the client's HTTP library hands to it after
de-chunking -- unless ``count="wire"`` says to count every byte on the wire (status line,
headers and chunk framing included).  Events are counted as they appear in the stream,
from 0.

Cuts happen *in place of* the first byte (or event) past the limit: a body no longer than the
limit goes out untouched, and a fault never delivers more than it promises.  A cut chunked
body never gets its last chunk (``0\\r\\n\\r\\n``), and a cut ``Content-Length`` body is shorter
than announced, so HTTP clients report an incomplete read.  (Only a close-delimited body --
an HTTP/1.0 client -- cannot show a clean close as a cut; use a reset there.)

Ends: *close* is a clean TCP close (FIN: the client reads EOF), *reset* a TCP reset (RST: the
client's read fails with ECONNRESET), *stall* sends nothing more and keeps the connection
open until the client hangs up or the server closes.

File form: each fault is ``[name, positional..., {keyword: value}]`` in a mock file, e.g.
``[limit_data, 100]``, ``[limit_data, 100, {count: wire}]``, ``[stall, {after_events: 2}]``,
``[latency, 20ms]``.  ``sometimes`` and ``first`` nest the fault they wrap as their own file
form: ``[sometimes, 0.5, [limit_data, 100], {seed: 1}]``, ``[first, 2, [reset]]``.
``fault.to_args()`` writes it, :func:`from_args` reads it, and :data:`FAULTS` maps each name
to its constructor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._core._fault import (
    CloseAfterEvents,
    Count,
    EmptyResponse,
    EndAfterEvents,
    First,
    FirstByteDelay,
    Garbage,
    Latency,
    LimitData,
    MalformedChunk,
    Reset,
    ResetAfterBytes,
    ResetAfterEvents,
    Slice,
    Sometimes,
    Stall,
    Throttle,
    TruncateEvent,
)
from ._core._forms import call_form, is_form
from ._core._plan import Fault as Fault
from ._core._plan import FaultContext as FaultContext
from ._core._registry import Registry
from ._core._units import Duration
from ._core._units import seconds as _seconds

__all__ = [
    "FAULTS",
    "Fault",
    "FaultContext",
    "close_after_events",
    "empty_response",
    "end_after_events",
    "first",
    "first_byte_delay",
    "from_args",
    "garbage",
    "latency",
    "limit_data",
    "malformed_chunk",
    "reset",
    "reset_after_bytes",
    "reset_after_events",
    "slice",
    "sometimes",
    "stall",
    "throttle",
    "truncate_event",
]


def limit_data(n: int, *, count: Count = "body") -> LimitData:
    """Let exactly ``n`` bytes reach the client, then close the connection mid-body.

    The client reads ``n`` body bytes (the status line and headers come first, whole), then
    EOF: a chunked body without its last chunk (cut inside a chunk when byte ``n`` falls in
    one), or a ``Content-Length`` body shorter than announced -- an incomplete read, never a
    clean end.  A body of ``n`` bytes or fewer goes out untouched.

    Args:
        n: bytes to deliver (0 closes right after the headers).
        count: ``"body"`` (default) counts body bytes after de-chunking; ``"wire"`` counts
            every byte sent, status line, headers and chunk framing included (so a small
            ``n`` may cut inside the headers).

    Raises:
        ConfigError: ``n`` is negative or not an int, or ``count`` is neither ``"body"``
            nor ``"wire"``.
    """
    return LimitData(n, count)


def reset_after_bytes(n: int, *, count: Count = "body") -> ResetAfterBytes:
    """Send ``n`` bytes, then reset the connection: the client's next read fails with
    ECONNRESET instead of reading EOF.

    Args:
        n: bytes to send before the reset, counted as in :func:`limit_data`.
        count: ``"body"`` or ``"wire"``, as in :func:`limit_data`.

    Raises:
        ConfigError: ``n`` is negative or not an int, or ``count`` is not body or wire.
    """
    return ResetAfterBytes(n, count)


def close_after_events(k: int) -> CloseAfterEvents:
    """Send ``k`` whole events, then close the connection cleanly where event ``k + 1``
    would start (after the pause before it).  A plain body has no events and goes out
    untouched; so does a stream of ``k`` events or fewer.

    Raises:
        ConfigError: ``k`` is negative or not an int.
    """
    return CloseAfterEvents(k)


def end_after_events(k: int) -> EndAfterEvents:
    """Send ``k`` whole events, then end the body cleanly (its last chunk sent, the
    connection kept).  The stream ends early but well formed, as when an MCP server ends
    an SSE stream so that its client polls (SEP-1699); a plain body and a stream of ``k``
    events or fewer go out untouched.

    Raises:
        ConfigError: ``k`` is negative or not an int.
    """
    return EndAfterEvents(k)


def reset_after_events(k: int) -> ResetAfterEvents:
    """Send ``k`` whole events, then reset the connection (ECONNRESET on the client).

    Raises:
        ConfigError: ``k`` is negative or not an int.
    """
    return ResetAfterEvents(k)


def empty_response() -> EmptyResponse:
    """Close the connection before any byte of the reply: the client reads EOF where it
    expected a status line (httpx: ``RemoteProtocolError``, "Server disconnected")."""
    return EmptyResponse()


def reset() -> Reset:
    """Reset the connection before any byte of the reply: the client sees ECONNRESET."""
    return Reset()


def latency(seconds: Duration) -> Latency:
    """Wait ``seconds`` before the status line: the client waits for the response head.

    Args:
        seconds: float seconds, a ``timedelta``, or text such as ``"20ms"``.

    Raises:
        ConfigError: not a duration, or negative.
    """
    return Latency(_seconds(seconds, "seconds"))


def first_byte_delay(seconds: Duration) -> FirstByteDelay:
    """Send the status line and headers at once, then wait ``seconds`` before the first
    body byte (before the end, for an empty body).

    Where :func:`latency` delays the response head (an HTTP client's connect-to-response
    time), this delays the body after the head (an LLM's "time to first token"): the
    client already holds a 200 and is reading the stream.

    Raises:
        ConfigError: not a duration, or negative.
    """
    return FirstByteDelay(_seconds(seconds, "seconds"))


def stall(*, after_bytes: int | None = None, after_events: int | None = None) -> Stall:
    """Stop sending and keep the connection open, to trip a client's read timeout.

    The stall ends when the client hangs up or the server closes.  Give at most one of:

    Args:
        after_bytes: stall after this many body bytes (0: right after the headers).
        after_events: stall after this many whole events.

    With neither, the server stalls before the status line.  A reply shorter than the limit
    goes out untouched.

    Raises:
        ConfigError: both are given, or one is negative or not an int.
    """
    return Stall(after_bytes, after_events)


def throttle(bytes_per_second: float) -> Throttle:
    """Send the body no faster than ``bytes_per_second``.

    The body goes out in pieces of about 20 ms worth of bytes (at least 1), each paced so
    that the first ``b`` bytes never leave before ``(b - piece) / bytes_per_second``
    seconds.  Pauses already in the reply (event delays) count towards the wait.  The head
    and chunk framing are not throttled.

    Raises:
        ConfigError: not a finite number above 0.
    """
    return Throttle(bytes_per_second)


def slice(size: int, *, delay: Duration = 0.0) -> Slice:
    """Send the body in pieces of ``size`` bytes (1 is allowed), ``delay`` apart.

    Pieces cut across lines, events and UTF-8 sequences, to test parsers that assume one
    read is one line or one event: where events follow each other without a pause
    (``event_delay=0``), a piece may end one event and start the next.  A pause in the reply
    sends the piece being filled first (it may be shorter), so no byte goes out later than
    planned.  With chunked framing each piece is one chunk, which HTTP libraries hand over
    separately; with ``delay=0`` and a ``Content-Length`` body TCP may merge pieces, so give
    a delay to be sure.  Put faults that count events (``truncate_event``,
    ``close_after_events``) before ``slice`` in a pipe: after it, a piece that spans two
    events counts as the later one.

    Raises:
        ConfigError: ``size`` is not an int of at least 1, or ``delay`` is not a duration.
    """
    return Slice(size, _seconds(delay, "delay"))


def garbage(n: int, *, seed: int = 0) -> Garbage:
    """Send a valid head, then ``n`` random bytes instead of the body, then close.

    The bytes come from ``random.Random(seed)`` and are the same on every call.  With
    chunked framing they break the chunk syntax (the client raises a protocol error); with a
    ``Content-Length`` they are read as body bytes, then the body is short.

    Raises:
        ConfigError: ``n`` is negative or not an int, or ``seed`` is not an int.
    """
    return Garbage(n, seed)


def malformed_chunk() -> MalformedChunk:
    """Send the head, then the first chunk with a size line that is not hex (``zz``), then
    close.  A reply with a known length is switched to chunked framing first.  HTTP/1.0
    clients get no chunked framing, so there is nothing to break and the reply is
    untouched."""
    return MalformedChunk()


def truncate_event(k: int, *, at: int | None = None) -> TruncateEvent:
    """Send events ``0..k-1`` whole, then cut event ``k`` after ``at`` of its bytes and close.

    Args:
        k: the 0-based index of the event to cut.
        at: how many of the event's bytes to send; negative counts from the event's end
            (``-1``: all but the last newline).  None (default) sends half of them, which
            cuts inside its ``data:`` line.  ``at`` is clamped so the event is never
            complete.

    A stream of ``k`` events or fewer goes out untouched.

    Raises:
        ConfigError: ``k`` is negative or not an int, or ``at`` is not an int.
    """
    return TruncateEvent(k, at)


def sometimes(p: float, fault: Fault, *, seed: int = 0) -> Sometimes:
    """Apply ``fault`` to each call with probability ``p``.

    The choice for each call depends only on ``seed`` and the call's index, so a run with
    the same seed fails the same calls.

    Raises:
        ConfigError: ``p`` is outside [0, 1], ``fault`` is not a fault, or ``seed`` not
            an int.
    """
    return Sometimes(p, fault, seed)


def first(n: int, fault: Fault) -> First:
    """Apply ``fault`` to the first ``n`` calls of the mock only (a retry then succeeds).

    Raises:
        ConfigError: ``n`` is negative or not an int, or ``fault`` is not a fault.
    """
    return First(n, fault)


FAULTS: Registry[Callable[..., Fault]] = Registry(
    "fault",
    {
        "close_after_events": close_after_events,
        "empty_response": empty_response,
        "end_after_events": end_after_events,
        "first": first,
        "first_byte_delay": first_byte_delay,
        "garbage": garbage,
        "latency": latency,
        "limit_data": limit_data,
        "malformed_chunk": malformed_chunk,
        "reset": reset,
        "reset_after_bytes": reset_after_bytes,
        "reset_after_events": reset_after_events,
        "slice": slice,
        "sometimes": sometimes,
        "stall": stall,
        "throttle": throttle,
        "truncate_event": truncate_event,
    },
)
"""Each fault's file name mapped to its constructor."""


def from_args(form: Sequence[Any]) -> Fault:
    """Build a fault from its file form ``[name, positional..., {keyword: value}]``.

    A nested list in a positional place (the fault of ``sometimes`` and ``first``) is read
    as a fault too.

    Raises:
        UnknownNameError: the first item is no fault name (a ``ConfigError``).
        ConfigError: the form is not a list, the arguments do not fit the constructor, or
            an argument is bad.  The message names the fault.
    """
    fault: Fault = call_form(form, FAULTS, nested=_nested)
    return fault


def _nested(_parameter: Any, value: Any) -> Any:
    """A nested list in a positional place is a fault's form (``sometimes``, ``first``)."""
    return from_args(value) if is_form(value) else value
