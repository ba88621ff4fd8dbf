"""The raw SSE reader against the WHATWG vectors in docs/wire-format.md (``SSE-*``)."""

from __future__ import annotations

import pytest

from mockhttp.sse import Comment, Decoder, Item, Line, Message, Unterminated, decode

# (vector id, stream bytes, dispatched events as (type, data, last event id))
VECTORS: list[tuple[str, bytes, list[tuple[str, str, str]]]] = [
    ("SSE-EOL-LF", b"data:a\n\ndata:b\n\n", [("message", "a", ""), ("message", "b", "")]),
    ("SSE-EOL-CRLF", b"data:a\r\n\r\ndata:b\r\n\r\n", [("message", "a", ""), ("message", "b", "")]),
    ("SSE-EOL-CR", b"data:a\r\rdata:b\r\r", [("message", "a", ""), ("message", "b", "")]),
    ("SSE-EOL-CR-WPT", b"data:test\r\ndata\ndata:test\r\n\r", [("message", "test\n\ntest", "")]),
    ("SSE-EOL-MIXED", b"data:a\r\r\n\ndata:b\n\n", [("message", "a", ""), ("message", "b", "")]),
    ("SSE-EOL-SPLIT", b"data:a\r\n\r\n", [("message", "a", "")]),
    (
        "SSE-EOL-UNICODE",
        "data:a\u2028b\u2029c\x85d\x0be\x0cf\n\n".encode(),
        [("message", "a\u2028b\u2029c\x85d\x0be\x0cf", "")],
    ),
    (
        "SSE-BOM-1",
        b"\xef\xbb\xbfdata:1\n\n\xef\xbb\xbfdata:2\n\ndata:3\n\n",
        [("message", "1", ""), ("message", "3", "")],
    ),
    ("SSE-BOM-2", b"\xef\xbb\xbf\xef\xbb\xbfdata:1\n\ndata:2\n\n", [("message", "2", "")]),
    ("SSE-BOM-UTF16", b"\xff\xfedata:1\n\ndata:2\n\n", [("message", "2", "")]),
    ("SSE-BLANK", b"data:x\n\n\n\n", [("message", "x", "")]),
    (
        "SSE-COMMENT",
        b"data:1\r:\0\n:\r\ndata:2\n:"
        + b"x" * 2048
        + b"\rdata:3\n:data:fail\r:"
        + b"y" * 2048
        + b"\ndata:4\n\n",
        [("message", "1\n2\n3\n4", "")],
    ),
    ("SSE-FIELD-SPLIT", b"data:a:b: c\n\n", [("message", "a:b: c", "")]),
    (
        "SSE-SPACE-ONE",
        b"data:\ttest\rdata: \ndata:test\n\ndata:  x\n\n",
        [("message", "\ttest\n\ntest", ""), ("message", " x", "")],
    ),
    ("SSE-NOSPACE", b"data:x\n\ndata: x\n\n", [("message", "x", ""), ("message", "x", "")]),
    ("SSE-NOCOLON", b"data\n\n", [("message", "", "")]),
    (
        "SSE-CASE",
        b"Data:1\n data:32\ndata :x\nda-ta:3\ndata_5\ndata:ok\n\n",
        [("message", "ok", "")],
    ),
    ("SSE-NUL-DATA", b"data:\0\n\n", [("message", "\0", "")]),
    ("SSE-UNKNOWN", b"foo:bar\ndata:x\nbar\n\n", [("message", "x", "")]),
    (
        "SSE-DATA-EMPTY",
        b"data:\n\ndata\ndata\n\ndata:test",
        [("message", "", ""), ("message", "\n", "")],
    ),
    ("SSE-NODATA", b"event: x\n\ndata:y\n\n", [("message", "y", "")]),
    (
        "SSE-EVENT",
        b"event:a\ndata:1\n\nevent:\ndata:2\n\ndata:3\n\n",
        [("a", "1", ""), ("message", "2", ""), ("message", "3", "")],
    ),
    (
        "SSE-ID",
        b"id:123\ndata:a\n\nid:4\x005\ndata:b\n\n",
        [("message", "a", "123"), ("message", "b", "123")],
    ),
    (
        "SSE-ID-PERSIST",
        b"id:1\ndata:a\n\ndata:b\n\nid:\ndata:c\n\n",
        [("message", "a", "1"), ("message", "b", "1"), ("message", "c", "")],
    ),
    ("SSE-ID-DISPATCH", b"id:1\n\ndata:a\n\nid:2\ndata:b", [("message", "a", "1")]),
    ("SSE-EOF", b"data:a\n\ndata:b\n", [("message", "a", "")]),
    (
        "SSE-CHUNKING",
        "data:\u00e9\u20ac\U0001f600\r\n\r\n".encode(),
        [("message", "\u00e9\u20ac\U0001f600", "")],
    ),
]

RETRY_VECTORS: list[tuple[bytes, int | None]] = [
    (b"retry:2000\nretry:1000x\ndata:a\n\n", 2000),
    (b"retry: -1\ndata:a\n\n", None),
    (b"retry: +5\ndata:a\n\n", None),
    (b"retry: 1.5\ndata:a\n\n", None),
    (b"retry: 1 000\ndata:a\n\n", None),
    (b"retry:\ndata:a\n\n", None),
    ("retry:\u0661\u0662\ndata:a\n\n".encode(), None),
    (b"retry:0050\ndata:a\n\n", 50),
]


def feed_split(data: bytes, cuts: list[int]) -> list[Item]:
    """Feed ``data`` cut at the given indices, then close."""
    decoder = Decoder()
    items: list[Item] = []
    for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
        items += decoder.feed(data[start:end])
    return items + decoder.close()


def summary(items: list[Item]) -> list[tuple[str, str, str]]:
    """The (type, data, id) of each dispatched event."""
    return [(m.event, m.data, m.id) for m in items if isinstance(m, Message)]


@pytest.mark.parametrize(("vector", "stream", "expected"), VECTORS, ids=[v[0] for v in VECTORS])
def test_vector_fed_whole(vector: str, stream: bytes, expected: list[tuple[str, str, str]]) -> None:
    """Each SSE-* vector dispatches exactly the spec's events when fed in one read."""
    assert expected == summary(decode(stream))


@pytest.mark.parametrize(("vector", "stream", "expected"), VECTORS, ids=[v[0] for v in VECTORS])
def test_vector_byte_by_byte(
    vector: str, stream: bytes, expected: list[tuple[str, str, str]]
) -> None:
    """Each SSE-* vector gives identical items when fed one byte per read."""
    assert decode(stream) == feed_split(stream, list(range(1, len(stream))))


@pytest.mark.parametrize(("vector", "stream", "expected"), VECTORS, ids=[v[0] for v in VECTORS])
def test_vector_split_at_every_index(
    vector: str, stream: bytes, expected: list[tuple[str, str, str]]
) -> None:
    """Each SSE-* vector gives identical items when split in two at any index."""
    whole = decode(stream)
    for i in range(len(stream) + 1):
        assert whole == feed_split(stream, [i]), f"split at {i}: {stream[:i]!r} | {stream[i:]!r}"


@pytest.mark.parametrize(("stream", "expected"), RETRY_VECTORS)
def test_retry_counts_only_ascii_digits(stream: bytes, expected: int | None) -> None:
    """SSE-RETRY: only an all-ASCII-digit value sets the reconnection time."""
    decoder = Decoder()
    (message,) = decoder.feed(stream)
    assert isinstance(message, Message)
    assert (expected, expected) == (message.retry, decoder.reconnection_time)


def test_bom_split_byte_by_byte() -> None:
    """SSE-BOM-SPLIT: a BOM arriving one byte per read is still stripped."""
    stream = b"\xef\xbb\xbfdata:1\n\n"
    items = feed_split(stream, [1, 2, 3])
    assert summary(items) == [("message", "1", "")]
    assert items[0] == decode(stream)[0]


def test_bom_is_kept_in_raw_line_and_flagged() -> None:
    """A stripped BOM stays in the raw bytes, so offsets count it, and the line says so."""
    (message,) = decode(b"\xef\xbb\xbfdata:1\n\n")
    assert isinstance(message, Message)
    first = message.lines[0]
    assert (first.raw, first.bom, first.text, message.lines[1].offset) == (
        b"\xef\xbb\xbfdata:1",
        True,
        "data:1",
        10,
    )


def test_invalid_utf8_becomes_replacement_character() -> None:
    """Invalid UTF-8 bytes decode as U+FFFD, as the spec's UTF-8 decode requires."""
    assert summary(decode(b"data:a\xffb\n\n")) == [("message", "a\ufffdb", "")]


def test_comments_are_items_of_their_own() -> None:
    """Comment lines come back as Comment items, in stream order, with one space stripped."""
    items = decode(b": OPENROUTER PROCESSING\n\n:\n:x\ndata:1\n\n")
    comments = [(c.text, c.offset) for c in items if isinstance(c, Comment)]
    assert comments == [("OPENROUTER PROCESSING", 0), ("", 25), ("x", 27)]
    assert isinstance(items[-1], Message)


def test_event_keeps_raw_lines_offsets_and_endings() -> None:
    """A dispatched event carries every raw line with its offset and line ending."""
    (_, _, message) = decode(b"data: x\n\nevent: e\r\n:c\r\ndata:y\r\n\r\n")
    assert isinstance(message, Message)
    assert [
        Line(b"event: e", b"\r\n", 9),
        Line(b":c", b"\r\n", 19),
        Line(b"data:y", b"\r\n", 23),
        Line(b"", b"\r\n", 31),
    ] == list(message.lines)
    assert (message.index, message.offset, message.end) == (1, 9, 33)
    assert (message.endings, message.data_space) == (frozenset({b"\r\n"}), False)


def test_data_space_is_true_only_when_every_data_line_has_it() -> None:
    """``data_space`` tells ``data: x`` framing from ``data:x`` framing."""
    spaced, bare, mixed = decode(b"data: a\n\ndata:b\n\ndata: c\ndata:d\n\n")
    assert [m.data_space for m in (spaced, bare, mixed) if isinstance(m, Message)] == [
        True,
        False,
        False,
    ]


def test_arrival_time_of_the_completing_read_is_kept() -> None:
    """Each line and event carries the timestamp of the read that completed it."""
    decoder = Decoder()
    first = decoder.feed(b": ping\ndata: a", at=1.0)
    second = decoder.feed(b"\n\n", at=2.5)
    assert isinstance(first[0], Comment)
    assert isinstance(second[0], Message)
    assert (first[0].at, second[0].at, second[0].lines[1].at) == (1.0, 2.5, 2.5)


def test_held_back_cr_is_flushed_at_close() -> None:
    """A lone CR at the end of the stream still ends its line when the stream closes."""
    decoder = Decoder()
    assert decoder.feed(b"data:a\r\r") == []
    (message,) = decoder.close()
    assert isinstance(message, Message)
    assert ("a", frozenset({b"\r"})) == (message.data, message.endings)


def test_unfinished_last_event_is_reported_not_dispatched() -> None:
    """SSE-EOF: pending data is discarded as an Unterminated item, never a Message."""
    items = decode(b"data:a\n\ndata: b\ndata: c")
    tail = items[-1]
    assert isinstance(tail, Unterminated)
    assert (tail.data, tail.offset, [ln.ending for ln in tail.lines]) == ("b", 8, [b"\n", b""])


def test_pending_comment_alone_is_not_unterminated() -> None:
    """A stream ending after a complete comment line has nothing pending to discard."""
    items = decode(b"data:a\n\n: bye\n")
    assert not any(isinstance(item, Unterminated) for item in items)


def test_last_event_id_and_state_survive_between_feeds() -> None:
    """The last event ID lives on the decoder and survives dispatches (SSE-ID-PERSIST)."""
    decoder = Decoder()
    decoder.feed(b"id: 7\ndata: a\n\n")
    (message,) = decoder.feed(b"data: b\n\n")
    assert isinstance(message, Message)
    assert (message.id, decoder.last_event_id) == ("7", "7")


def test_id_in_a_block_cut_off_at_eof_never_takes_effect() -> None:
    """SSE-ID-DISPATCH: the last event ID changes at a blank line, even with no event."""
    decoder = Decoder()
    decoder.feed(b"id: 1\n\ndata: a\n\nid: 2\ndata: b")
    assert decoder.last_event_id == "1"
    decoder.close()
    assert decoder.last_event_id == "1"


def test_closed_decoder_refuses_more_bytes() -> None:
    """Feeding a closed decoder is a usage error, and closing twice returns nothing."""
    decoder = Decoder()
    decoder.close()
    assert decoder.close() == []
    with pytest.raises(ValueError, match="decoder is closed"):
        decoder.feed(b"data: x\n\n")


def test_line_field_helpers() -> None:
    """Line splits a field at the first colon and strips exactly one space."""
    line = Line(b"data:  a: b", b"\n", 0)
    assert (line.kind, line.name, line.value, line.space) == ("field", "data", " a: b", True)
    bare = Line(b"data", b"\n", 0)
    assert (bare.kind, bare.name, bare.value, bare.space) == ("field", "data", "", False)
    assert Line(b"", b"\n", 0).kind == "blank"
