"""Variants: the forms one recorded event stream takes on other servers and proxies.

Each variant keeps the stream's text for a correct event-stream parser (the WHATWG
rules) and breaks a parser that assumed the recorded form: one that splits on single
newlines, wants ``data: `` with its space, JSON-parses every ``data:`` line, expects
``\\n\\n`` in one read, or reads ``choices[0]`` blindly.  ``closed_without_done`` is the
exception: the text is all there but the ``[DONE]`` sentinel is not, which a correct
client reports instead of hiding.

The stream is parsed into blocks (the lines of one event, up to its blank line), each
with the time its last byte arrived; a variant rewrites the blocks or the writes and
sends each block as one write at its time, unless it is about the writes themselves.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._core._errors import ConfigError
from .._core._registry import Registry
from ._pieces import Write, body_of, event_ends
from ._recording import DERIVE, Played, Recording

__all__ = ["KEEP_ALIVE_EVERY", "VARIANTS", "Deriving", "Stream", "applies", "derive", "parse"]

KEEP_ALIVE_EVERY = 2  # keep_alive: a comment block after every this many events
COMMENT = ": mockhttp comment"
KEEP_ALIVE = ": keep-alive"
RETRY = "retry: 3000"


@dataclass(frozen=True, slots=True)
class Block:
    """The lines of one event (or comment block), without line ends, and when its last
    byte arrived."""

    lines: tuple[str, ...]
    at: float


@dataclass(frozen=True, slots=True)
class Stream:
    """A recorded event stream as blocks: ``tail`` holds lines after the last blank line
    (an unfinished event), ``eol`` the first line end seen."""

    blocks: tuple[Block, ...]
    tail: tuple[str, ...]
    tail_at: float
    eol: str

    def data(self, block: Block) -> str | None:
        """The block's data (WHATWG: ``data`` lines joined by newlines), None if none."""
        parts = [_field(line) for line in block.lines]
        datas = [value for name, value in parts if name == "data"]
        return "\n".join(datas) if datas else None


def _field(line: str) -> tuple[str, str]:
    name, colon, value = line.partition(":")
    if not colon:
        return line, ""
    return name, value[1:] if value.startswith(" ") else value


def _lines(text: str) -> list[str]:
    """Split on CRLF, LF or CR, keeping a last piece without a line end."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _eol(body: bytes) -> str:
    for i, c in enumerate(body):
        if c == 10:
            return "\n"
        if c == 13:
            return "\r\n" if body[i + 1 : i + 2] == b"\n" else "\r"
    return "\n"


def parse(recording: Recording) -> Stream:
    """The recording's body as blocks of lines, each with its arrival time.

    Raises:
        ConfigError: the reply is not an event stream, or its body is not UTF-8.
    """
    if not recording.is_event_stream:
        raise ConfigError("variants need an event stream (Content-Type: text/event-stream)")
    body = body_of(recording.writes)
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"variants need a UTF-8 event stream: {exc}") from None
    arrived: list[tuple[int, float]] = []  # (offset after the write, its time)
    offset = 0
    for w in recording.writes:
        offset += len(w.data)
        arrived.append((offset, w.at))

    def time_of(end: int) -> float:
        return next((at for stop, at in arrived if stop >= end), 0.0)

    blocks: list[Block] = []
    start = 0
    for end in event_ends(body):
        lines = [x for x in _lines(body[start:end].decode("utf-8")) if x]
        blocks.append(Block(tuple(lines), time_of(end)))
        start = end
    tail = tuple(x for x in _lines(body[start:].decode("utf-8")) if x)
    last = recording.writes[-1].at if recording.writes else 0.0
    return Stream(tuple(blocks), tail, last, _eol(body))


# -- the variants -----------------------------------------------------------------------


def _writes(
    blocks: list[Block],
    eol: str,
    tail: tuple[str, ...] = (),
    tail_at: float = 0.0,
    last_blank: bool = True,
) -> tuple[Write, ...]:
    """One write per block at its time; ``last_blank`` False drops the last blank line."""
    out = [Write(b.at, "".join(x + eol for x in b.lines).encode() + eol.encode()) for b in blocks]
    if tail:
        out.append(Write(tail_at, "".join(x + eol for x in tail).encode()))
    elif not last_blank and out:
        last = out[-1]
        out[-1] = Write(last.at, last.data[: -len(eol)])
    return tuple(out)


def _events(s: Stream) -> list[int]:
    """Indexes of the blocks that carry data (events, not comment blocks)."""
    return [i for i, b in enumerate(s.blocks) if s.data(b) is not None]


def _comment(s: Stream, r: Recording) -> tuple[Write, ...]:
    blocks = [Block((COMMENT, *b.lines), b.at) if s.data(b) is not None else b for b in s.blocks]
    return _writes(blocks, s.eol, s.tail, s.tail_at)


def _keep_alive(s: Stream, r: Recording) -> tuple[Write, ...]:
    blocks: list[Block] = []
    seen = 0
    for i, b in enumerate(s.blocks):
        blocks.append(b)
        if s.data(b) is None:
            continue
        seen += 1
        if seen % KEEP_ALIVE_EVERY == 0 and i + 1 < len(s.blocks):
            later = s.blocks[i + 1].at
            blocks.append(Block((KEEP_ALIVE,), round((b.at + later) / 2, 6)))
    return _writes(blocks, s.eol, s.tail, s.tail_at)


def _line_ends(eol: str) -> Callable[[Stream, Recording], tuple[Write, ...]]:
    def variant(s: Stream, r: Recording) -> tuple[Write, ...]:
        return _writes(list(s.blocks), eol, s.tail, s.tail_at)

    return variant


def _no_space(s: Stream, r: Recording) -> tuple[Write, ...]:
    def tight(line: str) -> str:
        name, colon, value = line.partition(":")
        if not colon or not name or not value.startswith(" ") or value.startswith("  "):
            return line  # a comment, or a value that starts with a space of its own
        return f"{name}:{value[1:]}"

    blocks = [Block(tuple(tight(x) for x in b.lines), b.at) for b in s.blocks]
    return _writes(blocks, s.eol, tuple(tight(x) for x in s.tail), s.tail_at)


def _one_byte(s: Stream, r: Recording) -> tuple[Write, ...]:
    return tuple(Write(w.at, w.data[i : i + 1]) for w in r.writes for i in range(len(w.data)))


def _split_utf8(s: Stream, r: Recording) -> tuple[Write, ...]:
    """Each write holding a multi-byte character is cut inside the first one."""
    out: list[Write] = []
    for w in r.writes:
        cut = next((i + 1 for i, c in enumerate(w.data) if c >= 0xC0), None)
        if cut is None:
            out.append(w)
        else:
            out += [Write(w.at, w.data[:cut]), Write(w.at, w.data[cut:])]
    return tuple(out)


def _split_crlf(s: Stream, r: Recording) -> tuple[Write, ...]:
    """CRLF line ends, every write cut between each CR and its LF."""
    out: list[Write] = []
    for w in _writes(list(s.blocks), "\r\n", s.tail, s.tail_at):
        pieces = w.data.split(b"\r\n")
        data = pieces[0]
        for piece in pieces[1:]:
            out.append(Write(w.at, data + b"\r"))
            data = b"\n" + piece
        if data:
            out.append(Write(w.at, data))
    return tuple(out)


def _first_chunk(s: Stream) -> tuple[int, dict[str, Any]] | None:
    for i in _events(s):
        text = s.data(s.blocks[i])
        try:
            value = json.loads(text or "")
        except ValueError:
            return None
        if isinstance(value, dict) and isinstance(value.get("choices"), list):
            return i, value
        return None
    return None


def _empty_choices(s: Stream, r: Recording) -> tuple[Write, ...]:
    found = _first_chunk(s)
    assert found is not None
    i, chunk = found
    envelope = {k: v for k, v in chunk.items() if k not in ("choices", "usage")}
    envelope["choices"] = []
    line = "data: " + json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))
    blocks = list(s.blocks)
    blocks.insert(i, Block((line,), blocks[i].at))
    return _writes(blocks, s.eol, s.tail, s.tail_at)


def _id_retry(s: Stream, r: Recording) -> tuple[Write, ...]:
    blocks: list[Block] = []
    n = 0
    for b in s.blocks:
        if s.data(b) is None:
            blocks.append(b)
            continue
        n += 1
        extra = (f"id: {n}", RETRY) if n == 1 else (f"id: {n}",)
        blocks.append(Block((*extra, *b.lines), b.at))
    return _writes(blocks, s.eol, s.tail, s.tail_at)


def _has_event_line(b: Block) -> bool:
    return any(_field(x)[0] == "event" for x in b.lines)


def _event_lines(s: Stream, r: Recording) -> tuple[Write, ...]:
    blocks = [
        Block(("event: message", *b.lines), b.at)
        if s.data(b) is not None and not _has_event_line(b)
        else b
        for b in s.blocks
    ]
    return _writes(blocks, s.eol, s.tail, s.tail_at)


def _no_last_blank(s: Stream, r: Recording) -> tuple[Write, ...]:
    return _writes(list(s.blocks), s.eol, last_blank=False)


def _done_at(s: Stream) -> int | None:
    events = _events(s)
    if events and s.data(s.blocks[events[-1]]) == "[DONE]":
        return events[-1]
    return None


def _closed_without_done(s: Stream, r: Recording) -> tuple[Write, ...]:
    i = _done_at(s)
    assert i is not None
    return _writes([b for j, b in enumerate(s.blocks) if j != i], s.eol)


Variant = Callable[[Stream, "Recording"], tuple[Write, ...]]
_Applies = Callable[[Stream], str | None]


def _always(s: Stream) -> str | None:
    return None if _events(s) else "it has no event"


def _needs_utf8(s: Stream) -> str | None:
    text = "".join(x for b in s.blocks for x in b.lines)
    return None if not text.isascii() else "its text has no multi-byte UTF-8 character"


def _needs_choices(s: Stream) -> str | None:
    ok = _first_chunk(s) is not None
    return None if ok else "its first event is not a JSON chunk with a choices list"


def _needs_unnamed(s: Stream) -> str | None:
    named = all(_has_event_line(s.blocks[i]) for i in _events(s))
    return "every event already has an event: line" if named else _always(s)


def _needs_blank(s: Stream) -> str | None:
    return "its last event has no blank line already" if s.tail or not s.blocks else None


def _needs_done(s: Stream) -> str | None:
    return None if _done_at(s) is not None else "its last event is not data: [DONE]"


@dataclass(frozen=True, slots=True)
class Deriving:
    """A variant: what it changes, when it applies (None, or why not) and how."""

    what: str
    applies: _Applies
    make: Variant


VARIANTS: Registry[Deriving] = Registry("variant")
"""Each variant by name (the public ``mockhttp.record.VARIANTS`` gives their ``what``)."""
for _name, (_what, _when, _how) in {
    "comment": ("a comment line before the first event and between events", _always, _comment),
    "keep_alive": (
        f"a ': keep-alive' comment block after every {KEEP_ALIVE_EVERY} events",
        _always,
        _keep_alive,
    ),
    "crlf": ("CRLF line ends", _always, _line_ends("\r\n")),
    "cr": ("lone CR line ends", _always, _line_ends("\r")),
    "no_space": ("'data:x', no space after the colon", _always, _no_space),
    "one_byte_writes": ("every write split into 1-byte writes", _always, _one_byte),
    "split_utf8": ("writes split inside a UTF-8 character", _needs_utf8, _split_utf8),
    "split_crlf": ("CRLF line ends, writes split between CR and LF", _always, _split_crlf),
    "empty_choices": (
        "a chunk with empty choices before the first one",
        _needs_choices,
        _empty_choices,
    ),
    "id_retry": ("id: on every event, retry: on the first", _always, _id_retry),
    "event_lines": (
        "'event: message' on every event without an event: line",
        _needs_unnamed,
        _event_lines,
    ),
    "no_last_blank": ("the last event without its blank line", _needs_blank, _no_last_blank),
    "closed_without_done": (
        "the stream ends without data: [DONE] (a correct client reports it)",
        _needs_done,
        _closed_without_done,
    ),
}.items():
    VARIANTS.add(_name, Deriving(_what, _when, _how))


def applies(recording: Recording, name: str) -> str | None:
    """None if variant ``name`` applies to ``recording``, else why not."""
    try:
        stream = parse(recording)
    except ConfigError as exc:
        return str(exc)
    return VARIANTS.get(name).applies(stream)


def derive(recording: Recording, name: str) -> Played:
    """What ``recording`` sends as variant ``name``.

    Raises:
        UnknownNameError: an unknown name (a ``ConfigError``).
        ConfigError: a variant that does not apply (says why).
    """
    variant = VARIANTS.get(name)
    stream = parse(recording)
    why = variant.applies(stream)
    if why is not None:
        raise ConfigError(f"variant {name!r} does not apply to this recording: {why}")
    writes = variant.make(stream, recording)
    length = None if recording.length is None else len(body_of(writes))
    return Played(writes, length, recording.end)


DERIVE.append(derive)
