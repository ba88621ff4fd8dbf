"""llm/_chunk_quirks.py: each chunk-structure quirk's transform, quirk by quirk, pure.

Each maker is applied to the OpenAI Chat reference draft (made by the real reply for a real
request) and checked against its catalogue entry's "Check" (/work/shared/wire-facts.md
Part 4, docs/wire-format.md "Chunk structure"): what the quirk changes is there, and the
rest of the stream is as it was.  The module's Rules 2 and 3 (nothing to act on: no
change; pure) are checked for every maker in the table at the end.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from mockhttp import ConfigError
from mockhttp.llm import _chunk_quirks as q
from mockhttp.llm._draft import Context, Draft, Transform
from mockhttp.llm._edits import REASONING, index_of
from mockhttp.llm._openai_chat import OpenAIChat
from mockhttp.llm._text import count_tokens
from tests.helpers.llm_build import context

USER = [{"role": "user", "content": "Count to three."}]  # 4 tokens
CALLS = [{"name": "get_weather", "arguments": {"city": "Paris"}}]


def chat(
    text: str = "One, two, three.", tools: bool = False, usage: bool = True, **more: Any
) -> tuple[Draft, Context]:
    body: dict[str, Any] = {"model": "gpt-test", "messages": USER, "stream": True}
    if usage:
        body["stream_options"] = {"include_usage": True}
    reply = OpenAIChat(text, tool_calls=CALLS if tools else (), **more)
    ctx = context(body, model="gpt-test")
    return reply.draft(ctx), ctx


def apply(transform: Transform, draft: Draft, ctx: Context) -> Draft:
    """``transform(draft)``, checking that ``draft`` itself is left as it was (Rule 3)."""
    before = copy.deepcopy(draft)
    out = transform(draft, ctx)
    assert draft == before, "the transform changed its input"
    return out


def data(draft: Draft) -> list[Any]:
    return [c.data for c in draft.chunks if isinstance(c.data, dict)]


def choice_chunks(draft: Draft) -> list[dict[str, Any]]:
    return [d for d in data(draft) if d.get("choices")]


def kinds(draft: Draft) -> list[str]:
    return [c.kind for c in draft.chunks]


# -- role, finish ------------------------------------------------------------------------


def test_role_every_chunk_puts_the_role_on_every_choice() -> None:
    draft, ctx = chat()
    out = apply(q.role_every_chunk(), draft, ctx)
    assert all(c["choices"][0]["delta"]["role"] == "assistant" for c in choice_chunks(out))
    assert list(choice_chunks(out)[1]["choices"][0]["delta"]) == ["role", "content"]  # role first
    assert choice_chunks(out)[0] == choice_chunks(draft)[0]  # the start chunk as it was
    assert data(out)[-1] == data(draft)[-1]  # the usage chunk (no choice) as it was


def test_finish_on_content_moves_the_reason_to_the_last_content_chunk() -> None:
    for tools in (False, True):
        draft, ctx = chat(tools=tools, text="" if tools else "One, two, three.")
        out = apply(q.finish_on_content(), draft, ctx)
        assert len(out.chunks) == len(draft.chunks) - 1  # no separate empty-delta chunk
        finish = out.chunks[index_of(out, "finish")]  # type: ignore[index]
        delta = finish.data["choices"][0]["delta"]
        assert delta.get("content") or delta.get("tool_calls")  # the catalogue's check
        assert finish.data["choices"][0]["finish_reason"] == ("tool_calls" if tools else "stop")
        assert sum(1 for c in choice_chunks(out) if c["choices"][0]["finish_reason"]) == 1


def test_finish_on_content_without_content_changes_nothing() -> None:
    draft, ctx = chat(text="")
    assert apply(q.finish_on_content(), draft, ctx) == draft


def test_finish_stop_for_tools() -> None:
    draft, ctx = chat(tools=True, text="")
    out = apply(q.finish_stop_for_tools(), draft, ctx)
    assert out.chunks[index_of(out, "finish")].data["choices"][0]["finish_reason"] == "stop"  # type: ignore[index]
    text, ctx = chat()
    assert apply(q.finish_stop_for_tools(), text, ctx) == text
    length, ctx = chat(tools=True, finish_reason="length")
    assert apply(q.finish_stop_for_tools(), length, ctx) == length


# -- usage ---------------------------------------------------------------------------------


def test_usage_on_finish_moves_the_usage_and_drops_the_usage_chunk() -> None:
    draft, ctx = chat()
    out = apply(q.usage_on_finish(), draft, ctx)
    assert "usage" not in kinds(out)
    finish = out.chunks[index_of(out, "finish")].data  # type: ignore[index]
    assert finish["usage"] == draft.chunks[index_of(draft, "usage")].data["usage"]  # type: ignore[index]
    assert finish["choices"][0]["finish_reason"] == "stop"
    assert not [d for d in data(out) if d.get("choices") == []]


def test_usage_dummy_choice_gives_the_usage_chunk_a_choice() -> None:
    draft, ctx = chat()
    usage = apply(q.usage_dummy_choice(), draft, ctx).chunks[index_of(draft, "usage")].data  # type: ignore[index]
    assert usage["usage"] is not None
    assert usage["choices"] == [
        {
            "index": 0,
            "delta": {"role": "assistant", "content": ""},
            "logprobs": None,
            "finish_reason": None,
        }
    ]


def test_usage_every_chunk_is_cumulative_and_monotonic() -> None:
    draft, ctx = chat()
    out = apply(q.usage_every_chunk(), draft, ctx)
    usages = [c["usage"] for c in choice_chunks(out)]
    assert len(usages) == len(choice_chunks(draft))
    completions = [u["completion_tokens"] for u in usages]
    assert completions == sorted(completions)
    assert completions[-1] == count_tokens("One, two, three.")
    assert {u["prompt_tokens"] for u in usages} == {4}
    assert all(u["total_tokens"] == u["prompt_tokens"] + u["completion_tokens"] for u in usages)


def test_usage_without_request_adds_the_chunk_before_done() -> None:
    draft, ctx = chat(usage=False)
    assert "usage" not in kinds(draft)
    out = apply(q.usage_without_request(), draft, ctx)
    assert kinds(out)[-2:] == ["usage", "done"]
    added = out.chunks[-2].data
    assert added["choices"] == []
    assert added["usage"] == {"prompt_tokens": 4, "completion_tokens": 6, "total_tokens": 10}
    assert added["id"] == draft.chunks[0].data["id"]
    asked, ctx = chat(usage=True)
    assert apply(q.usage_without_request(), asked, ctx) == asked  # asked for: already there


def test_usage_vendor_ext_adds_xais_keys_and_counts_the_reasoning() -> None:
    draft, ctx = chat()
    before = draft.chunks[index_of(draft, "usage")].data["usage"]  # type: ignore[index]
    usage = apply(q.usage_vendor_ext(5), draft, ctx).chunks[index_of(draft, "usage")].data["usage"]  # type: ignore[index]
    assert usage["completion_tokens_details"]["reasoning_tokens"] == 5
    assert usage["total_tokens"] == before["total_tokens"] + 5
    assert (usage["num_sources_used"], usage["cost_in_usd_ticks"]) == (0, 1250)
    assert usage["prompt_tokens"] == before["prompt_tokens"]


def test_choices_null_on_the_usage_chunk_only() -> None:
    draft, ctx = chat()
    out = apply(q.choices_null(), draft, ctx)
    assert out.chunks[index_of(out, "usage")].data["choices"] is None  # type: ignore[index]
    assert all(c["choices"] for c in choice_chunks(out))
    assert len(choice_chunks(out)) == len(choice_chunks(draft))


# -- Azure ---------------------------------------------------------------------------------


def test_azure_prompt_filter_prelude_is_first() -> None:
    draft, ctx = chat()
    out = apply(q.azure_prompt_filter(), draft, ctx)
    prelude = out.chunks[0].data
    assert (prelude["choices"], prelude["id"], prelude["object"], prelude["created"]) == (
        [],
        "",
        "",
        0,
    )
    results = prelude["prompt_filter_results"][0]
    assert results["prompt_index"] == 0
    assert set(results["content_filter_results"]) == {
        "hate",
        "jailbreak",
        "self_harm",
        "sexual",
        "violence",
    }
    assert out.chunks[1:] == draft.chunks


def test_azure_annotation_is_a_choice_without_delta_after_the_first_content() -> None:
    draft, ctx = chat()
    out = apply(q.azure_annotation(), draft, ctx)
    at = index_of(draft, "text")
    annotation = out.chunks[at + 1].data  # type: ignore[operator]
    choice = annotation["choices"][0]
    assert "delta" not in choice  # the catalogue's check
    assert choice["content_filter_offsets"] == {
        "check_offset": 0,
        "start_offset": 0,
        "end_offset": 44,
    }
    assert len(out.chunks) == len(draft.chunks) + 1
    empty, ctx = chat(text="")
    assert apply(q.azure_annotation(), empty, ctx) == empty  # no content to annotate


# -- ids and keys --------------------------------------------------------------------------


def test_empty_id_on_every_chunk() -> None:
    draft, ctx = chat()
    out = apply(q.empty_id(), draft, ctx)
    assert {(d["id"], d["created"]) for d in data(out)} == {("", 0)}
    assert out.chunks[-1] == draft.chunks[-1]  # [DONE]


def test_object_value_on_the_finish_chunk() -> None:
    draft, ctx = chat()
    out = apply(q.object_value(), draft, ctx)
    objects = [d["object"] for d in data(out)]
    finish = index_of(draft, "finish")
    assert finish is not None
    at = [i for i, c in enumerate(draft.chunks) if isinstance(c.data, dict)].index(finish)
    assert objects[at] == "chat.completion.done"
    assert objects[:at] + objects[at + 1 :] == ["chat.completion.chunk"] * (len(objects) - 1)
    assert data(apply(q.object_value(""), draft, ctx))[at]["object"] == ""


def test_missing_keys_drops_finish_reason_and_logprobs_but_on_the_finish() -> None:
    draft, ctx = chat()
    out = apply(q.missing_keys(), draft, ctx)
    for chunk in out.chunks:
        if chunk.kind in ("start", "text"):
            assert set(chunk.data["choices"][0]) == {"index", "delta"}
    finish = out.chunks[index_of(out, "finish")].data["choices"][0]  # type: ignore[index]
    assert finish["finish_reason"] == "stop"
    assert "logprobs" in finish


@pytest.mark.parametrize(
    ("variant", "where", "keys"),
    [
        ("openrouter", "every", {"provider"}),
        ("groq", "first", {"x_groq"}),
        ("vllm", "first", {"prompt_token_ids", "prompt_text"}),
        ("together", "every", {"seed"}),
        ("perplexity", "every", {"citations"}),
        ("azure", "none", set()),
    ],
)
def test_extra_fields_each_variant_adds_its_top_level_keys(
    variant: str, where: str, keys: set[str]
) -> None:
    draft, ctx = chat()
    out = apply(q.extra_fields(variant), draft, ctx)
    added = [
        set(new) - set(old)
        for new, old in zip(choice_chunks(out), choice_chunks(draft), strict=True)
    ]
    expected = {
        "every": [keys] * len(added),
        "first": [keys] + [set()] * (len(added) - 1),
        "none": [set()] * len(added),
    }
    assert added == expected[where]


def test_extra_fields_choice_keys() -> None:
    draft, ctx = chat()
    openrouter = choice_chunks(apply(q.extra_fields("openrouter"), draft, ctx))
    assert [c["choices"][0]["native_finish_reason"] for c in openrouter][-1] == "completed"
    assert {c["choices"][0]["native_finish_reason"] for c in openrouter[:-1]} == {None}
    azure = choice_chunks(apply(q.extra_fields("azure"), draft, ctx))
    assert azure[0]["choices"][0]["content_filter_results"] == {}
    assert set(azure[1]["choices"][0]["content_filter_results"]) == {
        "hate",
        "self_harm",
        "sexual",
        "violence",
    }
    vllm = choice_chunks(apply(q.extra_fields("vllm"), draft, ctx))
    assert {"stop_reason", "token_ids"} <= set(vllm[-1]["choices"][0])
    together = choice_chunks(apply(q.extra_fields("together"), draft, ctx))
    assert together[1]["choices"][0]["text"] == "One,"
    assert together[1]["choices"][0]["delta"]["token_id"] == 0
    assert [c["seed"] for c in together][-1] == 1234


def test_extra_fields_refuses_an_unknown_variant() -> None:
    with pytest.raises(ConfigError, match="Q-EXTRA-FIELDS variant='mistral' must be one of"):
        q.extra_fields("mistral")


# -- reasoning -----------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_field_sends_the_reasoning_after_the_start(field: str) -> None:
    draft, ctx = chat()
    out = apply(q.reasoning_field(field), draft, ctx)
    assert kinds(out)[:2] == ["start", "thinking"]
    assert out.chunks[1].data["choices"][0]["delta"] == {field: REASONING}
    assert out.chunks[1].data["id"] == draft.chunks[0].data["id"]
    assert out.chunks[2:] == draft.chunks[1:]


def test_reasoning_details_is_a_list_of_parts() -> None:
    draft, ctx = chat()
    delta = (
        apply(q.reasoning_field("reasoning_details"), draft, ctx)
        .chunks[1]
        .data["choices"][0]["delta"]
    )
    assert delta == {
        "reasoning_details": [
            {"type": "reasoning.text", "text": REASONING, "index": 0, "format": None}
        ]
    }


def test_reasoning_field_leaves_a_reply_that_streams_its_own_reasoning() -> None:
    draft, ctx = chat(reasoning="My own.")
    assert apply(q.reasoning_field("reasoning"), draft, ctx) == draft


def test_reasoning_field_refuses_an_unknown_field() -> None:
    with pytest.raises(ConfigError, match="Q-REASONING-FIELD field='thoughts'"):
        q.reasoning_field("thoughts")


def test_think_in_content_and_content_array() -> None:
    draft, ctx = chat()
    think = apply(q.think_in_content(), draft, ctx).chunks[1]
    assert (think.kind, think.data["choices"][0]["delta"]) == (
        "text",
        {"content": f"<think>{REASONING}</think>"},
    )
    parts = apply(q.content_array(), draft, ctx).chunks[1].data["choices"][0]["delta"]["content"]
    assert isinstance(parts, list)  # the catalogue's check
    assert parts == [{"type": "thinking", "thinking": [{"type": "text", "text": REASONING}]}]


# -- tool calls ----------------------------------------------------------------------------


def calls_of(draft: Draft) -> list[dict[str, Any]]:
    return [
        c["choices"][0]["delta"]["tool_calls"][0]
        for c in choice_chunks(draft)
        if "tool_calls" in c["choices"][0]["delta"]
    ]


def test_tool_no_index_drops_index_and_type() -> None:
    draft, ctx = chat(tools=True, text="")
    calls = calls_of(apply(q.tool_no_index(), draft, ctx))
    assert calls
    assert all("index" not in c and "type" not in c for c in calls)
    assert [c.get("id") for c in calls] == [c.get("id") for c in calls_of(draft)]


def test_tool_args_whole_sends_the_arguments_in_the_first_chunk() -> None:
    draft, ctx = chat(tools=True, text="")
    assert len(calls_of(draft)) > 2
    calls = calls_of(apply(q.tool_args_whole(), draft, ctx))
    assert calls == [
        {
            "index": 0,
            "id": calls_of(draft)[0]["id"],
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        }
    ]


def test_tool_args_whole_with_two_calls_keeps_each_whole() -> None:
    two = [*CALLS, {"name": "get_time", "arguments": {"zone": "CET"}}]
    reply = OpenAIChat(tool_calls=two)
    ctx = context({"stream": True, "messages": USER}, model="gpt-test")
    draft = reply.draft(ctx)
    for order in (
        (q.tool_args_whole(), q.tool_no_index()),
        (q.tool_no_index(), q.tool_args_whole()),
    ):
        out = draft
        for transform in order:
            out = apply(transform, out, ctx)
        assert [c["function"]["arguments"] for c in calls_of(out)] == [
            '{"city": "Paris"}',
            '{"zone": "CET"}',
        ]


# -- Rules 2 and 3, for every maker --------------------------------------------------------

MAKERS: list[tuple[str, Callable[[], Transform]]] = [
    ("role_every_chunk", q.role_every_chunk),
    ("finish_on_content", q.finish_on_content),
    ("usage_on_finish", q.usage_on_finish),
    ("usage_dummy_choice", q.usage_dummy_choice),
    ("usage_every_chunk", q.usage_every_chunk),
    ("usage_without_request", q.usage_without_request),
    ("usage_vendor_ext", q.usage_vendor_ext),
    ("choices_null", q.choices_null),
    ("azure_prompt_filter", q.azure_prompt_filter),
    ("azure_annotation", q.azure_annotation),
    ("empty_id", q.empty_id),
    ("object_value", q.object_value),
    ("missing_keys", q.missing_keys),
    ("extra_fields", q.extra_fields),
    ("reasoning_field", q.reasoning_field),
    ("think_in_content", q.think_in_content),
    ("content_array", q.content_array),
    ("tool_no_index", q.tool_no_index),
    ("tool_args_whole", q.tool_args_whole),
    ("finish_stop_for_tools", q.finish_stop_for_tools),
]


@pytest.mark.parametrize(("name", "make"), MAKERS, ids=[n for n, _ in MAKERS])
def test_every_maker_is_pure_and_leaves_a_buffered_answer_alone(
    name: str, make: Callable[[], Transform]
) -> None:
    for tools in (False, True):
        draft, ctx = chat(tools=tools)
        first, second = apply(make(), draft, ctx), apply(make(), draft, ctx)
        assert first == second  # Rule 3
        buffered = OpenAIChat("x").draft(context({"messages": USER}))
        assert apply(make(), buffered, ctx) == buffered  # Rule 2: no chunks, nothing to do


def test_tool_call_quirks_leave_a_text_only_stream_alone() -> None:
    """Rule 2: a provider bundle applies to any reply."""
    draft, ctx = chat()
    for make in (q.tool_no_index, q.tool_args_whole, q.finish_stop_for_tools):
        assert apply(make(), draft, ctx) == draft
    no_usage, ctx = chat(usage=False)
    for make in (q.usage_on_finish, q.usage_dummy_choice, q.usage_vendor_ext, q.choices_null):
        assert apply(make(), no_usage, ctx) == no_usage
