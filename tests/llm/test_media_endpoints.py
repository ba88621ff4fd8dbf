"""Images, speech, transcription and moderation, read by the official ``openai`` SDK from
``mockhttp serve``'s built-in mocks, and the files decoded by real decoders."""

from __future__ import annotations

import base64
import io
import wave
import zlib
from collections.abc import Iterator

import httpx
import openai
import pytest

import mockhttp
from mockhttp import ConfigError, llm
from mockhttp.llm._media import mp3, pcm, png
from tests.helpers.cli_process import Serving


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with Serving("--quiet") as serving:
        yield serving.url
        assert serving.stop() == 0


@pytest.fixture
def client(url: str) -> Iterator[openai.OpenAI]:
    """A client per test: its pooled connection closes with it, in the test that made it."""
    with openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0) as c:
        yield c


def png_size(data: bytes) -> tuple[int, int]:
    """Read a PNG as a decoder does: signature, chunk CRCs, and the pixels inflated."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, size, pixels = 8, (0, 0), b""
    while at < len(data):
        length = int.from_bytes(data[at : at + 4], "big")
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        crc = int.from_bytes(data[at + 8 + length : at + 12 + length], "big")
        assert zlib.crc32(kind + body) == crc, kind
        if kind == b"IHDR":
            size = (int.from_bytes(body[:4], "big"), int.from_bytes(body[4:8], "big"))
        elif kind == b"IDAT":
            pixels += body
        at += 12 + length
    assert len(zlib.decompress(pixels)) == size[1] * (1 + 3 * size[0])
    return size


def test_images_b64_json_and_url(client: openai.OpenAI) -> None:
    b64 = client.images.generate(model="gpt-image-1", prompt="a red fox", size="256x256")
    assert b64.data is not None
    assert b64.data[0].b64_json is not None
    assert png_size(base64.b64decode(b64.data[0].b64_json)) == (256, 256)
    assert b64.usage is not None
    assert b64.usage.input_tokens == 3
    url = client.images.generate(
        model="dall-e-3", prompt="a red fox", size="1024x1792", response_format="url", n=1
    )
    assert url.data is not None
    assert url.data[0].url is not None
    fetched = httpx.get(url.data[0].url)
    assert fetched.headers["content-type"] == "image/png"
    assert png_size(fetched.content) == (1024, 1792)


def test_images_streamed_partial_then_completed(client: openai.OpenAI) -> None:
    stream = client.images.generate(
        model="gpt-image-1", prompt="a red fox", size="64x64", stream=True, partial_images=2
    )
    events = list(stream)
    assert [e.type for e in events] == [
        "image_generation.partial_image",
        "image_generation.partial_image",
        "image_generation.completed",
    ]
    assert png_size(base64.b64decode(events[-1].b64_json)) == (64, 64)


def test_speech_files_decode(client: openai.OpenAI) -> None:
    said = client.audio.speech.create(
        model="gpt-4o-mini-tts", voice="alloy", input="Hello there", response_format="wav"
    )
    with wave.open(io.BytesIO(said.content)) as w:
        assert (w.getnchannels(), w.getsampwidth(), w.getframerate()) == (1, 2, 24000)
        assert w.getnframes() == 15840  # 0.66 s: 60 ms a character
    raw = client.audio.speech.create(
        model="tts-1", voice="alloy", input="Hello there", response_format="pcm"
    )
    assert raw.content == pcm("Hello there")
    default = client.audio.speech.create(model="tts-1", voice="alloy", input="Hi")
    assert default.response.headers["content-type"] == "audio/mpeg"
    assert default.content[:2] == b"\xff\xfb"
    assert len(default.content) % 417 == 0


def test_speech_streamed_as_events(client: openai.OpenAI) -> None:
    with client.audio.speech.with_streaming_response.create(
        model="gpt-4o-mini-tts",
        voice="alloy",
        input="Hello there",
        response_format="pcm",
        stream_format="sse",
    ) as answer:
        body = answer.read()
    assert answer.headers["content-type"].startswith("text/event-stream")
    chunks = [line[6:] for line in body.decode().split("\n") if line.startswith("data: ")]
    audio = b"".join(
        base64.b64decode(httpx.Response(200, content=c).json().get("audio", "")) for c in chunks
    )
    assert audio == pcm("Hello there")
    assert '"type":"speech.audio.done"' in chunks[-1]


def test_speech_refuses_a_format_it_does_not_encode(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="encodes mp3, wav, pcm only"):
        client.audio.speech.create(model="tts-1", voice="alloy", input="x", response_format="opus")


def test_transcription_buffered_and_streamed(client: openai.OpenAI) -> None:
    audio = ("speech.wav", io.BytesIO(b"RIFF...."), "audio/wav")
    text = client.audio.transcriptions.create(model="gpt-4o-transcribe", file=audio)
    assert text.text == "Hello, world"
    assert text.usage is not None
    assert text.usage.type == "tokens"
    stream = client.audio.transcriptions.create(model="gpt-4o-transcribe", file=audio, stream=True)
    events = list(stream)
    assert [e.type for e in events[:-1]] == ["transcript.text.delta"] * (len(events) - 1)
    assert "".join(e.delta for e in events[:-1]) == "Hello, world"  # type: ignore[union-attr]
    assert events[-1].type == "transcript.text.done"
    assert events[-1].text == "Hello, world"
    srt = client.audio.transcriptions.create(model="whisper-1", file=audio, response_format="srt")
    assert srt == "1\n00:00:00,000 --> 00:00:00,720\nHello, world\n\n"
    verbose = client.audio.transcriptions.create(
        model="whisper-1", file=audio, response_format="verbose_json"
    )
    assert verbose.segments is not None
    assert verbose.segments[0].end == 0.72


def test_transcription_needs_a_file(client: openai.OpenAI) -> None:
    answer = httpx.post(str(client.base_url) + "audio/transcriptions", data={"model": "m"})
    assert answer.status_code == 400


def test_moderation_flags_the_words_of_a_category() -> None:
    kind = llm.moderation(flag={"violence": ["attack"]})
    with mockhttp.Server() as server:
        server.mock(mockhttp.post("/v1/moderations").reply(kind))
        with openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0) as c:
            answer = c.moderations.create(
                model="omni-moderation-latest", input=["They will ATTACK at dawn", "a quiet day"]
            )
    first, second = answer.results
    assert first.flagged
    assert first.categories.violence
    assert first.category_scores.violence == 0.98
    assert not second.flagged
    assert second.category_scores.violence == 0.0001


def test_moderation_built_in_flags_nothing(client: openai.OpenAI) -> None:
    answer = client.moderations.create(input="hello")
    assert answer.results[0].flagged is False
    assert answer.id.startswith("modr-")


def test_media_are_deterministic() -> None:
    assert png(2, 1, (1, 2, 3)) == png(2, 1, (1, 2, 3))
    assert mp3(0.001) == mp3(0.02)  # one frame at least
    assert pcm("a") == pcm("a")
    assert pcm("a") != pcm("b")


@pytest.mark.parametrize(
    "make",
    [
        lambda: llm.moderation(flag={"violent": ["x"]}),
        lambda: llm.moderation(flag={"violence": "x"}),
        lambda: llm.transcription(text=5),  # type: ignore[arg-type]
        lambda: llm.images(revised_prompt=1),  # type: ignore[arg-type]
    ],
)
def test_bad_arguments_raise_config_errors(make: object) -> None:
    with pytest.raises(ConfigError):
        make()  # type: ignore[operator]
