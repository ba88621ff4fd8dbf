"""llm/_embeddings.py, in more depth: the dimensions rule (Rule 2) entry by entry, the
input shapes of both APIs, the vectors' properties (Rule 1, hypothesis), the checks, pure."""

from __future__ import annotations

import base64
import math
import struct
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp import ConfigError, llm
from mockhttp.llm._embeddings import _dimensions, _gemini_text, _openai_inputs, vector
from tests.helpers.llm_build import body_of, request

OPENAI = "/v1/embeddings"
GEMINI = "/v1beta/models/{model}:embedContent"
BATCH = "/v1beta/models/{model}:batchEmbedContents"


@pytest.mark.parametrize(
    ("asked", "default", "model", "dimensions"),
    [
        (8, 16, "text-embedding-3-large", 8),  # the request first
        (None, 16, "text-embedding-3-large", 16),  # then the reply's
        (None, None, "text-embedding-3-large", 3072),  # then the model's own
        (None, None, "models/text-embedding-004", 768),
        (None, None, "gemini-embedding-001", 3072),
        (None, None, "gemini-embedding-exp", 768),  # an unknown Gemini model
        (None, None, "embedding-gecko", 768),
        (None, None, "my-embedder", 1536),  # an unknown model: OpenAI's
    ],
)
def test_dimensions_entry_by_entry(asked: Any, default: Any, model: str, dimensions: int) -> None:
    assert _dimensions(asked, default, model) == dimensions


@pytest.mark.parametrize(
    ("value", "texts"),
    [
        ("a b", ["a b"]),
        (["a", "b"], ["a", "b"]),
        ([1, 2, 3], ["1 2 3"]),
        ([[1, 2], [3]], ["1 2", "3"]),
        (["a", [1]], ["a", "1"]),
        ([], None),
        (None, None),
        ([["a"]], None),
        ([1.5], None),
        ({"text": "a"}, None),
    ],
)
def test_openai_input_shapes(value: Any, texts: Any) -> None:
    assert _openai_inputs(value) == texts


@pytest.mark.parametrize(
    ("content", "text"),
    [
        ({"parts": [{"text": "a"}, {"text": "b"}]}, "ab"),
        ({"parts": [{"text": "a"}, {"inline_data": {}}]}, None),
        ({"parts": []}, None),
        ({"parts": "a"}, None),
        ("a", None),
        (None, None),
    ],
)
def test_gemini_content_shapes(content: Any, text: Any) -> None:
    assert _gemini_text(content) == text


@given(st.text(max_size=40), st.integers(1, 64))
def test_a_vector_is_a_unit_vector_the_same_every_time(text: str, dimensions: int) -> None:
    made = vector(text, dimensions)
    assert len(made) == dimensions
    assert made == vector(text, dimensions)
    assert math.isclose(math.fsum(x * x for x in made), 1.0, rel_tol=1e-9)


@given(st.lists(st.from_regex(r"[a-z]{1,6}", fullmatch=True), min_size=1, max_size=5))
def test_case_and_punctuation_do_not_change_a_vector(words: list[str]) -> None:
    plain = " ".join(words)
    assert vector(plain.upper() + "!", 32) == pytest.approx(vector(plain, 32))


def test_both_encodings_carry_the_same_vector() -> None:
    body = {"input": ["the cat sat", "a dog"], "dimensions": 16}
    floats = body_of(llm.embeddings().build(request(body, OPENAI)))
    packed = body_of(llm.embeddings().build(request({**body, "encoding_format": "base64"}, OPENAI)))
    for f, p in zip(floats["data"], packed["data"], strict=True):
        assert struct.unpack("<16f", base64.b64decode(p["embedding"])) == pytest.approx(
            f["embedding"], rel=1e-6
        )
    assert floats["usage"] == {"prompt_tokens": 5, "total_tokens": 5}
    assert floats["model"] == "text-embedding-3-small"


def test_gemini_one_and_batch_agree() -> None:
    one = body_of(
        llm.embeddings().build(
            request(
                {"content": {"parts": [{"text": "the cat"}]}, "outputDimensionality": 8},
                GEMINI.format(model="text-embedding-004"),
            )
        )
    )
    batch = body_of(
        llm.embeddings().build(
            request(
                {
                    "requests": [
                        {"content": {"parts": [{"text": "the cat"}]}, "outputDimensionality": 8},
                        {"content": {"parts": [{"text": "x"}]}},
                    ]
                },
                BATCH.format(model="text-embedding-004"),
            )
        )
    )
    assert batch["embeddings"][0] == one["embedding"]
    assert len(batch["embeddings"][1]["values"]) == 768


def test_a_fixed_vector_wins_whatever_the_dimensions() -> None:
    reply = llm.embeddings(fixed={"the cat": [1, 0, 0]})
    body = body_of(reply.build(request({"input": ["the cat", "a dog"], "dimensions": 8}, OPENAI)))
    assert body["data"][0]["embedding"] == [1.0, 0.0, 0.0]
    assert len(body["data"][1]["embedding"]) == 8
    assert reply.to_args() == {"fixed": {"the cat": [1.0, 0.0, 0.0]}}


@pytest.mark.parametrize(
    ("path", "body", "message"),
    [
        (OPENAI, [1], "the body must be a JSON object"),
        (OPENAI, {"input": 3}, "'input' must be a string, a list of strings or of token arrays"),
        (OPENAI, {"input": "a", "dimensions": 0}, "'dimensions' must be an integer from 1 to 8192"),
        (
            OPENAI,
            {"input": "a", "dimensions": True},
            "'dimensions' must be an integer from 1 to 8192",
        ),
        (
            OPENAI,
            {"input": "a", "encoding_format": "hex"},
            "'encoding_format' must be 'float' or 'base64'",
        ),
        (GEMINI.format(model="m"), {"content": "a"}, "'content' must hold 'parts' with text"),
        (
            GEMINI.format(model="m"),
            {"content": {"parts": [{"text": "a"}]}, "outputDimensionality": 99999},
            "'outputDimensionality' is out of range",
        ),
        (
            BATCH.format(model="m"),
            {"requests": {}},
            "'requests' must be a list of embedContent requests",
        ),
    ],
)
def test_bad_requests_in_each_apis_error_shape(path: str, body: Any, message: str) -> None:
    answer = llm.embeddings().build(request(body, path))
    assert answer.status_code == 400
    error = body_of(answer)["error"]
    assert error["message"] == message
    assert ("status" in error) == ("models/" in path)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dimensions": 0}, "dimensions=0 must be an int from 1 to 8192"),
        ({"dimensions": 1.5}, "dimensions=1.5"),
        ({"fixed": ["a"]}, "fixed=.* must map input text to a vector"),
        ({"fixed": {"a": []}}, r"fixed\['a'\]=\[\] must be a non-empty list of numbers"),
        ({"fixed": {"a": "1,2"}}, "must be a non-empty list of numbers"),
        ({"fixed": {"a": [True]}}, "must be a non-empty list of numbers"),
    ],
)
def test_bad_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        llm.embeddings(**options)
