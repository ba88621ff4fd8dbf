"""``reasoning=`` on every LLM reply, read by the official SDKs on the wire, streamed and
buffered, in Python and in mock files, and still clean under the contract rules."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import anthropic
import httpx
import openai
import pytest

import mockhttp
from mockhttp import llm
from mockhttp._core._errors import ConfigError
from mockhttp.contract import check
from mockhttp.llm._loop import PROFILE, _request, scenario, transcript

THOUGHT = "The user asks about Paris; check the weather."  # 10 tokens
MESSAGES: Any = [{"role": "user", "content": "Weather in Paris?"}]


def _chat_reasoning(delta: Any, field: str) -> str:
    """What a client reads from a chat delta or message: the vendor field the SDK keeps in
    ``model_extra`` (pydantic's extra fields, reachable as an attribute too)."""
    extra = delta.model_extra or {}
    assert extra.get(field) == getattr(delta, field, None)
    return str(extra.get(field) or "")


# -- Chat Completions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({}, "reasoning_content"),
        ({"as_": "deepseek"}, "reasoning_content"),
        ({"as_": "openrouter"}, "reasoning"),
        ({"as_": "groq"}, "reasoning"),
        ({"reasoning_field": "reasoning"}, "reasoning"),
    ],
)
def test_chat_reasoning_field_streamed_and_buffered(
    server: mockhttp.Server, openai_client: openai.OpenAI, options: dict[str, Any], field: str
) -> None:
    """The openai SDK reads the reasoning from the field the preset names, streamed (piece
    by piece, before any content) and buffered (whole, on the message)."""
    reply = llm.openai_chat("Sunny.", reasoning=THOUGHT, **options)
    server.mock(mockhttp.post("/v1/chat/completions").reply(reply))
    client = openai_client
    done = client.chat.completions.create(model="m", messages=MESSAGES)
    assert _chat_reasoning(done.choices[0].message, field) == THOUGHT
    assert done.choices[0].message.content == "Sunny."
    assert done.usage is not None
    assert done.usage.completion_tokens_details is not None
    assert done.usage.completion_tokens_details.reasoning_tokens == 10
    assert done.usage.completion_tokens == 10 + 2
    order, thought, text = [], [], []
    for chunk in client.chat.completions.create(model="m", messages=MESSAGES, stream=True):
        for choice in chunk.choices:
            piece = _chat_reasoning(choice.delta, field)
            thought.append(piece)
            text.append(choice.delta.content or "")
            order += ["r"] * bool(piece) + ["c"] * bool(choice.delta.content)
    assert "".join(thought) == THOUGHT
    assert "".join(text) == "Sunny."
    assert order == ["r"] * 8 + ["c"]  # eight words, then the answer


def test_chat_reasoning_exact_bytes(server: mockhttp.Server) -> None:
    """The delta is the field alone, one chunk per piece, right after the role chunk."""
    reply = llm.openai_chat("Hi", reasoning="Think it", seed=1)
    server.mock(mockhttp.post("/v1/chat/completions").reply(reply))
    body = {"model": "m", "messages": MESSAGES, "stream": True}
    lines = httpx.post(server.url + "/v1/chat/completions", json=body).text.split("\n\n")
    deltas = [line.split('"delta":', 1)[1].split(',"logprobs"', 1)[0] for line in lines[:4]]
    assert deltas == [
        '{"role":"assistant","content":"","refusal":null}',
        '{"reasoning_content":"Think"}',
        '{"reasoning_content":" it"}',
        '{"content":"Hi"}',
    ]


def test_chat_preset_quirk_does_not_add_a_second_reasoning(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    """``as_="deepseek"`` brings Q-REASONING-FIELD; with the reply's own reasoning it sends
    that, not the quirk's placeholder text besides."""
    reply = llm.openai_chat("Ok.", reasoning="Mine.", as_="deepseek")
    server.mock(mockhttp.post("/v1/chat/completions").reply(reply))
    stream = openai_client.chat.completions.create(model="m", messages=MESSAGES, stream=True)
    thought = "".join(
        _chat_reasoning(c.delta, "reasoning_content") for k in stream for c in k.choices
    )
    assert thought == "Mine."


def test_bad_reasoning_options() -> None:
    with pytest.raises(ConfigError, match="reasoning_field='thoughts' must be one of"):
        llm.openai_chat("x", reasoning="y", reasoning_field="thoughts")
    with pytest.raises(ConfigError, match="reasoning=3 must be text"):
        llm.openai_responses("x", reasoning=3)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="thinking and reasoning name the same block"):
        llm.anthropic_messages("x", thinking="a", reasoning="b")


# -- Responses ---------------------------------------------------------------------------------


def test_responses_reasoning_item_and_summary_events(
    server: mockhttp.Server, openai_client: openai.OpenAI
) -> None:
    """The SDK parses every event into its typed class; the reasoning item comes first,
    its summary streams as ``response.reasoning_summary_text.delta``."""
    reply = llm.openai_responses("Sunny.", reasoning=THOUGHT, tool_calls=[{"name": "f"}])
    server.mock(mockhttp.post("/v1/responses").reply(reply))
    client = openai_client
    done = client.responses.create(model="o4", input="Weather?", reasoning={"effort": "low"})
    assert [item.type for item in done.output] == ["reasoning", "message", "function_call"]
    item = done.output[0]
    assert item.type == "reasoning"
    assert item.summary[0].text == THOUGHT
    assert done.usage is not None
    assert done.usage.output_tokens_details.reasoning_tokens == 10
    assert done.reasoning is not None
    assert done.reasoning.effort == "low"
    events = list(client.responses.create(model="o4", input="Weather?", stream=True))
    names = [type(e).__name__ for e in events]
    assert names[:8] == [
        "ResponseCreatedEvent",
        "ResponseInProgressEvent",
        "ResponseOutputItemAddedEvent",
        "ResponseReasoningSummaryPartAddedEvent",
        *["ResponseReasoningSummaryTextDeltaEvent"] * 4,
    ]
    deltas = [e.delta for e in events if e.type == "response.reasoning_summary_text.delta"]
    assert len(deltas) == 8
    assert "".join(deltas) == THOUGHT
    text_done = next(e for e in events if e.type == "response.reasoning_summary_text.done")
    part_done = next(e for e in events if e.type == "response.reasoning_summary_part.done")
    assert text_done.text == part_done.part.text == THOUGHT
    added = next(e for e in events if e.type == "response.output_item.added")
    assert added.item.type == "reasoning"
    assert added.item.summary == []
    final = events[-1]
    assert final.type == "response.completed"
    assert final.response.output[0].model_dump(exclude={"id"}) == item.model_dump(exclude={"id"})


# -- Gemini and Anthropic ----------------------------------------------------------------------


def test_gemini_thought_parts(server: mockhttp.Server) -> None:
    """google-genai sees ``part.thought`` parts first, and the thoughts token count."""
    from google import genai
    from google.genai import types

    path = mockhttp.match.regex(r"^/v1beta/models/[^/]+:(stream)?[gG]enerateContent$")
    server.mock(mockhttp.post(path).reply(llm.gemini("Sunny.", reasoning=THOUGHT)))
    options = types.HttpOptions(base_url=server.url, api_version="v1beta")
    with genai.Client(api_key="k", http_options=options) as client:
        buffered = client.models.generate_content(model="gemini-2.5-flash", contents="Weather?")
        stream = client.models.generate_content_stream(model="gemini-2.5-flash", contents="x")
        chunks = list(stream)
    parts = buffered.candidates[0].content.parts  # type: ignore[index, union-attr]
    assert [(p.thought, p.text) for p in parts or []] == [(True, THOUGHT), (None, "Sunny.")]
    assert buffered.text == "Sunny."
    usage = buffered.usage_metadata
    assert usage is not None
    assert usage.thoughts_token_count == 10
    assert usage.total_token_count == usage.prompt_token_count + 2 + 10  # type: ignore[operator]
    streamed = [p for c in chunks for p in c.candidates[0].content.parts or []]  # type: ignore[index, union-attr]
    assert "".join(p.text or "" for p in streamed if p.thought) == THOUGHT
    assert "".join(p.text or "" for p in streamed if not p.thought) == "Sunny."
    assert chunks[-1].usage_metadata.thoughts_token_count == 10  # type: ignore[union-attr]


def test_anthropic_reasoning_is_thinking(
    server: mockhttp.Server, anthropic_client: anthropic.Anthropic
) -> None:
    """``reasoning=`` on an Anthropic reply is its thinking block (and its file form)."""
    reply = llm.anthropic_messages("Sunny.", reasoning=THOUGHT)
    assert reply.thinking == THOUGHT
    assert reply.to_args() == {"text": "Sunny.", "thinking": THOUGHT}
    server.mock(mockhttp.post("/v1/messages").reply(reply))
    client = anthropic_client
    ask: Any = {"model": "c", "max_tokens": 50, "messages": MESSAGES}
    done = client.messages.create(**ask)
    assert done.content[0].type == "thinking"
    assert done.content[0].thinking == THOUGHT
    with client.messages.stream(**ask) as stream:
        final = stream.get_final_message()
    assert [b.type for b in final.content] == ["thinking", "text"]
    assert final.content[0].thinking == THOUGHT  # type: ignore[union-attr]


# -- mock files and the contract rules ---------------------------------------------------------


def test_reasoning_in_a_mock_file(server: mockhttp.Server, openai_client: openai.OpenAI) -> None:
    """``reasoning:`` is a key of each reply in files, and dumps back."""
    text = """
name: deep
request: {method: POST, path: /v1/chat/completions}
response:
  openai_chat: {text: Ok., reasoning: Think first., as: groq}
"""
    (mock,) = mockhttp.loads(text)
    assert "reasoning: Think first." in mockhttp.dump(mock)
    server.mock(mock)
    done = openai_client.chat.completions.create(model="m", messages=MESSAGES)
    assert _chat_reasoning(done.choices[0].message, "reasoning") == "Think first."


@pytest.mark.parametrize("kind", list(PROFILE))
def test_contract_rules_pass_with_reasoning(kind: str) -> None:
    """Each kind's reference stream with reasoning draws no violation or warning (the
    built-in mocks stay clean); the chat stream draws only the ``openai.reasoning`` note
    (reasoning outside the reference shape, as DeepSeek and vLLM send it)."""
    chosen = scenario(kind)
    reply = chosen.reply(reasoning=THOUGHT)
    found = check(transcript(reply, chosen.path, chosen.request), PROFILE[kind])
    expected = [("openai.reasoning", "note")] if kind == "openai_chat" else []
    assert [(f.rule, f.severity) for f in found] == expected, found


def test_chat_stream_equals_buffered_with_reasoning() -> None:
    """The streamed content still equals the buffered message's (reasoning apart)."""
    chosen = scenario("openai_chat")
    reply = chosen.reply(reasoning=THOUGHT)
    streamed = transcript(reply, chosen.path, chosen.request)
    buffered = reply.build(_request(chosen.path, {**chosen.request, "stream": False}))
    both = dataclasses.replace(streamed, buffered=json.loads(buffered.content))
    found = check(both, "stream-equals-buffered")
    assert [f for f in found if f.severity != "note"] == []
