"""Frame-exact faults of a WebSocket session, as script steps (pure: data and bytes).

- ``Drop()``: the TCP connection closed with no close frame (the client reports 1006).
- ``Cut(data)``: the message's frame written up to the middle of its payload, then
  dropped: a client reading it sees the connection end mid-frame.
- ``IgnorePings()``: from this step on, pings get no pong (keep-alive timeouts fire).
- ``Raw(data)``: bytes written as they are (``invalid_utf8()``: a text frame whose
  payload is not UTF-8, which a client must fail with 1007).

With ``Send(data, fragments=N)`` (a message in N frames) and ``Send(data, trickle=s)``
(its bytes written in pieces ``s`` seconds apart: slow frames), and a big ``Send`` (an
oversized message), these are the faults of issue 35, each placed at message K by its
place in the script.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import AnyStr

from .._core._errors import ConfigError

__all__ = ["INVALID_UTF8", "Cut", "Drop", "IgnorePings", "Raw", "frame", "pieces"]

TEXT, BINARY = 0x1, 0x2
INVALID_UTF8 = b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited"
"""UTF-8 with a surrogate (ED A0 80) in it: Autobahn's case 6.3.1 payload."""


@dataclass(frozen=True, slots=True)
class Drop:
    """Close the TCP connection without a close frame."""


@dataclass(frozen=True, slots=True)
class Cut:
    """Write ``data``'s frame up to the middle of its payload, then drop."""

    data: str | bytes

    def __post_init__(self) -> None:
        if not isinstance(self.data, str | bytes) or len(self.data) < 2:
            raise ConfigError(f"cut data={self.data!r} must be text or bytes of 2 or more")

    def wire(self) -> bytes:
        """The bytes written: the frame's head and the first half of its payload."""
        payload = self.data.encode() if isinstance(self.data, str) else self.data
        whole = frame(TEXT if isinstance(self.data, str) else BINARY, payload)
        return whole[: len(whole) - len(payload) + len(payload) // 2]


@dataclass(frozen=True, slots=True)
class IgnorePings:
    """Stop answering pings."""


@dataclass(frozen=True, slots=True)
class Raw:
    """Write ``data`` as it is (frames made by hand)."""

    data: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.data, bytes) or not self.data:
            raise ConfigError(f"raw data={self.data!r} must be non-empty bytes")


def frame(opcode: int, payload: bytes, *, fin: bool = True) -> bytes:
    """A server's frame (unmasked, RFC 6455 §5.2) of ``opcode`` carrying ``payload``."""
    head = bytes([(0x80 if fin else 0) | opcode])
    size = len(payload)
    if size < 126:
        head += bytes([size])
    elif size < 1 << 16:
        head += bytes([126]) + struct.pack("!H", size)
    else:
        head += bytes([127]) + struct.pack("!Q", size)
    return head + payload


def invalid_utf8() -> Raw:
    """A text frame whose payload is not UTF-8."""
    return Raw(frame(TEXT, INVALID_UTF8))


def pieces(data: AnyStr, count: int) -> list[AnyStr]:
    """``data`` in ``count`` pieces (fewer when it is shorter), in order."""
    count = max(1, min(count, len(data)))
    step = -(-len(data) // count)
    return [data[i : i + step] for i in range(0, len(data), step)]
