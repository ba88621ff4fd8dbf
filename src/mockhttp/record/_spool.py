"""A reply's body on its way to a recording: redacted, capped and spooled as it arrives.

The recording proxy puts each read of the upstream's body here as it relays it, so no
reply is ever held whole in memory: the reads are redacted (the one rule,
``_core._redact``) with a window that keeps only what a secret could still span, and
written to a temporary file next to the recording; the mock file is then written from
that file, one write at a time (:func:`write_mock`), to a temporary name and renamed.

Rule 1 (the cap): past ``cap`` bytes of body, reads are relayed but not kept; the
recording is then marked ``truncated`` (the bytes the upstream sent in all) and ends as
``close``, so a replay never passes a cut body for a whole one.
Rule 2 (redaction): the bytes come out as the whole body redacted at once would (a
secret matched as a whole token, the byte before it included), and writes a secret spans
are joined (at the time of the last), as ``_exchange.to_mock`` joins writes in memory.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import struct
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from .._core._mock import Mock
from .._core._redact import Redactor
from .._mockfile._dump import dump
from ._pieces import Write
from ._recording import Recording, _at

__all__ = ["MAX_RECORDING_SIZE", "Spool", "write_mock"]

#: The default cap of one recording's body, in bytes (``--max-recording-size``).
MAX_RECORDING_SIZE = 64 * 1024 * 1024

_HEAD = struct.Struct("<dI")  # a spooled write: its time, its length, then its bytes
_PLACE = b"@@mockhttp-spooled-writes@@"
# Characters YAML must see escaped in a double-quoted scalar (non-printable, or a line
# break of YAML 1.1) that JSON leaves as they are.
_YAML_ESCAPE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")


class Spool:
    """The writes of one reply, redacted and capped, in a temporary file in ``folder``
    (None: in memory, for a recorder without ``out``)."""

    def __init__(self, folder: Path | None, redactor: Redactor, cap: int) -> None:
        self.cap = cap
        self.seen = 0  # body bytes the upstream sent
        self.kept = 0  # of them, the bytes recorded (before redaction)
        self.written = 0  # bytes in the recording (after redaction)
        self.count = 0
        self._redactor = redactor
        self._needles = [x.encode("utf-8", "surrogateescape") for x in redactor.secrets]
        self._longest = max(
            (len(s.encode("utf-8", "surrogateescape")) for s in redactor.secrets), default=0
        )
        self._held: list[Write] = []
        self._before = b""  # the last byte put: context for a secret's token edge
        self._mark = redactor.mark.encode()
        self._memory: list[Write] | None = None
        self._file: IO[bytes] | None = None
        self.path: Path | None = None
        if folder is None:
            self._memory = []
        else:
            fd, name = tempfile.mkstemp(prefix=".spool-", suffix=".partial", dir=folder)
            self._file = os.fdopen(fd, "w+b")
            self.path = Path(name)

    @property
    def truncated(self) -> bool:
        return self.seen > self.kept

    def add(self, at: float, data: bytes) -> None:
        """One read of the body, ``at`` seconds after the head."""
        self.seen += len(data)
        room = self.cap - self.kept
        if room <= 0:
            return
        data = data[:room]
        self.kept += len(data)
        if not self._longest:
            self._put(Write(at, data))
            return
        self._held.append(Write(at, data))
        self._release(final=False)

    def finish(self) -> None:
        """No more reads: what is held goes out."""
        self._release(final=True)
        if self._file is not None:
            self._file.flush()

    def writes(self) -> Iterator[Write]:
        """The writes kept, in order (read back from the file one at a time)."""
        if self._memory is not None:
            yield from self._memory
            return
        assert self._file is not None
        self._file.seek(0)
        while head := self._file.read(_HEAD.size):
            at, size = _HEAD.unpack(head)
            yield Write(at, self._file.read(size))

    def in_memory(self) -> tuple[Write, ...]:
        """The writes, as a tuple (only for a spool in memory)."""
        return tuple(self._memory or ())

    def discard(self) -> None:
        """Remove the temporary file."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if self.path is not None:
            self.path.unlink(missing_ok=True)

    def _put(self, write: Write) -> None:
        self.count += 1
        self.written += len(write.data)
        if self._memory is not None:
            self._memory.append(write)
        else:
            assert self._file is not None
            self._file.write(_HEAD.pack(write.at, len(write.data)) + write.data)

    def _release(self, *, final: bool) -> None:
        """Redact and put the held writes that no secret can still reach into: those
        that end ``longest`` bytes or more before the end of what is held (all, when
        ``final``); writes a secret spans go out joined.  The byte put last stays as
        context, so a secret is matched as a whole token exactly as in the whole body."""
        held = self._held
        if not held:
            return
        ctx = self._before
        body = ctx + b"".join(w.data for w in held)
        spans = []
        if any(needle in body for needle in self._needles):  # the regex only where needed
            spans = [(a, b) for a, b in self._redactor.spans(body) if a >= len(ctx)]
        safe = len(body) if final else len(body) - self._longest
        first = len(ctx)  # where the group of writes being joined starts in body
        end = len(ctx)
        put = 0  # writes put
        for i, w in enumerate(held):
            end += len(w.data)
            if any(a < end < b for a, b in spans):
                continue  # a secret spans this write's end: join it to the next
            if end > safe:
                break
            self._put(Write(w.at, _replaced(body, first, end, spans, self._mark)))
            first, put = end, i + 1
        if put:
            self._before = body[first - 1 : first]
        self._held = held[put:]


def _replaced(body: bytes, lo: int, hi: int, spans: list[tuple[int, int]], mark: bytes) -> bytes:
    """``body[lo:hi]`` with each span inside it replaced by ``mark``."""
    out = []
    at = lo
    for a, b in spans:
        if lo <= a and b <= hi:
            out += [body[at:a], mark]
            at = b
    out.append(body[at:hi])
    return b"".join(out)


def write_mock(
    path: Path, mock: Mock, spool: Spool, whole: Callable[[Path], None] | None = None
) -> None:
    """Write ``mock`` (whose recording's writes are in ``spool``) to ``path``: to a
    temporary name first, then renamed, one write at a time; ``whole`` is called with the
    temporary file once it is whole, before the rename (so what reads it is ready first)."""
    reply = mock.response
    if not isinstance(reply, Recording) or spool.count == 0:
        _atomic(path, dump(mock), whole)
        return
    place = Write(0.0, _PLACE)
    text = dump(dataclasses.replace(mock, response=dataclasses.replace(reply, writes=(place,))))
    before, line, after = _split(text)
    indent = line[: line.index("- ")]
    partial = path.with_name(f".{path.name}.partial")
    with open(partial, "w", encoding="utf-8", newline="\n") as out:
        out.write(before)
        for w in spool.writes():
            out.write(f"{indent}- {write_line(w)}\n")
        out.write(after)
    if whole is not None:
        whole(partial)
    os.replace(partial, path)  # a reader never sees half a file


def _atomic(path: Path, text: str, whole: Callable[[Path], None] | None = None) -> None:
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    if whole is not None:
        whole(partial)
    os.replace(partial, path)


def answering_once_in_file(path: Path) -> None:
    """Rewrite the mock file ``path`` (one mock) with ``times: 1``, line by line."""
    partial = path.with_name(f".{path.name}.partial")
    with (
        open(path, encoding="utf-8", newline="") as src,
        open(partial, "w", encoding="utf-8", newline="") as out,
    ):
        added = False
        for line in src:
            if not added and line.startswith(("request:", "response:")):
                out.write("times: 1\n")
                added = True
            out.write(line)
    os.replace(partial, path)


def _split(text: str) -> tuple[str, str, str]:
    place = _PLACE.decode()
    at = text.index(place)
    start = text.rindex("\n", 0, at) + 1
    stop = text.index("\n", at) + 1
    return text[:start], text[start:stop], text[stop:]


def write_line(w: Write) -> str:
    """One write as a mock file line: ``{at: 20ms, data: "..."}`` (text double-quoted),
    or ``{at: ..., base64: ...}`` for bytes that are not UTF-8 text on their own."""
    try:
        text = w.data.decode("utf-8")
    except UnicodeDecodeError:
        return f"{{at: {_at(w.at)}, base64: {base64.b64encode(w.data).decode('ascii')}}}"
    quoted = json.dumps(text, ensure_ascii=False)
    quoted = _YAML_ESCAPE.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)
    return f"{{at: {_at(w.at)}, data: {quoted}}}"
