"""How LLM replies cut text into stream pieces and count tokens (``llm._text``): what a test
author predicts from the docs — pieces join back to the text, "Hello, world" is 3 tokens,
a tool call's arguments stream as a model streams them."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp.llm._text import (
    argument_pieces,
    arguments_text,
    count_tokens,
    make_id,
    pieces,
    prompt_tokens,
    tokens,
)

TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=60)


@given(TEXT)
def test_word_pieces_join_back_to_the_text(text: str) -> None:
    assert "".join(pieces(text)) == text


@given(TEXT, st.integers(min_value=1, max_value=10))
def test_sized_pieces_join_back_and_are_that_size(text: str, size: int) -> None:
    cut = pieces(text, size)
    assert "".join(cut) == text
    assert all(len(p) == size for p in cut[:-1])
    assert not cut or 1 <= len(cut[-1]) <= size


def test_a_word_keeps_the_spaces_before_it() -> None:
    assert pieces("Hello, big  world") == ["Hello,", " big", "  world"]
    assert pieces("") == []
    assert pieces("  lead") == ["  lead"]


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("Hello, world", 3),
        ("", 0),
        ("   ", 0),
        ("a-b", 3),
        ("naïve café", 2),
        ("3.14", 3),
        ("!?", 2),
    ],
)
def test_a_token_is_a_word_or_a_punctuation_mark(text: str, count: int) -> None:
    assert count_tokens(text) == count


@given(TEXT)
def test_tokens_join_back_and_agree_with_the_count(text: str) -> None:
    found = tokens(text)
    assert "".join(t for _, t in found) == text
    assert [start for start, _ in found] == sorted(start for start, _ in found)
    if text.strip():
        assert len(found) == count_tokens(text)


def test_tokens_carry_their_offsets() -> None:
    assert tokens("Hi, you ") == [(0, "Hi"), (2, ","), (3, " you ")]
    assert tokens("   ") == [(0, "   ")]  # whitespace alone: one token


@given(st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=4))
def test_argument_pieces_join_back_to_the_json(arguments: dict[str, object]) -> None:
    text = arguments_text(arguments)
    assert "".join(argument_pieces(text)) == text
    assert json.loads("".join(argument_pieces(text))) == arguments


def test_arguments_stream_as_names_values_and_punctuation() -> None:
    assert argument_pieces('{"city": "Paris"}') == ['{"', "city", '":', ' "', "Paris", '"}']
    assert argument_pieces("") == []
    assert argument_pieces("{} ") == ["{}", " "]


def test_arguments_text_keeps_text_and_writes_json_unescaped() -> None:
    assert arguments_text('{"a": 1}') == '{"a": 1}'
    assert arguments_text({"city": "Zürich"}) == '{"city": "Zürich"}'


def test_prompt_tokens_count_the_prompt_not_the_roles_or_ids() -> None:
    body = {
        "model": "gpt-4o",  # not the prompt
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Hello, world"},
            {
                "role": "tool",
                "tool_call_id": "call_123",
                "content": [{"type": "text", "text": "42"}],
            },
        ],
    }
    assert prompt_tokens(body) == count_tokens("Be brief.") + 3 + 1
    assert prompt_tokens({"contents": [{"parts": [{"text": "one two"}]}]}) == 2  # Gemini
    assert prompt_tokens({"input": "a b c", "instructions": "d"}) == 4  # Responses
    assert prompt_tokens("not a body") == 0
    assert prompt_tokens({}) == 0


@given(st.text(max_size=10), st.integers(min_value=0, max_value=10**6), st.integers(1, 40))
def test_ids_are_stable_of_the_length_asked_and_url_safe(salt: str, call: int, length: int) -> None:
    made = make_id("chatcmpl-", salt, call, length)
    assert made == make_id("chatcmpl-", salt, call, length)
    assert made.startswith("chatcmpl-")
    assert len(made) == len("chatcmpl-") + length
    assert made[len("chatcmpl-") :].isalnum()
    assert made[len("chatcmpl-") :].isascii()


def test_ids_differ_from_call_to_call_and_salt_to_salt() -> None:
    ids = {make_id("call_", "s", n) for n in range(1000)}
    assert len(ids) == 1000
    assert make_id("call_", "a", 0) != make_id("call_", "b", 0)
