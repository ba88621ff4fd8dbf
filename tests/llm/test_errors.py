"""Provider errors with the reply's own retry_after, message, code and type, on the wire:
one ``retry-after`` header (the reply's headers replace the table's), and the openai SDK
retrying at once on a short wait."""

from __future__ import annotations

import time

import anthropic
import httpx
import openai
import pytest

import mockhttp
from mockhttp import ConfigError, llm

BODY = {"model": "m", "messages": [{"role": "user", "content": "Hi"}]}


def test_headers_replace_the_tables_retry_after(server: mockhttp.Server) -> None:
    """``headers={"retry-after": "0"}`` replaces the 429's ``retry-after: 1``: one header."""
    reply = llm.openai_chat(error="rate_limit", headers={"Retry-After": "0"})
    server.mock(mockhttp.post("/v1/chat/completions").reply(reply))
    got = httpx.post(server.url + "/v1/chat/completions", json=BODY)
    assert got.status_code == 429
    assert got.headers.get_list("retry-after") == ["0"]


@pytest.mark.parametrize(
    ("kind", "path", "status"),
    [
        (llm.openai_chat, "/v1/chat/completions", 503),
        (llm.openai_responses, "/v1/responses", 503),
        (llm.anthropic_messages, "/v1/messages", 529),
        (llm.gemini, "/v1beta/models/g:generateContent", 503),
    ],
)
def test_retry_after_message_and_type_on_every_api(
    server: mockhttp.Server, kind: type[llm.LLMReply], path: str, status: int
) -> None:
    """``retry_after``, ``error_message`` and ``error_type`` on any error of any API."""
    reply = kind(error="overloaded", retry_after="2.5s", error_message="Busy.", error_type="busy")
    server.mock(mockhttp.post(path).reply(reply))
    got = httpx.post(server.url + path, json=BODY)
    assert got.status_code == status
    assert got.headers.get_list("retry-after") == ["2.5"]
    error = got.json()["error"]
    assert error["message"] == "Busy."
    assert error["status" if kind is llm.gemini else "type"] == "busy"
    if kind is llm.gemini:
        assert error["details"][0]["retryDelay"] == "2.5s"


@pytest.mark.parametrize(("wait", "fast"), [("1ms", True), (0, False)])
def test_openai_sdk_retry_waits(server: mockhttp.Server, wait: object, fast: bool) -> None:
    """Two 429s then an answer.  ``retry_after="1ms"`` (``retry-after: 0.001``): the
    SDK's retries take no wait.  ``retry_after=0``: the openai SDK takes only a wait above
    0 and falls back to its own backoff (0.5 s, then 1 s, less jitter)."""
    server.mock(
        mockhttp.post("/v1/chat/completions").replies(
            llm.openai_chat(error="rate_limit", retry_after=wait),  # type: ignore[arg-type]
            llm.openai_chat(error="rate_limit", retry_after=wait),  # type: ignore[arg-type]
            llm.openai_chat("Finally."),
        )
    )
    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=2) as client:
        start = time.monotonic()
        done = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}]
        )
        took = time.monotonic() - start
    assert done.choices[0].message.content == "Finally."
    assert len(server.journal) == 3
    # its own backoff takes at least 0.375 + 0.75 s: the bound for "no wait" leaves room for
    # three requests on a loaded machine
    assert (took < 0.9) if fast else (took > 0.6)


def test_sdks_read_the_replys_own_message_and_code(server: mockhttp.Server) -> None:
    """The openai and anthropic SDKs raise with the reply's message, code and type."""
    server.mock(
        mockhttp.post("/v1/chat/completions").reply(
            llm.openai_chat(error="rate_limit", error_message="Slow down.", error_code="quota")
        )
    )
    server.mock(
        mockhttp.post("/v1/messages").reply(
            llm.anthropic_messages(error="rate_limit", error_message="Wait a bit.")
        )
    )
    with (
        openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as client,
        pytest.raises(openai.RateLimitError) as caught,
    ):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert caught.value.code == "quota"
    assert "Slow down." in str(caught.value)
    with (
        anthropic.Anthropic(base_url=server.url, api_key="sk-test", max_retries=0) as other,
        pytest.raises(anthropic.RateLimitError, match=r"Wait a bit\."),
    ):
        other.messages.create(model="c", max_tokens=5, messages=[{"role": "user", "content": "x"}])


def test_error_options_need_an_error_and_round_trip() -> None:
    """Without ``error`` they are refused; with it, the file form keeps them."""
    with pytest.raises(ConfigError, match="retry_after needs error"):
        llm.openai_chat("Hi", retry_after=0)
    mock = mockhttp.post("/v1/chat/completions").reply(
        llm.openai_chat(error="rate_limit", retry_after="250ms", error_message="m")
    )
    assert "retry_after: 250ms" in mock.to_yaml()
    assert mockhttp.loads(mock.to_yaml()) == [mock]
