"""Incremental event-stream decoder that keeps what a contract test needs.

Rule 1: what is dispatched follows WHATWG HTML §9.2.5-§9.2.6 exactly
(#parsing-an-event-stream, #event-stream-interpretation).  The ``SSE-*`` vectors in
``docs/wire-format.md`` are the tests.

Rule 2: nothing is thrown away silently.  Unlike a client library, the decoder also
returns comment lines as items of their own, every raw line of each event with its byte
offset, line ending and arrival time, and (at EOF) the unfinished tail that the spec
discards, as an ``Unterminated`` item.

Rule 3: results never depend on read boundaries.  Lines are split on bytes (CR and LF never
occur inside a UTF-8 sequence, so a code point split across reads is whole again by the
time its line is decoded), and a CR at the end of a read is held back until the next byte
says whether it is half of a CRLF.  The cost: an event ended by a lone CR at the very end
of a read is dispatched on the next read (or at ``close()``), never early.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Comment", "Decoder", "Item", "Line", "Message", "Unterminated", "decode"]

_BOM = b"\xef\xbb\xbf"
_LINE_END = re.compile(rb"\r\n|\r|\n")  # SSE-EOL-*: only these end a line

LineKind = Literal["blank", "comment", "field"]


@dataclass(frozen=True, slots=True)
class Line:
    """One line of the stream as it arrived.

    Attributes:
        raw: the line's bytes, without its line ending (a leading BOM stays here).
        ending: ``b"\\n"``, ``b"\\r\\n"``, ``b"\\r"``, or ``b""`` for a line cut off at EOF.
        offset: byte offset of the line's first byte in the stream.
        at: the timestamp passed with the read that completed the line, if any.
        bom: True when a UTF-8 byte-order mark at stream offset 0 was stripped from it.
    """

    raw: bytes
    ending: bytes
    offset: int
    at: float | None = None
    bom: bool = False

    @property
    def text(self) -> str:
        """The line decoded as UTF-8 (invalid bytes become U+FFFD), without a leading BOM."""
        return (self.raw[len(_BOM) :] if self.bom else self.raw).decode("utf-8", "replace")

    def text_start(self, chars: int) -> str:
        """The line's first ``chars`` characters or more, as :attr:`text` has them (a long
        line is not decoded whole to quote its start)."""
        return self.raw[len(_BOM) if self.bom else 0 :][: 4 * chars].decode("utf-8", "replace")

    @property
    def end(self) -> int:
        """Byte offset just past the line's ending."""
        return self.offset + len(self.raw) + len(self.ending)

    @property
    def kind(self) -> LineKind:
        """``"blank"`` (dispatches), ``"comment"`` (starts with a colon) or ``"field"``."""
        text = self.text
        if not text:
            return "blank"
        return "comment" if text.startswith(":") else "field"

    @property
    def name(self) -> str:
        """The field name: everything before the first colon (the whole line if none)."""
        return self.text.partition(":")[0]

    @property
    def value(self) -> str:
        """The value after the first colon, with exactly one leading space removed."""
        value = self.text.partition(":")[2]
        return value[1:] if value.startswith(" ") else value

    @property
    def space(self) -> bool:
        """True when the colon is followed by a space (``data: x`` rather than ``data:x``)."""
        return self.text.partition(":")[2].startswith(" ")


@dataclass(frozen=True, slots=True)
class Comment:
    """A comment line (``: text``), reported as soon as its line is complete.

    Attributes:
        text: what follows the colon, with one leading space removed.
        line: the raw line.
    """

    text: str
    line: Line

    @property
    def offset(self) -> int:
        """Byte offset of the comment line."""
        return self.line.offset

    @property
    def at(self) -> float | None:
        """Arrival time of the read that completed the comment line."""
        return self.line.at


@dataclass(frozen=True, slots=True)
class Message:
    """One dispatched event (a ``MessageEvent`` in the spec's terms).

    Attributes:
        index: 0 for the first dispatched event of the stream, then 1, 2, ...
        data: the data buffer with its one trailing LF removed.
        event: the event type; ``"message"`` when no ``event`` field (or an empty one) came.
        id: the last event ID at dispatch time (it persists across events, ``SSE-ID-PERSIST``).
        retry: the last valid ``retry`` value inside this event's block, else None.
        lines: every line of the block, comments and the closing blank line included.
    """

    index: int
    data: str
    event: str
    id: str
    retry: int | None
    lines: tuple[Line, ...]

    @property
    def offset(self) -> int:
        """Byte offset of the event's first line."""
        return self.lines[0].offset

    @property
    def end(self) -> int:
        """Byte offset just past the blank line that dispatched the event."""
        return self.lines[-1].end

    @property
    def at(self) -> float | None:
        """Arrival time of the read that completed the event (its blank line)."""
        return self.lines[-1].at

    @property
    def endings(self) -> frozenset[bytes]:
        """The distinct line endings used inside the event."""
        return frozenset(line.ending for line in self.lines)

    @property
    def data_lines(self) -> tuple[Line, ...]:
        """The ``data`` field lines of the event."""
        return tuple(line for line in self.lines if line.kind == "field" and line.name == "data")

    @property
    def data_space(self) -> bool:
        """True when every ``data`` line had a space after its colon."""
        return all(line.space for line in self.data_lines)


@dataclass(frozen=True, slots=True)
class Unterminated:
    """What was pending at EOF and therefore discarded (``SSE-EOF``).

    Attributes:
        lines: the block's complete lines, then the cut-off line (``ending == b""``) if any.
        data: the data that would have been dispatched had a blank line followed.
    """

    lines: tuple[Line, ...]
    data: str

    @property
    def offset(self) -> int:
        """Byte offset of the first discarded line."""
        return self.lines[0].offset


Item = Comment | Message | Unterminated


@dataclass(slots=True)
class _Block:
    lines: list[Line] = field(default_factory=list)
    data: list[str] = field(default_factory=list)
    type: str = ""
    retry: int | None = None


class Decoder:
    """Feed bytes as they arrive; get comments and events back in stream order.

    ``feed(chunk, at)`` returns the items completed by ``chunk``; ``close()`` ends the
    stream and returns what EOF completes (a held-back CR, then any ``Unterminated``
    tail).  A decoder is single-use: after ``close()`` it accepts no more bytes.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._start = 0  # index in _buf of the first byte not yet cut into a line
        self._buf_offset = 0  # stream offset of _buf[0]
        self._scan = 0  # index in _buf from which to look for the next line end
        self._block = _Block()
        self._count = 0
        self._closed = False
        self._id_buffer = ""  # the spec's "last event ID buffer", set by each valid id field
        self.last_event_id = ""
        """The last event ID string, as an EventSource holds it: updated at each blank line."""
        self.reconnection_time: int | None = None
        """The last valid ``retry`` value seen anywhere in the stream, in milliseconds."""

    def feed(self, data: bytes, at: float | None = None) -> list[Item]:
        """Take the next bytes of the stream; return the items they complete.

        Args:
            data: the bytes of one read, in stream order.
            at: when they arrived (any clock); it is copied onto the lines they complete.

        Raises:
            ValueError: the decoder was already closed; make a new one per stream.
        """
        if self._closed:
            raise ValueError("decoder is closed; make a new Decoder for each stream")
        self._buf += data
        items: list[Item] = []
        while (line := self._next_line(at)) is not None:
            items.extend(self._take(line))
        self._compact()
        return items

    def close(self, at: float | None = None) -> list[Item]:
        """End of stream: finish a held-back CR line and report the discarded tail."""
        if self._closed:
            return []
        self._closed = True
        items: list[Item] = []
        if self._buf.endswith(b"\r"):
            items.extend(self._take(self._cut(len(self._buf) - 1, b"\r", at)))
        lines = list(self._block.lines)
        if self._start < len(self._buf):
            lines.append(self._cut(len(self._buf), b"", at))
        if self._block.data or (lines and lines[-1].ending == b""):
            items.append(Unterminated(tuple(lines), _joined(self._block.data)))
        return items

    def _next_line(self, at: float | None) -> Line | None:
        found = _LINE_END.search(self._buf, self._scan)
        if found is None:
            self._scan = len(self._buf)
            return None
        i = found.start()
        if found.group() == b"\r\n":
            return self._cut(i, b"\r\n", at)
        if found.group() == b"\n":
            return self._cut(i, b"\n", at)
        if i + 1 == len(self._buf):
            self._scan = i  # hold the CR back: it may be half of a CRLF split across reads
            return None
        return self._cut(i, b"\r", at)

    def _cut(self, end: int, ending: bytes, at: float | None) -> Line:
        with memoryview(self._buf) as view:  # one copy (a slice of the bytearray is another)
            raw = bytes(view[self._start : end])
        offset = self._buf_offset + self._start
        line = Line(raw, ending, offset, at, offset == 0 and raw[:3] == _BOM)
        self._start = self._scan = end + len(ending)
        return line

    def _compact(self) -> None:
        del self._buf[: self._start]
        self._buf_offset += self._start
        self._scan -= self._start
        self._start = 0

    def _take(self, line: Line) -> list[Item]:
        kind = line.kind
        if kind == "blank":
            return self._dispatch(line)
        self._block.lines.append(line)
        if kind == "comment":
            return [Comment(line.value, line)]
        _FIELDS.get(line.name, _ignore)(self, line.value)
        return []

    def _dispatch(self, blank: Line) -> list[Item]:
        # WHATWG "dispatch the event": the last-event-ID string takes the buffer's value
        # even when no event fires (SSE-ID-DISPATCH); empty data resets the buffers without
        # an event (SSE-NODATA); one trailing LF is removed (SSE-DATA-JOIN).
        self.last_event_id = self._id_buffer
        block, self._block = self._block, _Block()
        if not block.data:
            return []
        lines = (*block.lines, blank)
        event = block.type or "message"
        message = Message(
            self._count, _joined(block.data), event, self.last_event_id, block.retry, lines
        )
        self._count += 1
        return [message]

    def _set_data(self, value: str) -> None:
        self._block.data.append(value)

    def _set_event(self, value: str) -> None:
        self._block.type = value

    def _set_id(self, value: str) -> None:
        if "\0" not in value:  # SSE-ID: an id containing NUL is ignored
            self._id_buffer = value

    def _set_retry(self, value: str) -> None:
        if value and value.isascii() and value.isdigit():  # SSE-RETRY: ASCII digits only
            try:
                retry = int(value)
            except ValueError:  # over Python's 4,300-digit limit: ignore the field
                return
            self._block.retry = self.reconnection_time = retry


def _joined(data: list[str]) -> str:
    return "\n".join(data)


def _ignore(decoder: Decoder, value: str) -> None:
    """Unknown field names are ignored (SSE-UNKNOWN, SSE-CASE)."""


_FIELDS = {
    "data": Decoder._set_data,
    "event": Decoder._set_event,
    "id": Decoder._set_id,
    "retry": Decoder._set_retry,
}


def decode(data: bytes) -> list[Item]:
    """Decode a whole stream at once: ``feed(data)`` followed by ``close()``."""
    decoder = Decoder()
    return [*decoder.feed(data), *decoder.close()]
