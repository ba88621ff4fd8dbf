"""llm/_wire_quirks.py: framing, error and event-protocol quirks, quirk by quirk, pure.

Each maker is applied to a reference draft made by the real reply (Chat Completions,
Responses, Anthropic Messages, Gemini) and checked against its catalogue entry's "Check"
(/work/shared/wire-facts.md Part 4; docs/wire-format.md): framing quirks on the rendered
bytes, read back by mockhttp's SSE decoder; error quirks on the events, and where the
official SDK has a view of it, by that SDK's types.
"""

from __future__ import annotations

import copy
import json
import random
import re
from typing import Any

import pytest
from anthropic.types import RawMessageStreamEvent
from openai.types.responses import ResponseFailedEvent, ResponseStreamEvent
from pydantic import TypeAdapter, ValidationError

from mockhttp.llm import _wire_quirks as w
from mockhttp.llm._anthropic import AnthropicMessages
from mockhttp.llm._base import LLMReply
from mockhttp.llm._draft import Chunk, Context, Draft, Timing, Transform, render
from mockhttp.llm._gemini import Gemini
from mockhttp.llm._openai_chat import OpenAIChat
from mockhttp.llm._openai_responses import OpenAIResponses
from mockhttp.sse import Comment, Message, Unterminated, decode
from tests.helpers.llm_build import context

USER = [{"role": "user", "content": "Count to three."}]
TEXT = "One, two, three."
CALLS = [{"name": "get_weather", "arguments": {"city": "Paris"}}]
KINDS: dict[str, tuple[type[LLMReply], str, dict[str, Any]]] = {
    "openai_chat": (OpenAIChat, "/v1/chat/completions", {"messages": USER, "stream": True}),
    "openai_responses": (OpenAIResponses, "/v1/responses", {"input": "Count.", "stream": True}),
    "anthropic_messages": (AnthropicMessages, "/v1/messages", {"messages": USER, "stream": True}),
    "gemini": (Gemini, "/v1beta/models/g:streamGenerateContent?alt=sse", {"contents": []}),
}


def made(kind: str = "openai_chat", **options: Any) -> tuple[Draft, Context]:
    cls, path, body = KINDS[kind]
    ctx = context(body, path, model="m")
    return cls(**{"text": TEXT, **options}).draft(ctx), ctx


def apply(transform: Transform, draft: Draft, ctx: Context) -> Draft:
    before = copy.deepcopy(draft)
    out = transform(draft, ctx)
    assert draft == before, "the transform changed its input"
    return out


def wire(draft: Draft) -> bytes:
    reply = render(draft, Timing(), random.Random(0))
    assert reply.stream is not None
    return b"".join(reply.stream.encoded)


def messages(draft: Draft) -> list[Message]:
    return [m for m in decode(wire(draft)) if isinstance(m, Message)]


def buffered(kind: str = "openai_chat") -> tuple[Draft, Context]:
    cls, path, body = KINDS[kind]
    path = path.replace("streamGenerateContent?alt=sse", "generateContent")
    plain = {k: v for k, v in body.items() if k != "stream"}
    ctx = context(plain, path, model="m")
    return cls(text=TEXT).draft(ctx), ctx


# -- framing -------------------------------------------------------------------------------


def test_crlf_frames_every_line_with_crlf() -> None:
    """Q-CRLF check: CRLF present and no bare LF."""
    draft, ctx = made()
    data = wire(apply(w.framing(line_ending="\r\n")(), draft, ctx))
    assert b"\r\n\r\n" in data
    assert re.search(rb"(?<!\r)\n", data) is None
    assert [m.data for m in messages(apply(w.framing(line_ending="\r\n")(), draft, ctx))] == [
        m.data for m in messages(draft)
    ]


def test_cr_only_has_no_lf_at_all() -> None:
    draft, ctx = made()
    data = wire(apply(w.framing(line_ending="\r")(), draft, ctx))
    assert b"\n" not in data
    assert len(messages(apply(w.framing(line_ending="\r")(), draft, ctx))) == len(draft.chunks)


def test_data_no_space_and_bom_and_no_trailing_blank() -> None:
    draft, ctx = made()
    assert re.search(rb"^data:[^ ]", wire(apply(w.framing(space=False)(), draft, ctx)), re.M)
    assert wire(apply(w.framing(bom=True)(), draft, ctx)).startswith(b"\xef\xbb\xbfdata: ")
    cut = wire(apply(w.framing(final_blank_line=False)(), draft, ctx))
    assert not cut.endswith(b"\n\n")
    assert isinstance(decode(cut)[-1], Unterminated)  # the last event is lost under the spec


def test_framing_leaves_a_buffered_answer_alone() -> None:
    draft, ctx = buffered()
    assert apply(w.framing(line_ending="\r\n")(), draft, ctx) == draft


def test_comments_before_the_first_data_and_in_the_middle() -> None:
    draft, ctx = made()
    out = apply(w.comments("OPENROUTER PROCESSING", 3), draft, ctx)
    items = decode(wire(out))
    assert [type(i) for i in items[:3]] == [Comment] * 3
    assert isinstance(items[3], Message)
    comments = [i for i in items if isinstance(i, Comment)]
    assert len(comments) == 4
    assert {c.text for c in comments} == {"OPENROUTER PROCESSING"}
    assert [m.data for m in items if isinstance(m, Message)] == [m.data for m in messages(draft)]
    middle = len(draft.chunks) // 2
    assert out.chunks[3 + middle].kind == "comment"


def test_comments_leave_an_empty_stream_alone() -> None:
    empty = Draft("openai_chat", True)
    assert apply(w.comments(), empty, context()) == empty


def test_no_done_drops_the_terminator() -> None:
    draft, ctx = made()
    out = apply(w.no_done(), draft, ctx)
    assert messages(draft)[-1].data == "[DONE]"
    assert "[DONE]" not in [m.data for m in messages(out)]
    assert len(out.chunks) == len(draft.chunks) - 1


def test_event_line_names_every_event_but_done() -> None:
    draft, ctx = made()
    out = messages(apply(w.event_line("completion.chunk"), draft, ctx))
    assert {m.event for m in out[:-1]} == {"completion.chunk"}
    assert (out[-1].data, out[-1].event) == ("[DONE]", "message")


def test_responses_no_event_line_keeps_the_type_in_the_json_and_ends_with_done() -> None:
    draft, ctx = made("openai_responses")
    out = messages(apply(w.responses_no_event_line(), draft, ctx))
    assert {m.event for m in out} == {"message"}  # no event: line at all
    assert b"event:" not in wire(apply(w.responses_no_event_line(), draft, ctx))
    assert [json.loads(m.data)["type"] for m in out[:-1]] == [c.data["type"] for c in draft.chunks]
    assert out[-1].data == "[DONE]"


def test_json_padding_pads_before_the_last_brace_but_pings() -> None:
    draft, ctx = made("anthropic_messages")
    out = apply(w.json_padding(2, 16), draft, ctx)
    for before, after in zip(draft.chunks, out.chunks, strict=True):
        if before.kind == "ping":
            assert after == before
            continue
        assert isinstance(after.data, str)
        spaces = re.search(r"( +)\}$", after.data)
        assert spaces is not None
        assert 2 <= len(spaces.group(1)) <= 16
        assert json.loads(after.data) == before.data


def test_json_padding_draws_from_the_calls_random() -> None:
    draft, ctx = made("anthropic_messages")
    again = context(dict(ctx.body), ctx.request.target, model="m")
    assert apply(w.json_padding(), draft, ctx) == apply(w.json_padding(), draft, again)
    other = context(dict(ctx.body), ctx.request.target, call=2, model="m")
    assert apply(w.json_padding(), draft, ctx) != apply(w.json_padding(), draft, other)


def test_json_mixed_spaces_every_other_payload() -> None:
    draft, ctx = made()
    out = apply(w.json_mixed(), draft, ctx)
    for i, (before, after) in enumerate(zip(draft.chunks, out.chunks, strict=True)):
        if isinstance(before.data, dict) and i % 2 == 1:
            assert isinstance(after.data, str)
            assert '", "' in after.data or '": ' in after.data
            assert json.loads(after.data) == before.data
        else:
            assert after == before


def test_json_array_turns_the_stream_into_one_json_body() -> None:
    draft, ctx = made("gemini")
    out = apply(w.json_array(), draft, ctx)
    assert not out.streamed
    assert out.body == [c.data for c in draft.chunks]
    assert out.headers[0] == ("Content-Type", "application/json; charset=UTF-8")
    assert [h for h in out.headers if h[0].lower() == "content-type"] == [out.headers[0]]
    body = render(out, Timing(), random.Random(0)).content
    assert body.startswith(b"[")  # the catalogue's check: content type plus a leading [


# -- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("done", [False, True])
def test_bare_error_after_the_first_content(done: bool) -> None:
    draft, ctx = made()
    out = apply(w.bare_error(done)(), draft, ctx)
    tail = [Chunk("[DONE]", "done")] if done else []
    assert list(out.chunks[:2]) == list(draft.chunks[:2])  # start, first content
    error = json.loads(out.chunks[2].data)
    assert set(error) == {"error"}  # no choices: Q-ERR-BARE-DATA
    assert error["error"]["type"] == "server_error"
    assert list(out.chunks[3:]) == tail


def test_error_in_chunk_is_a_choice_chunk_with_an_error_then_done() -> None:
    draft, ctx = made()
    out = apply(w.error_in_chunk(), draft, ctx)
    failed = out.chunks[-2].data
    assert failed["choices"][0]["delta"] == {"content": ""}
    assert failed["error"] == {"code": 400, "message": "Token limit reached"}
    assert failed["id"] == draft.chunks[0].data["id"]
    assert out.chunks[-1] == Chunk("[DONE]", "done")


def test_error_event_named_in_each_providers_shape() -> None:
    anthropic_draft, ctx = made("anthropic_messages")
    event = apply(w.error_event_named(), anthropic_draft, ctx).chunks[-1]
    assert event.event == "error"
    assert event.data["error"]["type"] == "overloaded_error"
    TypeAdapter(RawMessageStreamEvent | Any).validate_python(event.data)
    responses, ctx = made("openai_responses")
    out = apply(w.error_event_named(), responses, ctx)
    error = out.chunks[-1].data
    assert (out.chunks[-1].event, error["code"]) == ("error", "server_error")
    assert [c.data["sequence_number"] for c in out.chunks] == list(range(len(out.chunks)))
    TypeAdapter(ResponseStreamEvent).validate_python(error)
    groq, ctx = made()
    last = apply(w.error_event_named(), groq, ctx).chunks[-1]
    assert last.event == "error"
    assert last.data["error"]["status_code"] == 400
    assert "[DONE]" not in [c.data for c in apply(w.error_event_named(), groq, ctx).chunks]


def test_truncate_cuts_the_middle_event_in_half_with_no_final_blank_line() -> None:
    draft, ctx = made()
    out = apply(w.truncate(), draft, ctx)
    middle = len(draft.chunks) // 2
    assert list(out.chunks[:middle]) == list(draft.chunks[:middle])
    half = out.chunks[-1]
    whole = json.dumps(draft.chunks[middle].data, separators=(",", ":"), ensure_ascii=False)
    assert whole.startswith(half.data)
    assert len(half.data) == len(whole) // 2
    data = wire(out)
    assert not data.endswith(b"\n\n")
    assert b"[DONE]" not in data
    short = Draft("openai_chat", True, chunks=(Chunk({"a": 1}),))
    assert apply(w.truncate(), short, ctx) == short


def test_responses_error_shapes_nested_error_then_failed() -> None:
    draft, ctx = made("openai_responses")
    out = apply(w.responses_error_shapes(), draft, ctx)
    error, failed = out.chunks[-2].data, out.chunks[-1].data
    assert error["error"]["code"] == "insufficient_quota"  # nested, as recorded
    assert failed["type"] == "response.failed"
    assert failed["response"]["status"] == "failed"
    assert failed["response"]["id"] == draft.chunks[0].data["response"]["id"]
    assert [c.data["sequence_number"] for c in out.chunks] == list(range(len(out.chunks)))
    # the recorded code is outside the SDK's enum: a strictly validating client fails here
    with pytest.raises(ValidationError, match="insufficient_quota"):
        ResponseFailedEvent.model_validate(failed)


# -- event protocol ------------------------------------------------------------------------


def test_unknown_event_before_the_end_in_each_typed_stream() -> None:
    anthropic_draft, ctx = made("anthropic_messages")
    out = apply(w.unknown_event(), anthropic_draft, ctx)
    names = [c.event for c in out.chunks]
    assert names[names.index("future_event_xyz") + 1] == "message_delta"
    responses, ctx = made("openai_responses")
    out = apply(w.unknown_event("x"), responses, ctx)
    assert [c.event for c in out.chunks][-2:] == ["response.x", "response.completed"]
    assert [c.data["sequence_number"] for c in out.chunks] == list(range(len(out.chunks)))
    gemini, ctx = made("gemini")
    assert apply(w.unknown_event(), gemini, ctx) == gemini  # no end chunk: nothing to do


def test_seqno_counts_from_the_start_given() -> None:
    draft, ctx = made("openai_responses")
    out = apply(w.seqno(1), draft, ctx)
    assert [c.data["sequence_number"] for c in out.chunks] == list(range(1, len(out.chunks) + 1))


def test_ping_position_sends_two_pings_before_the_finish() -> None:
    draft, ctx = made("anthropic_messages")
    out = apply(w.ping_position(), draft, ctx)
    names = [c.event for c in out.chunks]
    assert names.count("ping") == 3
    assert names[-4:] == ["ping", "ping", "message_delta", "message_stop"]


# -- Rule 2 and 3 for every maker ----------------------------------------------------------

MAKERS: list[tuple[str, Any]] = [
    ("framing", w.framing(line_ending="\r\n")),
    ("comments", w.comments),
    ("no_done", w.no_done),
    ("event_line", w.event_line),
    ("responses_no_event_line", w.responses_no_event_line),
    ("json_padding", w.json_padding),
    ("json_mixed", w.json_mixed),
    ("json_array", w.json_array),
    ("bare_error", w.bare_error(False)),
    ("error_in_chunk", w.error_in_chunk),
    ("error_event_named", w.error_event_named),
    ("truncate", w.truncate),
    ("responses_error_shapes", w.responses_error_shapes),
    ("unknown_event", w.unknown_event),
    ("seqno", w.seqno),
    ("ping_position", w.ping_position),
]


@pytest.mark.parametrize(("name", "make"), MAKERS, ids=[n for n, _ in MAKERS])
@pytest.mark.parametrize("kind", list(KINDS))
def test_every_maker_is_pure_and_leaves_a_buffered_answer_alone(
    name: str, make: Any, kind: str
) -> None:
    # the same draft and a context made the same way (its random not drawn from yet)
    assert apply(make(), *made(kind, tool_calls=CALLS)) == apply(
        make(), *made(kind, tool_calls=CALLS)
    )
    plain, ctx = buffered(kind)
    assert apply(make(), plain, ctx) == plain
