"""``llm._text``: how replies cut text into chunks, count tokens and make ids (properties
every provider reply relies on: pieces join back to the text, counts agree)."""

from __future__ import annotations

import json

from hypothesis import given, settings
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

TEXT = st.text(st.characters(codec="utf-8"), max_size=80)


@settings(max_examples=200, deadline=None)
@given(TEXT, st.one_of(st.none(), st.integers(1, 9)))
def test_pieces_join_back_to_the_text(text: str, size: int | None) -> None:
    cut = pieces(text, size)
    assert "".join(cut) == text
    assert all(cut)
    if size is not None:
        assert all(len(p) <= size for p in cut)


def test_a_word_keeps_the_spaces_before_it() -> None:
    assert pieces("Hello, big world") == ["Hello,", " big", " world"]
    assert pieces("") == []


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_tokens_join_back_and_agree_with_the_count(text: str) -> None:
    found = tokens(text)
    assert "".join(t for _, t in found) == text
    assert [text.index(t, at) == at for at, t in found] == [True] * len(found)
    if text.strip():
        assert len(found) == count_tokens(text)


def test_count_tokens_counts_words_and_punctuation() -> None:
    assert count_tokens("Hello, world!") == 4
    assert count_tokens("   ") == 0


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(max_size=5), st.one_of(st.integers(), st.text(max_size=8))))
def test_argument_pieces_join_back(arguments: dict[str, object]) -> None:
    text = json.dumps(arguments)
    assert "".join(argument_pieces(text)) == text
    assert "".join(argument_pieces(text + "  ")) == text + "  "


def test_arguments_text_is_json_text() -> None:
    assert json.loads(arguments_text({"city": "Paris"})) == {"city": "Paris"}
    assert arguments_text('{"a": 1}') == '{"a": 1}'


def test_prompt_tokens_reads_every_api_shape_but_not_its_keys() -> None:
    chat = {"messages": [{"role": "user", "content": "What is the weather?"}]}
    responses = {"input": "What is the weather?", "instructions": "Be brief"}
    gemini = {"contents": [{"role": "user", "parts": [{"text": "What is the weather?"}]}]}
    assert prompt_tokens(chat) == 5
    assert prompt_tokens(responses) == 7
    assert prompt_tokens(gemini) == 5
    assert prompt_tokens([1, 2]) == 0


def test_ids_are_stable_distinct_and_sized() -> None:
    first = make_id("chatcmpl-", "salt", 1)
    assert first == make_id("chatcmpl-", "salt", 1)
    assert first != make_id("chatcmpl-", "salt", 2)
    assert len(first) == len("chatcmpl-") + 24
    odd = make_id("x", "salt", 1, length=7)
    assert len(odd) == 8
    assert odd[1:].isalnum()
