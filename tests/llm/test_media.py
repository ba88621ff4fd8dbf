"""The media files replies send (``llm._media``), read back by real decoders: ``wave`` for
WAV, the PNG layout by its chunks and zlib, MPEG audio frames by their headers."""

from __future__ import annotations

import io
import struct
import wave
import zlib

from hypothesis import given, settings
from hypothesis import strategies as st

from mockhttp.llm._media import RATE, colour, mp3, pcm, png, seconds_for, wav


def chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    found, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert zlib.crc32(kind + body) == crc
        found.append((kind, body))
        at += 12 + length
    return found


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 64), st.integers(1, 64), st.tuples(*[st.integers(0, 255)] * 3))
def test_png_is_one_colour_of_the_size_asked(w: int, h: int, rgb: tuple[int, int, int]) -> None:
    found = chunks(png(w, h, rgb))
    assert [k for k, _ in found] == [b"IHDR", b"IDAT", b"IEND"]
    assert struct.unpack(">IIBBBBB", found[0][1]) == (w, h, 8, 2, 0, 0, 0)
    rows = zlib.decompress(found[1][1])
    assert rows == (b"\x00" + bytes(rgb) * w) * h


def test_a_prompt_has_one_colour() -> None:
    assert colour("a fox") == colour("a fox")
    assert colour("a fox") != colour("a cat")


def test_wav_holds_the_pcm_samples() -> None:
    samples = pcm("Hello")
    with wave.open(io.BytesIO(wav(samples))) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, RATE)
        assert w.readframes(w.getnframes()) == samples
    assert len(samples) == 2 * round(seconds_for("Hello") * RATE)


def test_an_odd_data_chunk_is_padded() -> None:
    data = wav(b"\x01\x02\x03")
    assert len(data) % 2 == 0
    assert struct.unpack("<I", data[4:8])[0] == len(data) - 8


def test_speech_lasts_with_the_text_within_bounds() -> None:
    assert seconds_for("") == 0.25
    assert seconds_for("x" * 10) == 0.6
    assert seconds_for("x" * 10_000) == 30.0


def test_pcm_is_a_quiet_tone() -> None:
    samples = struct.unpack(f"<{len(pcm('a')) // 2}h", pcm("a"))
    assert max(samples) <= 8000
    assert min(samples) >= -8000
    assert samples[0] == 0


def test_mp3_is_whole_frames_of_mpeg1_layer3() -> None:
    data = mp3(1.0)
    assert len(data) % 417 == 0
    assert len(data) // 417 == 39  # ceil(1 s / 26.12 ms)
    for at in range(0, len(data), 417):
        header = int.from_bytes(data[at : at + 4], "big")
        assert header >> 21 == 0x7FF  # frame sync
        assert (header >> 19) & 3 == 3  # MPEG-1
        assert (header >> 17) & 3 == 1  # Layer III
        assert (header >> 12) & 15 == 9  # 128 kbit/s
        assert (header >> 10) & 3 == 0  # 44.1 kHz
        assert data[at + 4 : at + 417] == bytes(413)  # silence: no side info, no data
