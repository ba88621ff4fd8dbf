"""``llm.openai_chat`` logprobs, read by the openai SDK: tokens that spell the text and
match the usage, streamed and buffered, in replies and in a conversation's chat turns."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest

import mockhttp
from mockhttp import llm

HI: Any = [{"role": "user", "content": "hi"}]
TEXT = "Hello, world! It's 42."
TOKENS = ["Hello", ",", " world", "!", " It", "'", "s", " 42", "."]


@pytest.mark.parametrize("chunk_size", [None, 3])
def test_streamed_tokens_spell_the_text_and_match_the_usage(
    server: mockhttp.Server, openai_client: openai.OpenAI, chunk_size: int | None
) -> None:
    """Cut into words or into 3 characters, the stream's tokens are the same 9."""
    server.mock(
        mockhttp.post("/v1/chat/completions").reply(
            llm.openai_chat(text=TEXT, chunk_size=chunk_size)
        )
    )
    stream = openai_client.chat.completions.create(
        model="m", messages=HI, logprobs=True, stream=True, stream_options={"include_usage": True}
    )
    tokens, text, usage = [], "", None
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage.completion_tokens
        for choice in chunk.choices:
            text += choice.delta.content or ""
            if choice.logprobs is not None and choice.logprobs.content:
                tokens += [t.token for t in choice.logprobs.content]
    assert (tokens, text, usage) == (TOKENS, TEXT, 9)


def test_buffered_logprobs_with_top_logprobs(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat(text=TEXT)))
    answer = openai_client.chat.completions.create(
        model="m", messages=HI, logprobs=True, top_logprobs=3
    )
    logprobs = answer.choices[0].logprobs
    assert logprobs is not None
    assert logprobs.content is not None
    assert [t.token for t in logprobs.content] == TOKENS
    assert answer.usage is not None
    assert answer.usage.completion_tokens == len(TOKENS)
    first = logprobs.content[0]
    assert (first.logprob, first.bytes) == (-0.01, list(b"Hello"))
    assert [(t.token, t.logprob) for t in first.top_logprobs] == [
        ("Hello", -0.01), (",", -1.01), (" world", -2.01),
    ]  # fmt: skip


def test_no_logprobs_unless_asked(server: mockhttp.Server, openai_client: openai.OpenAI) -> None:
    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat(text=TEXT)))
    answer = openai_client.chat.completions.create(model="m", messages=HI)
    assert answer.choices[0].logprobs is None
    raw = httpx.post(
        server.url + "/v1/chat/completions", json={"messages": HI, "stream": True}
    ).text
    assert '"logprobs":null' in raw
    assert '"token"' not in raw


def test_a_conversations_chat_turns_carry_logprobs(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    server.mock(llm.conversation(llm.turn("One, two."), llm.turn("Three.")))
    answer = openai_client.chat.completions.create(model="m", messages=HI, logprobs=True)
    logprobs = answer.choices[0].logprobs
    assert logprobs is not None
    assert logprobs.content is not None
    assert [t.token for t in logprobs.content] == ["One", ",", " two", "."]
    assert answer.usage is not None
    assert answer.usage.completion_tokens == 4
