"""The unmatched-request 404 in the shape of the API called: each SDK raises its own error
type, the explanation as its message, and no key in it."""

from __future__ import annotations

from collections.abc import Iterator

import anthropic
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

import mockhttp

KEY = "sk-ant-api03-SdkSecret0042"
WHY = "no mock matched POST "


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/v1/models", name="models").reply(mockhttp.ok()))
        yield server


def test_openai_raises_not_found_with_the_explanation(server: mockhttp.Server) -> None:
    with openai.OpenAI(base_url=server.url + "/v1", api_key=KEY, max_retries=0) as client:
        with pytest.raises(openai.NotFoundError) as raised:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert f"{WHY}/v1/chat/completions" in str(raised.value)
        assert "closest: mock 'models'" in raised.value.message
        assert "sk-" not in str(raised.value)
        with pytest.raises(openai.NotFoundError) as raised:
            client.responses.create(model="m", input="hi")
    assert f"{WHY}/v1/responses" in str(raised.value)
    assert "sk-" not in str(raised.value)


def test_anthropic_raises_not_found_with_the_explanation(server: mockhttp.Server) -> None:
    with (
        anthropic.Anthropic(base_url=server.url, api_key=KEY, max_retries=0) as client,
        pytest.raises(anthropic.NotFoundError) as raised,
    ):
        client.messages.create(
            model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )
    assert raised.value.body == {
        "type": "error",
        "error": {"type": "not_found_error", "message": raised.value.body["error"]["message"]},  # type: ignore[index]
    }
    assert f"{WHY}/v1/messages" in str(raised.value)
    assert "sk-" not in str(raised.value)
    assert "x-api-key" not in str(raised.value)  # the request's headers are not echoed


def test_google_genai_raises_client_error_with_the_explanation(server: mockhttp.Server) -> None:
    options = genai_types.HttpOptions(base_url=server.url)
    with (
        genai.Client(api_key=KEY, http_options=options) as client,
        pytest.raises(genai_errors.ClientError) as raised,
    ):
        client.models.generate_content(model="gemini-test", contents="hi")
    error = raised.value
    assert (error.code, error.status) == (404, "NOT_FOUND")
    assert error.message is not None
    assert f"{WHY}/v1/models/gemini-test:generateContent" in error.message
    assert "sk-" not in str(error)
