"""llm/_base.py: what every LLM reply shares, pure (no sockets).

The rules of the module's docstring are checked one by one on a small provider written
here (``Plain``: one chunk per piece, tagged with the kinds the base counts) and on the
real OpenAI Chat reply where a provider's shape does not matter; the argument checks are a
table, entry by entry, each naming the field in its message.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp import ConfigError, llm
from mockhttp.llm._base import LLMReply, ToolCall, _cut, _json_body, tool_calls_of
from mockhttp.llm._draft import Chunk, Context, Draft, Framing
from tests.helpers.llm_build import body_of, context, payloads, request


@dataclass(frozen=True)
class Plain(LLMReply):
    """A provider as small as the base allows: start, one chunk per piece, finish, done."""

    file_key: ClassVar[str] = "openai_chat"  # (quirk checks name a kind the catalogue knows)
    default_model: ClassVar[str] = "plain-model"

    def body(self, context: Context) -> Any:
        return {"text": self.full_text, "model": context.model, "id": self.make_id("p_", context)}

    def stream_chunks(self, context: Context) -> list[Chunk]:
        chunks = [Chunk({"start": self.make_id("p_", context)}, "start")]
        chunks += [Chunk({"thinking": p}, "thinking") for p in self.reasoning_pieces]
        chunks += [Chunk({"text": p}, "text") for p in self.pieces]
        chunks += [Chunk({"tool": c.name}, "tool") for c in self.calls]
        chunks += [Chunk({"finish": 1}, "finish"), Chunk({"usage": 1}, "usage")]
        return [*chunks, Chunk("[DONE]", "done")]

    def error_draft(self, context: Context) -> Draft:
        return Draft(self.file_key, False, 599, (), {"error": self.error})

    def error_chunks(self, kept: list[Chunk], context: Context) -> list[Chunk]:
        return [Chunk({"error": self.error, "after": len(kept)}, "error")]


STREAM = {"stream": True}


def built(reply: LLMReply, body: dict[str, Any] | None = None) -> Any:
    return reply.build(request(body if body is not None else STREAM))


# -- tool calls ------------------------------------------------------------------------------


def test_tool_calls_of_reads_mappings_and_keeps_tool_calls() -> None:
    call = ToolCall("f", {"a": 1}, "id1")
    calls = tool_calls_of([{"name": "g", "arguments": '{"b": 2}'}, call, {"name": "h"}])
    assert calls == (ToolCall("g", '{"b": 2}', None), call, ToolCall("h", {}, None))
    assert calls[0].arguments_text == '{"b": 2}'
    assert calls[0].arguments_value == {"b": 2}
    assert call.arguments_text == '{"a": 1}'
    assert call.arguments_value == {"a": 1}
    assert tool_calls_of(()) == ()


def test_a_tool_call_file_form_names_its_id_only_when_given() -> None:
    assert ToolCall("f", {"a": 1}, None).to_file() == {"name": "f", "arguments": {"a": 1}}
    assert ToolCall("f", "{}", "c").to_file() == {"name": "f", "arguments": "{}", "id": "c"}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("f", "must be a list of tool calls"),
        ({"name": "f"}, "must be a list of tool calls"),
        (b"x", "must be a list of tool calls"),
        ([3], r"tool_calls\[0\]=3 must be a mapping"),
        ([{"name": "f", "args": {}}], "unknown key 'args'"),
        ([{"arguments": {}}], r"tool_calls\[0\].name=None must be a function name"),
        ([{"name": ""}], "must be a function name"),
        ([{"name": 5}], "must be a function name"),
        ([{"name": "f", "arguments": "{bad"}], "is not JSON text"),
        ([{"name": "f", "arguments": [1]}], "must be a mapping or JSON text"),
        ([{"name": "f", "id": ""}], r"\.id='' must be non-empty text"),
        ([{"name": "f"}, {"name": "g", "id": 3}], r"tool_calls\[1\]\.id=3"),
    ],
)
def test_tool_calls_of_refuses_each_bad_form(value: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        tool_calls_of(value)


# -- the argument checks ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"text": 3}, "text=3 must be text or a list"),
        ({"text": ["a", 1]}, "must be text or a list of text pieces"),
        ({"chunk_size": 0}, "chunk_size=0 must be a positive int"),
        ({"chunk_size": True}, "chunk_size=True must be a positive int"),
        ({"chunk_size": 1.5}, "chunk_size=1.5"),
        ({"reasoning": 1}, "reasoning=1 must be text"),
        ({"usage": [1]}, "usage=.* must be a mapping of token counts"),
        ({"model": ""}, "model='' must be non-empty text"),
        ({"id": 5}, "id=5 must be non-empty text"),
        ({"headers": ["x"]}, "headers=.* must be a mapping"),
        ({"headers": {"x-a": "a\r\nb"}}, "x-a"),
        ({"ttft": -1}, "ttft"),
        ({"chunks_per_second": 0}, "chunks_per_second"),
        ({"jitter": 2}, "jitter"),
        ({"seed": "1"}, "seed"),
        ({"error": "rate_limt"}, "error='rate_limt'.*rate_limit"),
        ({"error_after": 1}, "error_after needs error"),
        ({"error": "overloaded", "error_after": -1}, "error_after=-1 must be a non-negative int"),
        ({"retry_after": 1}, "retry_after needs error"),
        ({"error_message": "m"}, "error_message needs error"),
        ({"error_code": "c"}, "error_code needs error"),
        ({"error_type": "t"}, "error_type needs error"),
        ({"error": "overloaded", "error_code": ""}, "error_code='' must be non-empty text"),
        ({"error": "overloaded", "retry_after": "soon"}, "retry_after"),
        ({"transforms": "Q-CRLF"}, "transforms='Q-CRLF' must be a list of transforms"),
        ({"transforms": {"a": 1}}, "must be a list of transforms"),
        ({"transforms": [3]}, r"transforms\[0\]=3 must be a transform or \[name, arg, ...\]"),
        ({"transforms": [["no_such_transform"]]}, r"transforms\[0\]"),
        ({"quirks": "Q-CRLF"}, "quirks='Q-CRLF' must be a list of quirk ids"),
        ({"quirks": ["Q-NOPE"]}, "Q-NOPE"),
        ({"as_": "nobody"}, "as='nobody'"),
    ],
)
def test_each_bad_option_is_refused_naming_it(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Plain(**options)


def test_text_pieces_given_as_a_list_are_kept_exactly() -> None:
    reply = Plain(["He", "", "llo"])
    assert reply.text == ("He", "", "llo")
    assert reply.pieces == ["He", "llo"]  # empty pieces are not sent
    assert reply.full_text == "Hello"


def test_text_is_cut_into_words_or_chunk_size_characters() -> None:
    assert Plain("Hello big world").pieces == ["Hello", " big", " world"]
    assert Plain("Hello", chunk_size=2).pieces == ["He", "ll", "o"]
    assert Plain("", chunk_size=2).pieces == []


def test_reasoning_is_cut_as_the_text_and_counted() -> None:
    reply = Plain("x", reasoning="Think, then act", chunk_size=5)
    assert reply.reasoning_pieces == ["Think", ", the", "n act"]
    assert reply.reasoning_tokens == 4
    assert Plain("x").reasoning_pieces == []
    assert Plain("x").reasoning_tokens == 0


def test_retry_after_is_read_as_a_duration() -> None:
    reply = Plain(error="rate_limit", retry_after="1.5s")
    assert reply.retry_after == 1.5
    assert reply.error_options.retry_after == 1.5


def test_headers_are_kept_as_text() -> None:
    assert Plain(headers={"x-n": 5}).headers == {"x-n": "5"}  # type: ignore[dict-item]


# -- the file form -------------------------------------------------------------------------------


def test_to_args_names_only_what_differs_from_the_defaults() -> None:
    assert Plain().to_args() == {}
    reply = Plain(
        ["a", "b"],
        ttft=0.25,
        retry_after=2,
        error="rate_limit",
        tool_calls=[{"name": "f", "arguments": {"x": 1}, "id": "c1"}],
        quirks=["q-crlf"],
        as_="groq",
        headers={"x-a": "1"},
        usage={"prompt_tokens": 3},
    )
    args = reply.to_args()
    assert args == {
        "text": ["a", "b"],
        "tool_calls": [{"name": "f", "arguments": {"x": 1}, "id": "c1"}],
        "usage": {"prompt_tokens": 3},
        "headers": {"x-a": "1"},
        "ttft": args["ttft"],
        "error": "rate_limit",
        "retry_after": args["retry_after"],
        "quirks": ["Q-CRLF"],
        "as": "groq",
    }
    assert isinstance(args["ttft"], str)
    assert isinstance(args["retry_after"], str)
    again = Plain(**{("as_" if k == "as" else k): v for k, v in args.items()})
    assert again.to_args() == args
    assert (again.ttft, again.retry_after) == (0.25, 2.0)


def test_a_transform_without_a_file_form_has_no_to_args_but_an_id_salt() -> None:
    def mine(draft: Draft, context: Context) -> Draft:
        return draft

    reply = Plain("x", transforms=[mine])
    with pytest.raises(ConfigError, match="has no file form"):
        reply.to_args()
    assert built(reply).status_code == 200  # ids are still made (by the qualified name)


def test_canonical_quirks_and_as() -> None:
    reply = Plain(quirks=["q-crlf", "Q-DONE"], as_="OpenRouter")
    assert reply.quirks == ("Q-CRLF", "Q-DONE")
    assert reply.as_ == "openrouter"


# -- building ----------------------------------------------------------------------------------


def test_rule1_the_body_says_stream_true_or_the_answer_is_buffered() -> None:
    reply = Plain("Hi there")
    assert [p for p in payloads(built(reply)) if isinstance(p, dict) and "text" in p] == [
        {"text": "Hi"},
        {"text": " there"},
    ]
    for body in ({}, {"stream": False}, {"stream": "true"}, {"stream": 1}):
        assert body_of(built(reply, body))["text"] == "Hi there"


def test_rule2_the_model_given_else_asked_else_the_default() -> None:
    assert body_of(built(Plain(), {"model": "asked"}))["model"] == "asked"
    assert body_of(built(Plain(model="given"), {"model": "asked"}))["model"] == "given"
    for asked in ("", None, 5, ["x"]):
        assert body_of(built(Plain(), {"model": asked}))["model"] == "plain-model"


def test_rule3_ids_are_unique_per_call_stable_per_stream_and_across_runs() -> None:
    first, second = Plain("Hi"), Plain("Hi")
    ids = [body_of(built(first, {}))["id"] for _ in range(3)]
    assert len(set(ids)) == 3
    assert [body_of(built(second, {}))["id"] for _ in range(3)] == ids  # the same next run
    other = [body_of(built(Plain("Ho"), {}))["id"] for _ in range(3)]
    assert not set(other) & set(ids)  # the reply's own arguments are in the salt


def test_build_counts_calls_and_seeds_its_random_per_call() -> None:
    reply = Plain("a b c d", chunks_per_second=10, jitter=0.9, seed=7)
    delays = [[e.delay for e in built(reply).stream.events] for _ in range(2)]
    assert delays[0] != delays[1]  # call 1 and call 2 draw differently
    again = Plain("a b c d", chunks_per_second=10, jitter=0.9, seed=7)
    assert [[e.delay for e in built(again).stream.events] for _ in range(2)] == delays


def test_rule5_error_without_error_after_answers_every_request() -> None:
    reply = Plain("Hi", error="overloaded")
    for body in ({}, STREAM):
        answer = built(reply, body)
        assert answer.status_code == 599
        assert body_of(answer) == {"error": "overloaded"}


@pytest.mark.parametrize(
    ("after", "kept"),
    [
        (0, [{"start": None}]),
        (1, [{"start": None}, {"thinking": "Hm"}]),
        (2, [{"start": None}, {"thinking": "Hm"}, {"text": "One"}]),
        (
            4,
            [{"start": None}, {"thinking": "Hm"}, {"text": "One"}, {"text": " two"}, {"tool": "f"}],
        ),
        (
            9,
            [{"start": None}, {"thinking": "Hm"}, {"text": "One"}, {"text": " two"}, {"tool": "f"}],
        ),
    ],
)
def test_rule5_error_after_n_cuts_after_n_content_chunks(after: int, kept: list[Any]) -> None:
    reply = Plain(
        "One two",
        reasoning="Hm",
        tool_calls=[{"name": "f"}],
        error="server_error",
        error_after=after,
    )
    data = payloads(built(reply))
    data[0] = {"start": None}
    assert data == [*kept, {"error": "server_error", "after": len(kept)}]
    assert built(reply, {}).status_code == 599  # a buffered request still gets the error


def test_cut_counts_only_content_kinds() -> None:
    chunks = [
        Chunk(kind="start"),
        Chunk(kind="block"),
        Chunk(kind="text"),
        Chunk(kind="ping"),
        Chunk(kind="tool"),
        Chunk(kind="finish"),
        Chunk(kind="done"),
    ]
    assert [c.kind for c in _cut(chunks, 1)] == ["start", "block", "text", "ping"]
    assert [c.kind for c in _cut(chunks, 5)] == ["start", "block", "text", "ping", "tool"]


def test_quirks_apply_before_the_replys_own_transforms_in_order() -> None:
    seen: list[str] = []

    def note(name: str) -> Any:
        def transform(draft: Draft, context: Context) -> Draft:
            seen.append(f"{name}:{draft.framing.line_ending!r}")
            return draft

        return transform

    reply = Plain("x", quirks=["Q-CRLF"], transforms=[note("a"), note("b")])
    built(reply)
    assert seen == ["a:'\\r\\n'", "b:'\\r\\n'"]


def test_a_transform_changes_what_is_sent() -> None:
    def crlf(draft: Draft, context: Context) -> Draft:
        return dataclasses.replace(draft, framing=Framing(line_ending="\r\n"))

    answer = built(Plain("Hi", transforms=[crlf]))
    assert all(e.endswith(b"\r\n\r\n") for e in answer.stream.encoded)


def test_the_body_read_as_json_objects_only() -> None:
    assert _json_body(request(b"")) == {}
    assert _json_body(request(b"not json")) == {}
    assert _json_body(request([1, 2])) == {}
    assert _json_body(request(b"[" * 100_000)) == {}  # deeper than the parser goes
    assert _json_body(request({"a": 1})) == {"a": 1}


def test_a_body_nested_too_deep_is_answered_not_raised() -> None:
    deep = b'{"stream": true, "x": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    answer = Plain("Hi").build(request(deep))
    assert answer.stream is None  # read as {}: buffered


def test_counted_output_counts_text_calls_and_extra() -> None:
    reply = Plain("One two", tool_calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}])
    # "One two" 2; get_weather 1; {"city": "Paris"} = { " city " : " Paris " } 9
    assert reply.counted_output() == 12
    assert reply.counted_output("and more") == 14


def test_counted_input_is_the_prompt() -> None:
    reply = Plain()
    body = {"messages": [{"role": "user", "content": "a b c"}], "system": "d"}
    assert reply.counted_input(context(body)) == 4


def test_base_headers_put_the_replys_own_over_the_providers() -> None:
    chat = llm.openai_chat("x", headers={"X-Request-Id": "mine", "x-extra": "1"})
    answer = chat.build(request({}))
    names = [n.lower() for n, _ in answer.headers]
    assert names.count("x-request-id") == 1
    assert ("X-Request-Id", "mine") in answer.headers
    assert ("x-extra", "1") in answer.headers


def test_tool_call_ids_are_the_given_or_made() -> None:
    reply = Plain(tool_calls=[{"name": "f", "id": "mine"}, {"name": "g"}])
    ctx = context(STREAM)
    assert reply.tool_call_id(reply.calls[0], 0, ctx, "call_") == "mine"
    made = reply.tool_call_id(reply.calls[1], 1, ctx, "call_")
    assert made.startswith("call_")
    assert len(made) == 5 + 24
    assert made == reply.tool_call_id(reply.calls[1], 1, ctx, "call_")
    assert made != reply.tool_call_id(reply.calls[1], 2, ctx, "call_")


def test_capacity_given_is_read() -> None:
    reply = Plain("x", capacity={"max_running": 1})
    assert reply.capacity is not None
    assert reply.to_args()["capacity"] == reply.capacity.to_args()


@given(st.text(max_size=40), st.one_of(st.none(), st.integers(1, 6)))
def test_pieces_join_back_to_the_text(text: str, size: int | None) -> None:
    reply = Plain(text, chunk_size=size)
    assert "".join(reply.pieces) == text
    data = payloads(built(reply))
    assert "".join(p["text"] for p in data if isinstance(p, dict) and "text" in p) == text


@given(
    st.dictionaries(
        st.sampled_from(["model", "stream", "messages", "x"]),
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        max_size=4,
    )
)
def test_any_json_body_gets_an_answer(body: dict[str, Any]) -> None:
    answer = Plain("Hi").build(request(json.dumps(body)))
    assert answer.status_code == 200
