"""Framing (``_core/_wire.py``): a body plan in, a wire plan out, compared byte for byte."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Any

import pytest

from mockhttp import fault
from mockhttp._core._plan import Data, End, EndHow, FaultContext, Head, Pause, Raw, Step
from mockhttp._core._wire import frame, head_bytes

EVENT = b"data: hi\n\n"  # 10 bytes: chunk size "a"
LONG = b"x" * 300  # chunk size "12c"


def _framed(steps: Iterable[Step], **options: Any) -> list[Step]:
    return list(frame(steps, **options))


def _wire(steps: list[Step]) -> bytes:
    return b"".join(s.data for s in steps if isinstance(s, Raw))


def _head(status: int = 200, length: int | None = None, *headers: tuple[str, str]) -> Head:
    return Head(status, "OK", headers, length)


# -- Content-Length ------------------------------------------------------------------------


def test_a_known_length_is_announced_and_the_body_goes_out_as_it_is() -> None:
    steps: list[Step] = [
        _head(200, 5, ("Content-Type", "text/plain")),
        Data(b"hel"),
        Data(b"lo"),
        End(),
    ]
    assert _framed(steps) == [
        Raw(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\ncontent-length: 5\r\n\r\n"),
        Raw(b"hel", body=3),
        Raw(b"lo", body=2),
        End("complete"),
    ]


def test_a_content_length_the_reply_gives_is_not_written_twice() -> None:
    steps: list[Step] = [_head(200, 2, ("Content-Length", "2")), Data(b"ok"), End()]
    assert _wire(_framed(steps)) == b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def test_a_length_that_the_body_does_not_fill_is_sent_as_announced() -> None:
    """Framing does not check the body against the length: a fault may lie on purpose."""
    steps: list[Step] = [_head(200, 10), Data(b"abc"), End()]
    assert _wire(_framed(steps)) == b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc"


# -- chunked -------------------------------------------------------------------------------


def test_an_unknown_length_is_chunked_one_chunk_per_data_then_the_last_chunk() -> None:
    steps: list[Step] = [_head(), Data(EVENT, 0), Pause(0.25), Data(LONG, 1), End()]
    assert _framed(steps) == [
        Raw(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"),
        Raw(b"a\r\n" + EVENT + b"\r\n", body=10, event=0),
        Pause(0.25),
        Raw(b"12c\r\n" + LONG + b"\r\n", body=300, event=1),
        Raw(b"0\r\n\r\n"),
        End("complete"),
    ]


def test_empty_data_makes_no_chunk_so_it_cannot_end_the_body() -> None:
    """A zero-size chunk is the last chunk: an empty ``Data`` must not write one."""
    steps: list[Step] = [_head(), Data(b""), Data(b"x"), Data(b"", 3), End()]
    assert _wire(_framed(steps)).split(b"\r\n\r\n", 1)[1] == b"1\r\nx\r\n0\r\n\r\n"


@pytest.mark.parametrize("how", ["close", "reset", "stall"])
def test_a_body_that_does_not_complete_has_no_last_chunk(how: EndHow) -> None:
    steps = _framed([_head(), Data(b"x"), End(how)])
    assert steps[-2:] == [Raw(b"1\r\nx\r\n", body=1), End(how)]


def test_a_transfer_encoding_the_reply_gives_is_not_written_twice() -> None:
    steps: list[Step] = [_head(200, None, ("Transfer-Encoding", "chunked")), Data(b"x"), End()]
    assert _wire(_framed(steps)) == (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n"
    )


def test_steps_after_the_end_are_not_framed() -> None:
    steps = _framed([_head(200, 1), Data(b"a"), End(), Data(b"after")])
    assert steps[-1] == End("complete")
    assert b"after" not in _wire(steps)


def test_pauses_before_the_head_pass_through() -> None:
    steps = _framed([Pause(1.5), _head(200, 0), End()])
    assert steps[0] == Pause(1.5)
    assert isinstance(steps[1], Raw)
    assert steps[1].data.startswith(b"HTTP/1.1 200 OK\r\n")


# -- HTTP/1.0 and connection: close --------------------------------------------------------


def test_http10_gets_a_close_delimited_body_without_chunks() -> None:
    steps: list[Step] = [_head(), Data(EVENT, 0), Data(b"more"), End()]
    assert _framed(steps, http10=True, keep_alive=False) == [
        Raw(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n"),
        Raw(EVENT, body=10, event=0),
        Raw(b"more", body=4),
        End("complete"),
    ]


def test_http10_with_a_known_length_keeps_content_length() -> None:
    steps: list[Step] = [_head(200, 4), Data(b"four"), End()]
    wire = _wire(_framed(steps, http10=True, keep_alive=False))
    assert wire == b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\nconnection: close\r\n\r\nfour"


def test_keep_alive_off_adds_connection_close_unless_the_reply_has_one() -> None:
    assert head_bytes(_head(200, 0), chunked=False, keep_alive=False, no_body=False) == (
        b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    )
    given = _head(200, 0, ("Connection", "keep-alive"))
    assert head_bytes(given, chunked=False, keep_alive=False, no_body=False) == (
        b"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\ncontent-length: 0\r\n\r\n"
    )


# -- no body: HEAD, 1xx, 204, 304 ---------------------------------------------------------


def _endless_body() -> Iterator[Step]:
    yield _head()
    for i in itertools.count():
        yield Pause(1.0)
        yield Data(b"tick\n\n", i)


def test_a_head_request_gets_the_head_and_the_body_plan_is_not_run() -> None:
    """The body is endless: framing must stop at the head, or this never returns."""
    steps = _framed(_endless_body(), head_only=True)
    assert steps == [Raw(b"HTTP/1.1 200 OK\r\n\r\n"), End("complete")]


def test_a_head_request_keeps_the_length_the_get_would_announce() -> None:
    steps = _framed([_head(200, 5), Data(b"hello"), End()], head_only=True)
    assert steps == [Raw(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n"), End("complete")]


@pytest.mark.parametrize(
    ("status", "length", "head"),
    [
        (204, 5, b"HTTP/1.1 204 OK\r\n\r\n"),  # no Content-Length on a 204 (RFC 9110 §8.6)
        (204, None, b"HTTP/1.1 204 OK\r\n\r\n"),
        (304, 5, b"HTTP/1.1 304 OK\r\ncontent-length: 5\r\n\r\n"),  # the resource's length
        (304, None, b"HTTP/1.1 304 OK\r\n\r\n"),
        (103, None, b"HTTP/1.1 103 OK\r\n\r\n"),
    ],
)
def test_bodiless_statuses_send_the_head_only(status: int, length: int | None, head: bytes) -> None:
    steps = _framed([_head(status, length), Data(b"hello"), End()])
    assert steps == [Raw(head), End("complete")]


def test_header_values_go_out_as_latin1() -> None:
    head = Head(200, "Très bien", (("X-Name", "café"),), 0)
    assert head_bytes(head, chunked=False, keep_alive=True, no_body=False) == (
        b"HTTP/1.1 200 Tr\xe8s bien\r\nX-Name: caf\xe9\r\ncontent-length: 0\r\n\r\n"
    )


# -- a fault cutting the framed body -------------------------------------------------------


def _cut(f: fault.Fault, steps: list[Step]) -> list[Step]:
    return list(f.wire(frame(steps), FaultContext()))


def test_limit_data_cuts_inside_a_chunk_after_its_size_line() -> None:
    """The size line promises 10 bytes and 4 follow: the client sees a cut chunk."""
    steps = _cut(fault.limit_data(4), [_head(), Data(EVENT, 0), Data(LONG, 1), End()])
    assert steps[1:] == [Raw(b"a\r\ndata", body=4, event=0), End("close")]


def test_limit_data_at_a_chunk_boundary_starts_no_chunk() -> None:
    steps = _cut(fault.limit_data(10), [_head(), Data(EVENT, 0), Data(LONG, 1), End()])
    assert steps[1:] == [Raw(b"a\r\n" + EVENT + b"\r\n", body=10, event=0), End("close")]


def test_reset_after_bytes_counted_on_the_wire_includes_the_head() -> None:
    head = b"HTTP/1.1 200 OK\r\ncontent-length: 300\r\n\r\n"
    f = fault.reset_after_bytes(len(head) + 7, count="wire")
    steps = _cut(f, [_head(200, 300), Data(LONG), End()])
    assert steps == [Raw(head), Raw(b"x" * 7, body=7), End("reset")]


def test_a_cut_beyond_the_body_leaves_the_last_chunk_in_place() -> None:
    steps = _cut(fault.limit_data(1000), [_head(), Data(EVENT, 0), End()])
    assert _wire(steps).endswith(b"a\r\n" + EVENT + b"\r\n0\r\n\r\n")
    assert steps[-1] == End("complete")
