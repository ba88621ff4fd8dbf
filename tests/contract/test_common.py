"""Rules every profile shares (contract/_common.py): the HTTP response and SSE framing,
each rule's finder on a transcript built directly."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp.contract._common import COMMON, spaced
from mockhttp.contract._rule import Hit
from mockhttp.contract._stream import Stream
from mockhttp.contract._transcript import Transcript

RULES = {r.id: r for r in COMMON}
CLEAN = b'data: {"a":1}\n\ndata: [DONE]\n\n'


def _hits(rule: str, body: bytes = CLEAN, **kw: Any) -> list[Hit]:
    return list(RULES[rule].find(Stream(Transcript.from_body(body, **kw))))


def test_a_clean_stream_has_no_hits() -> None:
    for rule in RULES:
        assert _hits(rule) == [], rule


def test_transport_names_the_error() -> None:
    t = Transcript(status=None, error="connection reset after 12 bytes")
    [found] = RULES["http.transport"].find(Stream(t))
    assert found.message == "no complete response arrived: connection reset after 12 bytes"


def test_status_other_than_200_quotes_the_body() -> None:
    [found] = _hits("http.status", b'{"error":"rate limited"}', status=429)
    assert found.message.startswith("status was 429, expected 200; the body began ")
    assert "rate limited" in found.message


def test_content_type_json_is_a_buffered_answer() -> None:
    [found] = _hits("http.content-type", b"{}", headers=(("content-type", "application/json"),))
    assert found.message.startswith('content-type was "application/json", expected text/event')
    assert _hits("http.content-type", headers=(("content-type", "Text/Event-Stream; x=1"),)) == []


def test_content_type_is_not_judged_on_an_error_status() -> None:
    assert _hits("http.content-type", b"{}", status=500, headers=()) == []


def test_an_unterminated_event_is_found_at_its_offset() -> None:
    [found] = _hits("sse.unterminated", b"data: 1\n\ndata: 2")
    assert found.message.startswith('the stream ended inside an event: "data: 2"')
    assert found.offset == 9


def test_comments_are_counted_and_the_first_quoted() -> None:
    [found] = _hits("sse.comments", b": keep-alive\n\n" + CLEAN + b": bye\n\n")
    assert found.message.startswith('2 comment line(s), the first ": keep-alive"')
    assert found.offset == 0
    assert RULES["sse.comments"].severity == "note"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"data: 1\r\n\r\n", "CRLF line endings"),
        (b"data: 1\r\r", "CR line endings"),
        (b"data: 1\n\ndata: 2\r\n\r\n", "CRLF/LF mixed line endings"),
    ],
)
def test_line_endings_other_than_lf(body: bytes, words: str) -> None:
    [found] = _hits("sse.line-endings", body)
    assert found.message.startswith(f"events use {words}, not LF")


def test_data_without_a_space_is_counted() -> None:
    [found] = _hits("sse.data-space", b"data: 1\n\ndata:2\n\ndata:3\n\n")
    assert found.message.startswith("2 event(s) write 'data:' without the space")
    assert found.event == 1


def test_a_bom_is_reported_at_offset_zero() -> None:
    [found] = _hits("sse.bom", b"\xef\xbb\xbf" + CLEAN)
    assert found.offset == 0
    assert "byte-order mark" in found.message


def test_json_spacing_reports_spaced_payloads_only() -> None:
    body = b'data: {"a":1}\n\ndata: {"a": 1}\n\ndata: {"b":"x y"}\n\ndata: not json\n\n'
    [found] = _hits("sse.json-spacing", body)
    assert found.message.startswith("1 event(s) carry JSON with whitespace outside strings")
    assert found.event == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a":1}', False),
        ('{"a": 1}', True),
        ('{"a":"b c"}', False),
        ('{"a":"q\\" "}', False),
        ('{"a":"q\\\\" }', True),
        ("[1,2 ]", True),
        ('"\\t"', False),
    ],
)
def test_spaced(text: str, expected: bool) -> None:
    assert spaced(text) is expected


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(JSON)
def test_compact_json_is_never_spaced(value: object) -> None:
    assert not spaced(json.dumps(value, separators=(",", ":")))
    assert not spaced(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


@given(JSON)
def test_a_space_before_the_end_is_spaced(value: object) -> None:
    assert spaced(json.dumps(value, separators=(",", ":")) + " ")
