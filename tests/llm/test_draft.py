"""llm/_draft.py: timing, payload text and render, pure (no sockets).

render is where a draft becomes bytes: the content type, the pauses, the framing (line
ending, colon spacing, separators, BOM, final blank line). Each is checked on the encoded
bytes, and a property test decodes what render wrote with mockhttp's own SSE decoder.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp import ConfigError
from mockhttp.llm._draft import (
    CONTENT_KINDS,
    KINDS,
    Chunk,
    Draft,
    Framing,
    Timing,
    payload_text,
    render,
)
from mockhttp.sse import Comment, Message, Unterminated, decode
from tests.helpers.llm_build import draft

RNG = random.Random(0)


def rendered(d: Draft, timing: Timing | None = None) -> Any:
    return render(d, timing or Timing(), random.Random(1))


# -- the kinds ---------------------------------------------------------------------------------


def test_content_kinds_are_kinds_and_carry_content_only() -> None:
    assert set(KINDS) >= CONTENT_KINDS
    assert {"text", "refusal", "thinking", "tool"} == CONTENT_KINDS
    assert len(set(KINDS)) == len(KINDS)


# -- Timing ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ttft", "cps", "jitter", "seed", "named"),
    [
        (0, 0, 0, 0, "chunks_per_second"),
        (0, -1, 0, 0, "chunks_per_second"),
        (0, True, 0, 0, "chunks_per_second"),
        (0, "10", 0, 0, "chunks_per_second"),
        (0, None, -0.1, 0, "jitter"),
        (0, None, 1.5, 0, "jitter"),
        (0, None, True, 0, "jitter"),
        (0, None, "0.1", 0, "jitter"),
        (0, None, 0, True, "seed"),
        (0, None, 0, 1.5, "seed"),
        (-1, None, 0, 0, "ttft"),
        ("soon", None, 0, 0, "ttft"),
    ],
)
def test_timing_of_refuses_each_option_out_of_range(
    ttft: Any, cps: Any, jitter: Any, seed: Any, named: str
) -> None:
    with pytest.raises(ConfigError, match=named):
        Timing.of(ttft, cps, jitter, seed)


def test_timing_of_reads_durations_and_rates() -> None:
    assert Timing.of("250ms", 20, 0.5) == Timing(0.25, 0.05, 0.5)
    assert Timing.of(1, None, 0) == Timing(1.0, 0.0, 0.0)
    assert Timing.of(0, 4.0, 1) == Timing(0.0, 0.25, 1.0)


def test_delays_are_ttft_then_the_interval() -> None:
    assert Timing(0.5, 0.1).delays(4, RNG) == [0.5, 0.1, 0.1, 0.1]
    assert Timing().delays(3, RNG) == [0.0, 0.0, 0.0]
    assert Timing(0.5, 0.1).delays(0, RNG) == []


@given(
    ttft=st.floats(0, 5),
    interval=st.floats(0.001, 2),
    jitter=st.floats(0, 1),
    count=st.integers(1, 40),
    seed=st.integers(0, 2**32),
)
def test_jitter_scales_each_interval_within_its_bounds_and_never_the_ttft(
    ttft: float, interval: float, jitter: float, count: int, seed: int
) -> None:
    delays = Timing(ttft, interval, jitter).delays(count, random.Random(seed))
    assert delays[0] == ttft
    for d in delays[1:]:
        assert interval * (1 - jitter) - 1e-12 <= d <= interval * (1 + jitter) + 1e-12
    again = Timing(ttft, interval, jitter).delays(count, random.Random(seed))
    assert again == delays  # the same seed, the same pauses


def test_jitter_draws_differ_from_call_to_call() -> None:
    timing = Timing(0, 1.0, 0.5)
    assert timing.delays(10, random.Random(1)) != timing.delays(10, random.Random(2))


# -- payload_text -------------------------------------------------------------------------------


def test_payload_text_of_each_data_type() -> None:
    assert payload_text(None, Framing()) is None
    assert payload_text("[DONE]", Framing()) == "[DONE]"
    assert payload_text({"a": [1, 2], "b": "é"}, Framing()) == '{"a":[1,2],"b":"é"}'
    spaced = Framing(separators=(", ", ": "))
    assert payload_text({"a": [1, 2]}, spaced) == '{"a": [1, 2]}'
    assert payload_text([1, {"x": None}], Framing()) == '[1,{"x":null}]'


def test_payload_text_keeps_key_order_as_built() -> None:
    assert payload_text({"z": 1, "a": 2}, Framing()) == '{"z":1,"a":2}'


# -- render: buffered --------------------------------------------------------------------------


def test_a_buffered_draft_is_json_with_its_content_type() -> None:
    reply = rendered(Draft("p", False, 201, (("x-a", "1"),), {"ok": True}))
    assert reply.status_code == 201
    assert reply.content == b'{"ok":true}'
    assert reply.headers[0] == ("Content-Type", "application/json")
    assert ("x-a", "1") in reply.headers
    assert reply.stream is None
    assert reply.head_delay == 0


def test_a_buffered_draft_waits_the_ttft_before_its_head() -> None:
    reply = rendered(Draft("p", False, body={}), Timing(0.75, 0.1))
    assert reply.head_delay == 0.75


def test_a_content_type_of_the_draft_is_kept_whatever_its_case() -> None:
    reply = rendered(Draft("p", False, headers=(("content-TYPE", "text/plain"),), body="hi"))
    assert [h for h in reply.headers if h[0].lower() == "content-type"] == [
        ("content-TYPE", "text/plain")
    ]
    assert reply.content == b"hi"


def test_a_buffered_draft_with_no_body_is_empty() -> None:
    assert rendered(Draft("p", False, body=None)).content == b""


def test_a_header_that_cannot_be_sent_is_refused() -> None:
    with pytest.raises(ConfigError):
        rendered(Draft("p", False, headers=(("x-bad", "a\r\nb"),), body={}))


# -- render: streamed --------------------------------------------------------------------------


def test_a_stream_is_sse_with_every_field_of_its_chunks() -> None:
    d = draft(
        [
            Chunk(comment="hi", kind="comment"),
            Chunk({"a": 1}, event="start", id="1"),
            Chunk("[DONE]", "done"),
        ]
    )
    reply = rendered(d)
    assert reply.headers[0] == ("Content-Type", "text/event-stream; charset=utf-8")
    assert reply.stream.encoded == (
        b": hi\n\n",
        b'event: start\nid: 1\ndata: {"a":1}\n\n',
        b"data: [DONE]\n\n",
    )


def test_pauses_go_to_chunks_without_their_own() -> None:
    d = draft([Chunk({"n": 1}), Chunk({"n": 2}, delay=2.0), Chunk({"n": 3})])
    reply = rendered(d, Timing(0.5, 0.25))
    assert [e.delay for e in reply.stream.events] == [0.5, 2.0, 0.25]


@pytest.mark.parametrize(
    ("framing", "expected"),
    [
        (Framing(), b'data: {"a":1}\n\ndata: [DONE]\n\n'),
        (Framing(line_ending="\r\n"), b'data: {"a":1}\r\n\r\ndata: [DONE]\r\n\r\n'),
        (Framing(line_ending="\r"), b'data: {"a":1}\r\rdata: [DONE]\r\r'),
        (Framing(space=False), b'data:{"a":1}\n\ndata:[DONE]\n\n'),
        (Framing(separators=(", ", ": ")), b'data: {"a": 1}\n\ndata: [DONE]\n\n'),
        (Framing(bom=True), b'\xef\xbb\xbfdata: {"a":1}\n\ndata: [DONE]\n\n'),
        (Framing(final_blank_line=False), b'data: {"a":1}\n\ndata: [DONE]\n'),
        (
            Framing(line_ending="\r\n", final_blank_line=False, bom=True),
            b'\xef\xbb\xbfdata: {"a":1}\r\n\r\ndata: [DONE]\r\n',
        ),
    ],
)
def test_each_framing_on_the_bytes(framing: Framing, expected: bytes) -> None:
    d = draft([Chunk({"a": 1}), Chunk("[DONE]", "done")], framing=framing)
    assert b"".join(rendered(d).stream.encoded) == expected


def test_an_empty_stream_renders_with_no_events() -> None:
    reply = rendered(draft([], framing=Framing(bom=True, final_blank_line=False)))
    assert reply.stream.encoded == ()


def test_draft_with_chunks_is_a_new_draft() -> None:
    first = draft([Chunk({"a": 1})])
    second = first.with_chunks([Chunk({"b": 2})])
    assert first.chunks == (Chunk({"a": 1}),)
    assert second.chunks == (Chunk({"b": 2}),)
    assert second.provider == first.provider
    assert second.framing == first.framing
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.status = 500  # type: ignore[misc]


# -- the property: what render writes, a decoder reads back -------------------------------------

_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=12)
_PAYLOAD = st.dictionaries(st.text(max_size=5), st.integers() | _TEXT | st.none(), max_size=4)


@given(
    payloads=st.lists(_PAYLOAD, min_size=1, max_size=6),
    line_ending=st.sampled_from(["\n", "\r\n", "\r"]),
    space=st.booleans(),
    spaced=st.booleans(),
    bom=st.booleans(),
    names=st.lists(st.sampled_from([None, "a", "message_delta"]), min_size=6, max_size=6),
)
def test_render_then_decode_gives_back_every_payload(
    payloads: list[dict[str, Any]],
    line_ending: Any,
    space: bool,
    spaced: bool,
    bom: bool,
    names: list[str | None],
) -> None:
    import json

    framing = Framing(line_ending, space, (", ", ": ") if spaced else (",", ":"), True, bom)
    chunks = [Chunk(p, event=n) for p, n in zip(payloads, names, strict=False)]
    data = b"".join(rendered(draft(chunks, framing=framing)).stream.encoded)
    assert data.startswith(b"\xef\xbb\xbf") == bom
    messages = [m for m in decode(data) if isinstance(m, Message)]
    assert [json.loads(m.data) for m in messages] == payloads
    assert [m.event for m in messages] == [n or "message" for n in names[: len(payloads)]]
    assert {e for m in messages for e in m.endings} == {line_ending.encode()}
    assert all(m.data_space == space for m in messages)


def test_without_a_final_blank_line_the_last_event_is_lost_to_a_reader() -> None:
    """Q-NO-TRAILING-BLANK: the stream ends mid-event, so the spec's reader drops it."""
    d = draft([Chunk({"a": 1}), Chunk({"b": 2})], framing=Framing(final_blank_line=False))
    items = decode(b"".join(rendered(d).stream.encoded))
    assert [type(i) for i in items] == [Message, Unterminated]
    assert items[1].data == '{"b":2}'  # type: ignore[union-attr]


def test_a_comment_chunk_is_a_comment_to_a_reader() -> None:
    d = draft([Chunk(comment="keep-alive", kind="comment"), Chunk({"a": 1})])
    items = decode(b"".join(rendered(d).stream.encoded))
    assert isinstance(items[0], Comment)
    assert items[0].text == "keep-alive"
