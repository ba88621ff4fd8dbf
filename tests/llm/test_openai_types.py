"""The OpenAI media endpoints' answers (llm/_embeddings, _images, _moderation, _audio),
validated by the openai SDK's own types.

The SDK builds its objects without validating (``construct``), so a field the API's schema
requires and the mock leaves out reaches a client as a missing attribute, not an error:
this module validates each answer with the SDK's pydantic types, strictly, and allows no
key the types do not name (but the one the API sends and the types leave out, named
below).  Two such drifts were found this way in the chat providers' answers
(tests/llm/test_openai_responses.py, tests/llm/test_models.py).
"""

from __future__ import annotations

import base64
import struct
from typing import Any

import httpx
import pytest
from openai.types import (
    CreateEmbeddingResponse,
    ImageGenStreamEvent,
    ImagesResponse,
    ModerationCreateResponse,
)
from openai.types.audio import Transcription, TranscriptionStreamEvent, TranscriptionVerbose
from pydantic import TypeAdapter

from mockhttp import Headers, Request, llm
from tests.helpers.llm_build import body_of, payloads, request, sdk_extras


def valid(kind: Any, data: Any, allowed: frozenset[str] = frozenset()) -> Any:
    value = TypeAdapter(kind).validate_python(data)
    assert set(sdk_extras(value)) <= allowed, data
    return value


def form(fields: dict[str, str]) -> Request:
    """A multipart transcription request, encoded by httpx as the SDK sends it."""
    sent = httpx.Request(
        "POST",
        "http://mock/v1/audio/transcriptions",
        data=fields,
        files={"file": ("a.wav", b"RIFF0000WAVE", "audio/wav")},
    )
    headers = Headers((("content-type", sent.headers["content-type"]),))
    return Request("POST", "/v1/audio/transcriptions", headers, sent.read())


# -- embeddings ----------------------------------------------------------------------------


def test_embeddings_are_a_create_embedding_response() -> None:
    body = {"model": "text-embedding-3-small", "input": ["a b", "c"], "dimensions": 8}
    answer = valid(
        CreateEmbeddingResponse, body_of(llm.embeddings().build(request(body, "/v1/embeddings")))
    )
    assert [d.index for d in answer.data] == [0, 1]
    assert answer.model == "text-embedding-3-small"
    assert answer.usage.prompt_tokens == answer.usage.total_tokens == 3
    assert all(len(d.embedding) == 8 for d in answer.data)


def test_base64_embeddings_are_the_float32_of_the_float_ones() -> None:
    """(the SDK's type names the float form; a base64 answer is a string it decodes)"""
    body = {"model": "text-embedding-3-small", "input": "a b", "dimensions": 8}
    floats = body_of(llm.embeddings().build(request(body, "/v1/embeddings")))["data"][0][
        "embedding"
    ]
    packed = body_of(
        llm.embeddings().build(request({**body, "encoding_format": "base64"}, "/v1/embeddings"))
    )
    raw = packed["data"][0]["embedding"]
    assert isinstance(raw, str)
    assert struct.unpack("<8f", base64.b64decode(raw)) == pytest.approx(floats, rel=1e-6)


# -- images --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        {"model": "gpt-image-1", "prompt": "a red cat", "size": "16x16"},
        {
            "model": "dall-e-3",
            "prompt": "a red cat",
            "size": "16x16",
            "response_format": "url",
            "n": 2,
        },
    ],
)
def test_images_are_an_images_response(body: dict[str, Any]) -> None:
    answer = valid(
        ImagesResponse, body_of(llm.images().build(request(body, "/v1/images/generations")))
    )
    assert answer.data is not None
    assert len(answer.data) == body.get("n", 1)
    image = answer.data[0]
    if body.get("response_format") == "url":
        assert image.url is not None
        assert image.url.endswith(".png")
    else:
        assert image.b64_json is not None
        assert base64.b64decode(image.b64_json).startswith(b"\x89PNG\r\n\x1a\n")


def test_streamed_images_are_image_gen_stream_events() -> None:
    body = {
        "model": "gpt-image-1",
        "prompt": "a cat",
        "size": "16x16",
        "stream": True,
        "partial_images": 2,
    }
    events = [
        valid(ImageGenStreamEvent, p)
        for p in payloads(llm.images().build(request(body, "/v1/images/generations")))
    ]
    assert [e.type for e in events] == ["image_generation.partial_image"] * 2 + [
        "image_generation.completed"
    ]
    assert [e.partial_image_index for e in events[:2]] == [0, 1]


# -- moderation ----------------------------------------------------------------------------


def test_moderation_is_a_moderation_create_response() -> None:
    reply = llm.moderation(flag={"violence": ["kill"]})
    answer = valid(
        ModerationCreateResponse,
        body_of(reply.build(request({"input": ["I will kill", "hi"]}, "/v1/moderations"))),
    )
    assert [r.flagged for r in answer.results] == [True, False]
    assert answer.results[0].categories.violence is True
    assert answer.results[0].category_scores.violence == 0.98


# -- transcription -------------------------------------------------------------------------

# verbose_json's ``task`` ("transcribe"): sent by the API, not named by the SDK's type
TASK = frozenset({".task"})


@pytest.mark.parametrize(
    ("fields", "kind", "allowed"),
    [
        ({"model": "gpt-4o-transcribe"}, Transcription, frozenset()),
        ({"model": "whisper-1"}, Transcription, frozenset()),
        ({"model": "whisper-1", "response_format": "verbose_json"}, TranscriptionVerbose, TASK),
    ],
)
def test_transcriptions_are_the_sdks_types(
    fields: dict[str, str], kind: Any, allowed: frozenset[str]
) -> None:
    answer = valid(
        kind, body_of(llm.transcription("Hello there, world.").build(form(fields))), allowed
    )
    assert answer.text == "Hello there, world."


def test_a_gpt_4o_transcription_has_token_usage() -> None:
    answer = valid(
        Transcription, body_of(llm.transcription("Hi").build(form({"model": "gpt-4o-transcribe"})))
    )
    assert answer.usage is not None
    assert answer.usage.type == "tokens"


def test_streamed_transcriptions_are_transcription_stream_events() -> None:
    reply = llm.transcription("Hello there, world.")
    events = [
        valid(TranscriptionStreamEvent, p)
        for p in payloads(reply.build(form({"model": "gpt-4o-transcribe", "stream": "true"})))
    ]
    assert events[-1].type == "transcript.text.done"
    assert (
        "".join(e.delta for e in events[:-1] if e.type == "transcript.text.delta")
        == events[-1].text
    )
