"""llm/_edits.py: the draft edits the quirk transforms share, pure.

Each function is fed a small hand-made draft; the promise every one makes (never change
what it was given) is checked by comparing the input with a deep copy taken before.
"""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from mockhttp.llm import _edits as e
from mockhttp.llm._draft import Chunk, Draft, Framing
from tests.helpers.llm_build import context, draft

HEAD = {"id": "c1", "object": "chat.completion.chunk", "created": 5, "model": "m"}


def chat(delta: dict[str, Any], kind: str = "text", finish: str | None = None) -> Chunk:
    return Chunk({**HEAD, "choices": [e.choice(delta, finish)], "usage": None}, kind)


def chat_draft() -> Draft:
    return draft(
        [
            chat({"role": "assistant", "content": ""}, "start"),
            chat({"content": "Hi"}),
            chat({"content": " there"}),
            chat({"tool_calls": [{"index": 0, "function": {"arguments": '{"a":'}}]}, "tool"),
            chat({}, "finish", "stop"),
            Chunk({**HEAD, "choices": [], "usage": {"total_tokens": 3}}, "usage"),
            Chunk("[DONE]", "done"),
        ]
    )


def test_copy_chunk_copies_deeply_and_applies_changes() -> None:
    chunk = chat({"content": "x"})
    copied = e.copy_chunk(chunk, kind="finish")
    copied.data["choices"][0]["delta"]["content"] = "changed"
    assert chunk.data["choices"][0]["delta"]["content"] == "x"
    assert (copied.kind, chunk.kind) == ("finish", "text")


def test_is_choice_chunk_entry_by_entry() -> None:
    assert e.is_choice_chunk(chat({"content": "x"}))
    assert e.is_choice_chunk(chat({}, "finish"))
    assert not e.is_choice_chunk(Chunk({**HEAD, "choices": []}, "usage"))  # no choice
    assert not e.is_choice_chunk(Chunk({**HEAD, "choices": [{}]}, "usage"))  # not a choice kind
    assert not e.is_choice_chunk(Chunk({"choices": None}, "text"))
    assert not e.is_choice_chunk(Chunk("[DONE]", "done"))
    assert not e.is_choice_chunk(Chunk({"choices": [{}]}, "error"))
    assert {"start", "text", "refusal", "thinking", "tool", "finish"} == e.CHOICE_KINDS


def test_map_chunks_changes_copies_and_drops_none() -> None:
    d = chat_draft()
    before = copy.deepcopy(d)

    def change(chunk: Chunk) -> Chunk | None:
        if chunk.kind == "done":
            return None
        if isinstance(chunk.data, dict):
            chunk.data["touched"] = True
        return chunk

    out = e.map_chunks(d, change)
    assert d == before
    assert len(out.chunks) == len(d.chunks) - 1
    assert all(c.data["touched"] for c in out.chunks)


def test_index_of_first_and_last() -> None:
    d = chat_draft()
    assert e.index_of(d, "text") == 1
    assert e.index_of(d, "text", last=True) == 2
    assert e.index_of(d, "ping") is None
    assert e.usage_index(d) == 5
    assert e.index_of(d, "done", last=True) == 6


def test_insert_puts_chunks_before_the_index() -> None:
    d = draft([Chunk({"n": 0}), Chunk({"n": 1})])
    out = e.insert(d, 1, Chunk({"n": "a"}), Chunk({"n": "b"}))
    assert [c.data["n"] for c in out.chunks] == [0, "a", "b", 1]
    assert [c.data["n"] for c in e.insert(d, 2, Chunk({"n": 2})).chunks] == [0, 1, 2]
    assert len(d.chunks) == 2


def test_head_fields_are_the_first_payloads_but_choices_and_usage() -> None:
    assert e.head_fields(chat_draft()) == HEAD
    d = draft([Chunk(comment="x", kind="comment"), Chunk("[DONE]", "done")])
    assert e.head_fields(d) == {}


def test_choice_chunk_copies_the_head_and_usage_null_when_the_stream_has_usage() -> None:
    chunk = e.choice_chunk(chat_draft(), {"content": "new"}, "text")
    assert chunk.data == {**HEAD, "choices": [e.choice({"content": "new"})], "usage": None}
    no_usage = draft([Chunk({**HEAD, "choices": [e.choice({})]}, "start")])
    assert "usage" not in e.choice_chunk(no_usage, {}, "text").data


def test_choice_is_the_reference_shape() -> None:
    assert e.choice({"content": "x"}) == {
        "index": 0,
        "delta": {"content": "x"},
        "logprobs": None,
        "finish_reason": None,
    }
    assert e.choice({}, "length")["finish_reason"] == "length"


def test_after_start_goes_after_the_start_or_first() -> None:
    new = Chunk({"new": 1}, "thinking")
    assert e.after_start(chat_draft(), new).chunks[1] == new
    headless = draft([Chunk({"n": 0}, "text")])
    assert e.after_start(headless, new).chunks[0] == new


def test_counted_usage_counts_prompt_and_every_text() -> None:
    body = {"messages": [{"role": "user", "content": "Say hi, please"}]}
    usage = e.counted_usage(chat_draft(), context(body))
    # "Say hi , please" = 4; "Hi", "there", '{ " a " :' = 1 + 1 + 5 (each mark a token)
    assert usage == {"prompt_tokens": 4, "completion_tokens": 7, "total_tokens": 11}


def test_texts_reads_content_refusal_and_arguments_in_order() -> None:
    d = draft(
        [
            chat({"refusal": "No"}, "refusal"),
            chat({"content": ""}),  # empty: skipped
            chat({"content": "a", "reasoning_content": "not this"}),
            chat({"tool_calls": [{"index": 0, "function": {"name": "f"}}]}, "tool"),
            Chunk({**HEAD, "choices": [], "usage": {}}, "usage"),
        ]
    )
    assert e.texts(d) == ["No", "a", ""]
    assert e.texts(chat_draft()) == ["Hi", " there", '{"a":']


def test_renumber_counts_sequence_numbers_from_start_and_skips_others() -> None:
    chunks = [
        Chunk({"type": "a", "sequence_number": 7}),
        Chunk(comment="c", kind="comment"),
        Chunk({"type": "b", "sequence_number": 2}),
        Chunk({"type": "c"}),
    ]
    out = e.renumber(chunks)
    assert [c.data.get("sequence_number") if c.data else None for c in out] == [0, None, 1, None]
    assert [
        c.data["sequence_number"]
        for c in e.renumber(chunks, 5)
        if c.data and "sequence_number" in c.data
    ] == [5, 6]
    assert chunks[0].data["sequence_number"] == 7  # not changed in place


def test_json_text_follows_the_framing_unless_told() -> None:
    d = draft([], framing=Framing(separators=(", ", ": ")))
    assert e.json_text({"a": 1, "b": "é"}, d) == '{"a": 1, "b": "é"}'
    assert e.json_text({"a": 1}, d, (",", ":")) == '{"a":1}'


def test_first_content_and_cut_after_it() -> None:
    d = chat_draft()
    assert e.first_content(d) == 1
    assert e.cut_after_first_content(d) == list(d.chunks[:2])
    start_only = draft([chat({}, "start"), chat({}, "finish", "stop")])
    assert e.first_content(start_only) is None
    assert e.cut_after_first_content(start_only) == [start_only.chunks[0]]
    nothing = draft([Chunk({"a": 1}, "block"), Chunk({"a": 2}, "end")])
    assert e.cut_after_first_content(nothing) == [nothing.chunks[0]]


_DELTA = st.fixed_dictionaries(
    {},
    optional={
        "content": st.text(max_size=8),
        "refusal": st.text(max_size=8),
        "role": st.just("assistant"),
    },
)


@given(
    st.lists(st.tuples(_DELTA, st.sampled_from(["start", "text", "refusal", "finish"])), max_size=8)
)
def test_texts_are_the_non_empty_content_and_refusal_values(
    entries: list[tuple[dict[str, Any], str]],
) -> None:
    d = draft([chat(delta, kind) for delta, kind in entries])
    before = copy.deepcopy(d)
    expected = [
        v for delta, _ in entries for k, v in delta.items() if k in ("content", "refusal") and v
    ]
    assert e.texts(d) == expected
    assert d == before
