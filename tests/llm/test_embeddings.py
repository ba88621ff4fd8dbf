"""Embeddings read by the official SDKs: OpenAI's (float and base64, ``dimensions``) and
Gemini's (``embed_content`` → ``batchEmbedContents``), vectors made from the input."""

from __future__ import annotations

import math
from collections.abc import Iterator

import httpx
import openai
import pytest
from google import genai
from google.genai import types

import mockhttp
from mockhttp import ConfigError, llm
from mockhttp.llm._embeddings import vector


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with mockhttp.Server() as server:
        server.mock(
            mockhttp.post("/v1/embeddings").reply(llm.embeddings(fixed={"pinned": [1.0, 0.0]}))
        )
        server.mock(
            mockhttp.post(mockhttp.match.regex(r":(batchE|e)mbedContents?$")).reply(
                llm.embeddings()
            )
        )
        yield server.url


@pytest.fixture
def client(url: str) -> Iterator[openai.OpenAI]:
    """An openai client of the module's server, closed at the test's end (not by the GC)."""
    with openai.OpenAI(base_url=url + "/v1", api_key="k", max_retries=0) as c:
        yield c


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_openai_sdk_reads_base64_and_float_alike(client: openai.OpenAI) -> None:
    default = client.embeddings.create(model="text-embedding-3-small", input=["a cat", "a dog"])
    floats = client.embeddings.create(
        model="text-embedding-3-small", input=["a cat", "a dog"], encoding_format="float"
    )
    assert [len(d.embedding) for d in default.data] == [1536, 1536]
    for b64, plain in zip(default.data, floats.data, strict=True):
        assert b64.embedding == pytest.approx(plain.embedding, abs=1e-6)  # float32 on the wire
        assert math.isclose(cosine(plain.embedding, plain.embedding), 1.0, rel_tol=1e-9)
    assert default.usage.prompt_tokens == 4
    assert default.model == "text-embedding-3-small"


def test_dimensions_and_the_models_own(client: openai.OpenAI) -> None:
    small = client.embeddings.create(model="text-embedding-3-large", input="x", dimensions=256)
    large = client.embeddings.create(model="text-embedding-3-large", input="x")
    assert (len(small.data[0].embedding), len(large.data[0].embedding)) == (256, 3072)


def test_the_nearest_neighbour_shares_the_most_words(client: openai.OpenAI) -> None:
    documents = [
        "The weather in Paris is sunny today",
        "Stock markets fell sharply on Monday",
        "A recipe for a chocolate cake",
    ]
    answer = client.embeddings.create(
        model="text-embedding-3-small", input=["weather Paris", *documents]
    )
    query, *docs = (d.embedding for d in answer.data)
    scores = [cosine(query, d) for d in docs]
    assert scores.index(max(scores)) == 0
    again = client.embeddings.create(model="text-embedding-3-small", input="weather Paris")
    assert again.data[0].embedding == pytest.approx(query, abs=1e-6)  # the same every call


def test_a_fixed_vector_is_sent_as_written(url: str) -> None:
    answer = httpx.post(url + "/v1/embeddings", json={"input": ["pinned", "other"]}).json()
    assert answer["data"][0]["embedding"] == [1.0, 0.0]
    assert len(answer["data"][1]["embedding"]) == 1536


def test_gemini_sdk_embeds_contents(url: str) -> None:
    with genai.Client(api_key="k", http_options=types.HttpOptions(base_url=url)) as client:
        answer = client.models.embed_content(
            model="gemini-embedding-001",
            contents=["weather Paris", "chocolate cake"],
            config=types.EmbedContentConfig(output_dimensionality=64),
        )
    assert answer.embeddings is not None
    values = [e.values for e in answer.embeddings]
    assert [len(v or []) for v in values] == [64, 64]
    assert values[0] == pytest.approx(vector("weather Paris", 64))


def test_gemini_embed_content_one(url: str) -> None:
    body = {"content": {"parts": [{"text": "hi"}]}}
    answer = httpx.post(url + "/v1beta/models/text-embedding-004:embedContent", json=body)
    assert len(answer.json()["embedding"]["values"]) == 768


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"input": 5}, "'input' must be"),
        ({"input": "x", "dimensions": 0}, "'dimensions' must be"),
        ({"input": "x", "encoding_format": "int8"}, "'encoding_format' must be"),
    ],
)
def test_bad_requests_get_openai_errors(url: str, body: object, message: str) -> None:
    answer = httpx.post(url + "/v1/embeddings", json=body)
    assert answer.status_code == 400
    assert answer.json()["error"]["message"].startswith(message)


def test_vectors_are_unit_length_and_stable() -> None:
    first = vector("The quick brown fox", 32)
    assert math.isclose(sum(x * x for x in first), 1.0)
    assert vector("the QUICK brown fox!", 32) == first  # words, any case
    assert vector("", 8) == vector("", 8)


@pytest.mark.parametrize(
    "args",
    [{"dimensions": 0}, {"dimensions": True}, {"fixed": {"a": []}}, {"fixed": {"a": ["x"]}}],
)
def test_bad_arguments_raise_config_errors(args: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        llm.embeddings(**args)  # type: ignore[arg-type]
