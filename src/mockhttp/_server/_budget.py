"""The journal's byte budget: bodies of finished calls are kept up to a number of bytes.

Past the budget, the oldest kept bodies are dropped first: the request body (the call's
``request.body`` becomes ``b""``) and the reply bytes kept in ``body_sent``.  What was
dropped stays described in ``call.dropped`` (lengths and SHA-256 digests), and the counts
(``body_bytes``, ``events``, ``wire_bytes``) stay exact.

The budget counts and chooses; the journal (``_verify.py``) empties the places a call is
kept in, packed entries included.
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct
from array import array
from collections.abc import Callable

__all__ = ["Budget", "Dropped", "digests", "parse_size", "two"]

LIBRARY_DEFAULT = 256 * 1024 * 1024  # Server(journal_bytes=...) by default
CLI_DEFAULT = 64 * 1024 * 1024  # mockhttp serve --journal-bytes by default
_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1000, "kib": 1024, "m": 1000**2, "mb": 1000**2,
          "mib": 1024**2, "g": 1000**3, "gb": 1000**3, "gib": 1024**3}  # fmt: skip


@dataclasses.dataclass(frozen=True, slots=True)
class Dropped:
    """What the journal's byte budget dropped from a call (``call.dropped``).

    Attributes:
        request_bytes: the length of the request body (``call.request.body`` is now empty).
        request_sha256: its SHA-256, as hex.
        reply_bytes: how many bytes ``call.body_sent`` held (it is now empty;
            ``call.body_bytes`` still counts every body byte written).
        reply_sha256: their SHA-256, as hex.
    """

    request_bytes: int
    request_sha256: str
    reply_bytes: int
    reply_sha256: str


class Budget:
    """Kept body bytes of finished calls, oldest first; ``limit`` None keeps everything.

    It holds no call, only numbers: for each call, its size and where the journal keeps it
    (``drop`` is the journal's function that empties those places, see ``_verify.py``),
    packed into one flat array of machine integers: no object per call, so the budget adds
    nothing for the garbage collector to visit (a tuple per call did, and cost ~200 bytes
    a call where the array takes 56).  ``most`` bounds how many calls it tracks (the
    journal limit, with slack): a call the journal has already trimmed is forgotten when
    it leaves.
    """

    __slots__ = ("_count", "_drop", "_flat", "_head", "kept", "limit", "most")

    def __init__(
        self,
        limit: int | None,
        most: int | None = None,
        drop: Callable[[tuple[int, ...]], object] = lambda where: None,
    ) -> None:
        self.limit = limit
        self.most = None if most is None else 2 * most + 16
        self.kept = 0
        self._drop = drop
        # one record per call, oldest first from ``_head``: size, len(where), *where
        self._flat = array("q")
        self._head = 0
        self._count = 0

    def __len__(self) -> int:
        """How many calls it tracks."""
        return self._count

    def keep(self, size: int, where: tuple[int, ...]) -> None:
        """A call ended with ``size`` bytes of bodies, kept at ``where``: count them; drop
        the oldest while over the budget (or tracking more calls than ``most``)."""
        n = len(where)
        # one record as machine integers, packed at once: ``array.extend`` converts an
        # item at a time (~500 instructions each), ``struct`` all of them in one call
        self.add(size, (_PACKS.get(n) or _packer(n))(size, n, *where))

    def add(self, size: int, record: bytes) -> None:
        """``keep``, the record packed already (``two`` packs a call kept in two lists, a
        lane answer's, with no tuple of places built and unpacked: every lane request)."""
        self._flat.frombytes(record)
        self.kept += size
        self._count += 1
        limit = self.limit
        assert limit is not None
        most = self.most
        if self.kept > limit or (most is not None and self._count > most):
            self._trim(limit, most)

    def _trim(self, limit: int, most: int | None) -> None:
        flat = self._flat
        head = self._head
        while self._count and (self.kept > limit or (most is not None and self._count > most)):
            size, n = flat[head], flat[head + 1]
            where = tuple(flat[head + 2 : head + 2 + n])
            head += 2 + n
            self._count -= 1
            self.kept -= size
            self._drop(where)
        if head > len(flat) // 2:  # amortised O(1): the dropped records go in one move
            del flat[:head]
            head = 0
        self._head = head


_PACKS: dict[int, Callable[..., bytes]] = {}  # by len(where): packs size, len, *where


def _packer(n: int) -> Callable[..., bytes]:
    """Packs a record of ``n`` places (as machine integers, the array's own layout)."""
    pack = _PACKS[n] = struct.Struct(f"{n + 2}q").pack
    return pack


#: ``two(size, 5, seq, key, at, key2, at2)``: the record of a call kept in two lists (its
#: mock's and the server's), for ``Budget.add``
two: Callable[[int, int, int, int, int, int, int], bytes] = _packer(5)


def digests(body: bytes, sent: bytes) -> tuple[int, str, int, str]:
    """What ``Dropped`` keeps of two bodies, as plain values (cheap to keep)."""
    return (
        len(body),
        hashlib.sha256(body).hexdigest(),
        len(sent),
        hashlib.sha256(sent).hexdigest(),
    )


def parse_size(text: str) -> int:
    """``"64MiB"``, ``"500k"`` or ``"1000000"`` as bytes.

    Raises:
        ValueError: not a size; the message says what is expected.
    """
    raw = text.strip().lower().replace(" ", "")
    number = raw.rstrip("kmgibB")
    unit = raw[len(number) :]
    if not number.isdigit() or unit not in _UNITS:
        raise ValueError(f"{text!r} is not a size such as 64MiB, 500k or 1000000 (bytes)")
    return int(number) * _UNITS[unit]
