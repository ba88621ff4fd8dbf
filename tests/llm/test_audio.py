"""``llm.speech`` and ``llm.transcription`` built on requests directly: the formats, the
multipart form as clients send it (built by httpx), subtitles and usage."""

from __future__ import annotations

import json

import httpx
import pytest

from mockhttp import llm
from mockhttp._core._reply import Reply
from mockhttp._core._request import Headers, Request
from mockhttp.llm._audio import form_fields
from mockhttp.llm._media import mp3, pcm, seconds_for, wav


def multipart(fields: dict[str, str], with_file: bool = True) -> Request:
    files = {"file": ("a.wav", b"RIFF....", "audio/wav")} if with_file else None
    sent = httpx.Request("POST", "http://x/v1/audio/transcriptions", data=fields, files=files)
    body = sent.read()
    headers = Headers((("content-type", sent.headers["content-type"]),))
    return Request("POST", "/v1/audio/transcriptions", headers, body)


def test_form_fields_read_what_httpx_sends() -> None:
    assert form_fields(multipart({"model": "whisper-1", "stream": "true"})) == {
        "model": "whisper-1",
        "stream": "true",
    }
    assert form_fields(multipart({"model": "m"}, with_file=False)) is None
    plain = Request("POST", "/", Headers((("content-type", "application/json"),)), b"{}")
    assert form_fields(plain) is None


@pytest.mark.parametrize(
    ("form", "expected"),
    [
        ("text", "It works\n"),
        ("srt", "1\n00:00:00,000 --> 00:00:00,480\nIt works\n\n"),
        ("vtt", "WEBVTT\n\n00:00:00.000 --> 00:00:00.480\nIt works\n\n"),
    ],
)
def test_text_forms(form: str, expected: str) -> None:
    reply = llm.transcription("It works").build(
        multipart({"model": "whisper-1", "response_format": form})
    )
    assert reply.content.decode() == expected


def test_json_usage_by_model() -> None:
    kind = llm.transcription("It works")
    tokens = json.loads(kind.build(multipart({"model": "gpt-4o-transcribe"})).content)
    assert tokens["usage"]["type"] == "tokens"
    assert tokens["usage"]["output_tokens"] == 2
    seconds = json.loads(kind.build(multipart({"model": "whisper-1"})).content)
    assert seconds["usage"] == {"type": "duration", "seconds": 1}


def test_streamed_deltas_join_to_the_text() -> None:
    reply = llm.transcription("one two three").build(
        multipart({"model": "gpt-4o-mini-transcribe", "stream": "true"})
    )
    assert reply.stream is not None
    deltas = [e.data for e in reply.stream.events]
    assert "".join(d.get("delta", "") for d in deltas[:-1]) == "one two three"
    assert deltas[-1]["type"] == "transcript.text.done"


def test_whisper_does_not_stream() -> None:
    reply = llm.transcription().build(multipart({"model": "whisper-1", "stream": "true"}))
    assert reply.stream is None


def test_unknown_form_is_a_400() -> None:
    reply = llm.transcription().build(multipart({"model": "m", "response_format": "xml"}))
    assert reply.status_code == 400


def speech(body: object) -> Reply:
    request = Request("POST", "/v1/audio/speech", Headers(), json.dumps(body).encode())
    return llm.speech().build(request)


def test_speech_formats() -> None:
    said = "Hello there"
    assert speech({"input": said}).content == mp3(seconds_for(said))
    assert speech({"input": said, "response_format": "wav"}).content == wav(pcm(said))
    assert speech({"input": said, "response_format": "pcm"}).content == pcm(said)


def test_speech_events_carry_the_audio_in_pieces() -> None:
    reply = speech({"input": "Hello there", "response_format": "pcm", "stream_format": "sse"})
    assert reply.stream is not None
    events = reply.stream.events
    assert len(events) > 2
    assert events[-1].data["type"] == "speech.audio.done"


@pytest.mark.parametrize("body", [{}, {"input": 5}, {"input": "x", "response_format": "flac"}])
def test_speech_bad_requests(body: object) -> None:
    assert speech(body).status_code == 400
