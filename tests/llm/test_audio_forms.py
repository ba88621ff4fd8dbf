"""llm/_audio.py, in more depth: the multipart reader, the subtitle clock, each answer form,
speech in each format and as events, pure (requests encoded by httpx as the SDK sends
them, no sockets).  Property tests: any text fields come back from ``form_fields``; any
time comes back from ``_clock`` to the millisecond.
"""

from __future__ import annotations

import base64
import math
import re
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mockhttp import Headers, Request, llm
from mockhttp.llm._audio import _PIECE, _clock, _usage, audio, form_fields
from mockhttp.llm._media import seconds_for
from mockhttp.llm._text import count_tokens
from tests.helpers.llm_build import body_of, payloads, request


def form(fields: dict[str, str], file_name: str | None = "file") -> Request:
    files = {file_name: ("a.wav", b"RIFF0000WAVE", "audio/wav")} if file_name else None
    sent = httpx.Request("POST", "http://mock/v1/audio/transcriptions", data=fields, files=files)
    headers = Headers((("content-type", sent.headers["content-type"]),))
    return Request("POST", "/v1/audio/transcriptions", headers, sent.read())


# -- form_fields ---------------------------------------------------------------------------

_VALUE = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), min_size=1, max_size=12)
# (names printable: httpx percent-encodes control characters and quotes in a name, as
# browsers' forms do)
_NAME = st.text(
    st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs"), exclude_characters='"\\%'),
    min_size=1,
    max_size=12,
)


@settings(max_examples=20)  # (the email parser is slow: 20 forms keep the module fast)
@given(st.dictionaries(_NAME.filter(lambda k: k != "file"), _VALUE, max_size=5))
def test_any_text_fields_come_back(fields: dict[str, str]) -> None:
    assert form_fields(form(fields)) == fields


def test_a_form_without_a_file_part_is_none() -> None:
    assert form_fields(form({"model": "whisper-1"}, file_name=None)) is None
    assert form_fields(form({"model": "whisper-1"}, file_name="upload")) is None


def test_a_body_that_is_no_multipart_form_is_none() -> None:
    assert form_fields(request({"model": "whisper-1"}, "/v1/audio/transcriptions")) is None
    fake = Request(
        "POST", "/", Headers((("content-type", "multipart/form-data; boundary=x"),)), b"junk"
    )
    assert form_fields(fake) is None


def test_a_transcription_of_no_form_is_a_400() -> None:
    answer = llm.transcription().build(request({"model": "whisper-1"}, "/v1/audio/transcriptions"))
    assert answer.status_code == 400
    assert "multipart/form-data" in body_of(answer)["error"]["message"]


# -- the clock -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "mark", "text"),
    [
        (0.0, ",", "00:00:00,000"),
        (1.5, ".", "00:00:01.500"),
        (61.25, ",", "00:01:01,250"),
        (3661.5, ",", "01:01:01,500"),
        (1.9996, ",", "00:00:02,000"),  # rounds up into the next second
    ],
)
def test_the_clock_entry_by_entry(seconds: float, mark: str, text: str) -> None:
    assert _clock(seconds, mark) == text


@given(st.floats(0, 359_999, allow_nan=False))
def test_the_clock_reads_back_to_the_millisecond(seconds: float) -> None:
    text = _clock(seconds, ",")
    found = re.fullmatch(r"(\d\d):(\d\d):(\d\d),(\d\d\d)", text)
    assert found is not None, text
    h, m, s, ms = (int(g) for g in found.groups())
    assert m < 60
    assert s < 60
    assert abs(h * 3600 + m * 60 + s + ms / 1000 - seconds) <= 0.0005 + 1e-9


# -- transcription forms -------------------------------------------------------------------

TEXT = "Hello there, world."


def transcribed(fields: dict[str, str]) -> Any:
    return llm.transcription(TEXT, language="french").build(form(fields))


def test_text_srt_and_vtt_are_plain_text() -> None:
    duration = round(seconds_for(TEXT), 2)
    end = _clock(duration, ",")
    assert (
        transcribed({"model": "whisper-1", "response_format": "text"}).content
        == f"{TEXT}\n".encode()
    )
    srt = transcribed({"model": "whisper-1", "response_format": "srt"})
    assert srt.content.decode() == f"1\n00:00:00,000 --> {end}\n{TEXT}\n\n"
    vtt = transcribed({"model": "whisper-1", "response_format": "vtt"})
    assert vtt.content.decode() == f"WEBVTT\n\n00:00:00.000 --> {end.replace(',', '.')}\n{TEXT}\n\n"
    assert dict(srt.headers)["Content-Type"] == "text/plain; charset=utf-8"


def test_verbose_json_has_one_segment_over_the_whole_text() -> None:
    body = body_of(transcribed({"model": "whisper-1", "response_format": "verbose_json"}))
    assert (body["task"], body["language"], body["text"]) == ("transcribe", "french", TEXT)
    [segment] = body["segments"]
    assert (segment["start"], segment["end"]) == (0.0, body["duration"])
    assert segment["text"] == " " + TEXT
    assert len(segment["tokens"]) == count_tokens(TEXT)
    assert body["usage"] == {"type": "duration", "seconds": max(1, round(body["duration"]))}


def test_usage_is_duration_for_whisper_and_tokens_otherwise() -> None:
    assert _usage(TEXT, "whisper-1")["type"] == "duration"
    tokens = _usage(TEXT, "gpt-4o-mini-transcribe")
    assert tokens["output_tokens"] == count_tokens(TEXT)
    assert tokens["input_tokens"] == tokens["input_token_details"]["audio_tokens"]
    assert tokens["total_tokens"] == tokens["input_tokens"] + tokens["output_tokens"]


def test_an_unknown_form_names_the_known_ones() -> None:
    answer = transcribed({"model": "whisper-1", "response_format": "xml"})
    assert answer.status_code == 400
    assert (
        body_of(answer)["error"]["message"]
        == "response_format 'xml' must be json, text, srt, verbose_json or vtt"
    )


def test_the_transcription_options_are_checked_and_filed() -> None:
    with pytest.raises(Exception, match="text=3 must be text"):
        llm.transcription(3)  # type: ignore[arg-type]
    assert llm.transcription().to_args() == {}
    assert llm.transcription("x", language="de").to_args() == {"text": "x", "language": "de"}


# -- speech --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("form_", "kind", "magic"),
    [("mp3", "audio/mpeg", b""), ("wav", "audio/wav", b"RIFF"), ("pcm", "audio/pcm", b"")],
)
def test_speech_in_each_format(form_: str, kind: str, magic: bytes) -> None:
    body = {"model": "tts-1", "input": "Hi there", "voice": "alloy", "response_format": form_}
    answer = llm.speech().build(request(body, "/v1/audio/speech"))
    assert dict(answer.headers)["Content-Type"] == kind
    assert answer.content == audio("Hi there", form_)
    assert answer.content.startswith(magic)
    assert answer.content


def test_speech_defaults_to_mp3() -> None:
    answer = llm.speech().build(request({"input": "Hi"}, "/v1/audio/speech"))
    assert dict(answer.headers)["Content-Type"] == "audio/mpeg"


def test_speech_events_carry_the_audio_in_pieces_then_usage() -> None:
    body = {
        "input": "Hi there, how are you today?",
        "response_format": "pcm",
        "stream_format": "sse",
    }
    events = payloads(llm.speech().build(request(body, "/v1/audio/speech")))
    deltas = [base64.b64decode(e["audio"]) for e in events[:-1]]
    assert {e["type"] for e in events[:-1]} == {"speech.audio.delta"}
    assert b"".join(deltas) == audio(body["input"], "pcm")
    assert all(len(d) == _PIECE for d in deltas[:-1])
    usage = events[-1]["usage"]
    assert events[-1]["type"] == "speech.audio.done"
    assert usage["input_tokens"] == count_tokens(body["input"])
    assert usage["output_tokens"] == max(1, len(b"".join(deltas)) // _PIECE)
    assert len(deltas) == math.ceil(len(b"".join(deltas)) / _PIECE)


@pytest.mark.parametrize("body", [None, {"input": 3}, {"voice": "alloy"}, [1]])
def test_speech_without_input_text_is_a_400(body: Any) -> None:
    raw = b"" if body is None else body
    answer = llm.speech().build(request(raw, "/v1/audio/speech"))
    assert answer.status_code == 400
    assert body_of(answer)["error"]["message"] == "'input' is required (text)"


def test_speech_in_a_format_not_encoded_says_which_are() -> None:
    answer = llm.speech().build(
        request({"input": "x", "response_format": "opus"}, "/v1/audio/speech")
    )
    assert answer.status_code == 400
    assert (
        body_of(answer)["error"]["message"]
        == "response_format 'opus': this mock encodes mp3, wav, pcm only"
    )
