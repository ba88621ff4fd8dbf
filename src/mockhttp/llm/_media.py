"""Deterministic media files that decoders accept: PNG images and audio (WAV, raw PCM, MP3).

Pure functions of their arguments, so a recording or a test can pin the bytes.

- ``png(width, height, rgb)``: an 8-bit RGB PNG of one colour (IHDR, one zlib IDAT, IEND,
  each with its CRC), as PNG 1.2 lays it out.
- ``pcm(text)``: 16-bit signed little-endian mono samples at 24 kHz (OpenAI's ``pcm``
  format): a sine tone whose pitch comes from the text and whose length grows with it.
- ``wav(samples)``: the same samples in a RIFF/WAVE container.
- ``mp3(seconds)``: MPEG-1 Layer III frames of silence (44.1 kHz, 128 kbit/s, mono): a
  frame whose side information and main data are all zero decodes to 1,152 zero samples.
"""

from __future__ import annotations

import hashlib
import math
import struct
import zlib
from array import array
from functools import lru_cache

__all__ = ["RATE", "colour", "mp3", "pcm", "png", "wav"]

RATE = 24_000  # samples per second of pcm() and wav()
_MP3_HEADER = b"\xff\xfb\x90\xc0"  # MPEG-1, Layer III, no CRC, 128 kbit/s, 44.1 kHz, mono
_MP3_FRAME = _MP3_HEADER + bytes(417 - len(_MP3_HEADER))  # 144 * 128000 // 44100 bytes
_MP3_FRAME_SECONDS = 1152 / 44_100


def colour(text: str) -> tuple[int, int, int]:
    """A colour for ``text``: the first three bytes of its SHA-256."""
    digest = hashlib.sha256(text.encode()).digest()
    return digest[0], digest[1], digest[2]


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


@lru_cache(maxsize=64)
def png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """An RGB PNG of ``width`` x ``height`` pixels of one colour."""
    row = b"\x00" + bytes(rgb) * width  # filter type 0 (None), then the pixels
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    data = zlib.compress(row * height, 9)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", data)
        + _chunk(b"IEND", b"")
    )


def seconds_for(text: str) -> float:
    """How long ``text`` takes to say: 60 ms a character, from 0.25 s to 30 s."""
    return min(30.0, max(0.25, 0.06 * len(text)))


@lru_cache(maxsize=64)
def pcm(text: str) -> bytes:
    """Mono 16-bit samples at ``RATE``: a soft sine tone between 220 and 660 Hz."""
    pitch = 220 + colour(text)[0] / 255 * 440
    count = round(seconds_for(text) * RATE)
    step = 2 * math.pi * pitch / RATE
    samples = array("h", (int(8000 * math.sin(step * i)) for i in range(count)))
    if samples.itemsize != 2:  # pragma: no cover - every CPython has a 2-byte 'h'
        raise RuntimeError("array('h') is not 16-bit here")
    if struct.pack("=h", 1) != struct.pack("<h", 1):  # pragma: no cover - big-endian hosts
        samples.byteswap()
    return samples.tobytes()


def wav(samples: bytes, rate: int = RATE) -> bytes:
    """``samples`` (mono, 16-bit little-endian) in a RIFF/WAVE file."""
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)  # PCM, mono, 16-bit
    body = b"WAVE" + _chunk_le(b"fmt ", fmt) + _chunk_le(b"data", samples)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def _chunk_le(kind: bytes, data: bytes) -> bytes:
    return kind + struct.pack("<I", len(data)) + data + (b"\x00" if len(data) % 2 else b"")


def mp3(seconds: float) -> bytes:
    """MPEG-1 Layer III silence lasting at least ``seconds``."""
    return _MP3_FRAME * max(1, math.ceil(seconds / _MP3_FRAME_SECONDS))
