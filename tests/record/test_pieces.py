"""Writes and where events end (``record/_pieces.py``): the offsets a replay tags its
bytes by, for every line end the event-stream format allows."""

from __future__ import annotations

import pytest

import mockhttp
from mockhttp._core._plan import Data
from mockhttp.record import Write
from mockhttp.record._pieces import body_of, data_steps, event_ends
from mockhttp.sse import Message, decode


def test_a_write_keeps_its_time_to_the_microsecond() -> None:
    assert Write(0.12345678, b"x").at == 0.123457
    assert Write(2, b"x").at == 2.0
    assert isinstance(Write(2, b"x").at, float)


@pytest.mark.parametrize(
    ("at", "data", "error"),
    [
        (-0.001, b"x", "write at=-0.001 must be a number of seconds >= 0"),
        (True, b"x", "write at=True must be a number"),
        (float("nan"), b"x", "write at=nan must be"),
        ("1", b"x", "write at='1' must be"),
        (0, "text", "write data='text' must be bytes"),
        (0, bytearray(b"x"), "must be bytes"),
    ],
)
def test_a_bad_write_is_a_config_error(at: object, data: object, error: str) -> None:
    with pytest.raises(mockhttp.ConfigError, match=error.replace("(", r"\(")):
        Write(at, data)  # type: ignore[arg-type]


def test_the_body_is_every_write_in_order() -> None:
    assert body_of([Write(0, b"da"), Write(0.1, b""), Write(0.2, b"ta")]) == b"data"
    assert body_of([]) == b""


@pytest.mark.parametrize(
    ("body", "ends"),
    [
        (b"data: a\n\ndata: b\n\n", [9, 18]),
        (b"data: a\r\n\r\ndata: b\r\n\r\n", [11, 22]),
        (b"data: a\r\rdata: b\r\r", [9, 18]),
        (b"data: a\r\n\ndata: b\r\r\n", [10, 20]),  # mixed: each line end as it comes
        (b": comment\n\ndata: a\n\n", [11, 20]),  # a comment block ends like an event
        (b"data: a\ndata: b\n\n", [17]),  # two lines, one event
        (b"data: a\n\n\n\ndata: b\n\n", [9, 20]),  # extra blank lines end nothing
        (b"\n\ndata: a\n\n", [11]),  # leading blank lines too
        (b"data: a\n\ndata: cut", [9]),  # an unfinished last event has no end
        (b"data: a\n", []),
        (b"", []),
    ],
)
def test_event_ends_are_just_after_each_blank_line_that_closes_a_block(
    body: bytes, ends: list[int]
) -> None:
    assert event_ends(body) == ends


def test_event_ends_agree_with_the_decoder_on_how_many_events_there_are() -> None:
    body = b"data: a\r\n\r\n: c\n\nevent: x\rdata: b\r\rdata: c\n\ndata: tail"
    messages = [i for i in decode(body) if isinstance(i, Message)]
    ends = event_ends(body)
    assert [m.data for m in messages] == ["a", "b", "c"]
    assert len(ends) == 4  # the comment block ends too; the tail does not
    assert body[ends[-1] :] == b"data: tail"


def test_a_crlf_split_across_writes_is_one_line_end() -> None:
    """Ends are found on the joined body: a CR ending one write and the LF starting the
    next are one line end, not a line end and a blank line (which would end at 9)."""
    writes = (Write(0, b"data: a\r"), Write(0.1, b"\n\r"), Write(0.2, b"\ndata: b\r\n\r\n"))
    assert event_ends(body_of(writes)) == [11, 22]
    assert list(data_steps(writes, stream=True)) == [
        (0.0, Data(b"data: a\r", 0)),
        (0.1, Data(b"\n\r", 0)),
        (0.2, Data(b"\n", 0)),
        (0.2, Data(b"data: b\r\n\r\n", 1)),
    ]


def test_a_plain_body_goes_as_whole_writes_without_event_indexes() -> None:
    writes = (Write(0, b"{\n\n"), Write(0.5, b"}"))
    assert list(data_steps(writes, stream=False)) == [(0.0, Data(b"{\n\n")), (0.5, Data(b"}"))]


def test_an_event_stream_is_split_where_events_end_each_piece_tagged() -> None:
    writes = (
        Write(0.0, b"data: a\n\ndata: "),  # one event and the start of the next
        Write(0.1, b"b\n"),
        Write(0.2, b"\ndata: c\n\ndata: d\n\n"),  # the end of one and two more
    )
    assert list(data_steps(writes, stream=True)) == [
        (0.0, Data(b"data: a\n\n", 0)),
        (0.0, Data(b"data: ", 1)),
        (0.1, Data(b"b\n", 1)),
        (0.2, Data(b"\n", 1)),
        (0.2, Data(b"data: c\n\n", 2)),
        (0.2, Data(b"data: d\n\n", 3)),
    ]


def test_an_unfinished_last_event_keeps_the_next_index() -> None:
    writes = (Write(0, b"data: a\n\n"), Write(0.1, b"data: cu"), Write(0.2, b"t"))
    assert [d.event for _, d in data_steps(writes, stream=True)] == [0, 1, 1]


def test_the_pieces_of_a_stream_add_up_to_the_body() -> None:
    writes = tuple(Write(i / 10, bytes([c])) for i, c in enumerate(b"data: a\r\n\r\n: x\n\n"))
    steps = list(data_steps(writes, stream=True))
    assert b"".join(d.data for _, d in steps) == body_of(writes)
    assert [d.event for _, d in steps] == [0] * 11 + [1] * 5
    assert [at for at, _ in steps] == [w.at for w in writes]
