"""Pushed streams (``mockhttp.pushed()``): events sent by the test, on the wire."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import httpx
import pytest

import mockhttp
from mockhttp import ConfigError, Event, VerificationError, fault
from tests.helpers.pushed import open_events, read_to_last_chunk

HEAD = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
    b"transfer-encoding: chunked\r\n\r\n"
)
EVENTS = mockhttp.get("/events")


def read_exactly(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        piece = sock.recv(n - len(data))
        if not piece:
            break
        data += piece
    return data


def read_to_eof(sock: socket.socket) -> bytes:
    data = b""
    while piece := sock.recv(65536):
        data += piece
    return data


@pytest.fixture
def sock_and_active(server: mockhttp.Server) -> Iterator[tuple[socket.socket, mockhttp.ActiveMock]]:
    active = server.mock(EVENTS.reply(mockhttp.pushed()))
    with open_events(server) as sock:
        yield sock, active


def test_pushed_events_leave_as_pushed_and_close_ends_cleanly(
    sock_and_active: tuple[socket.socket, mockhttp.ActiveMock],
) -> None:
    """The head goes out on connecting; each push is one chunk; close is the last chunk,
    and the call completes (the connection stays open for its next request)."""
    sock, active = sock_and_active
    stream = active.wait_connected()
    assert read_exactly(sock, len(HEAD)) == HEAD
    assert active.push(Event(data="a")) == 1
    assert read_exactly(sock, 14) == b"9\r\ndata: a\n\n\r\n"
    active.push(Event(data={"b": 1}, id="7", event="delta"))
    expected = b'22\r\nevent: delta\nid: 7\ndata: {"b":1}\n\n\r\n'
    assert read_exactly(sock, len(expected)) == expected
    assert active.close() == 1
    assert read_exactly(sock, 5) == b"0\r\n\r\n"
    assert stream.call.wait() == "complete"
    assert not stream.open
    assert [m.data for m in stream.delivered] == ["a", '{"b":1}']
    assert [e.data for e in stream.pushed] == ["a", {"b": 1}]
    assert (stream.call.events, stream.call.status) == (2, 200)
    assert active.close() == 0  # nothing open any more


def test_httpx_reads_pushed_events_until_close(server: mockhttp.Server) -> None:
    """A streaming httpx client reads each event as it is pushed; close ends iteration."""
    active = server.mock(EVENTS.reply(mockhttp.pushed(retry=250)))
    got: list[bytes] = []

    def read() -> None:
        with httpx.stream("GET", server.url_for("/events"), timeout=5) as response:
            got.extend(response.iter_raw())

    reader = threading.Thread(target=read)
    reader.start()
    stream = active.wait_connected()
    active.push(Event(data="one"))
    active.push(Event(data="two"), Event(comment="ping"))
    active.close()
    reader.join(5)
    assert b"".join(got) == b"retry: 250\n\ndata: one\n\ndata: two\n\n: ping\n\n"
    assert stream.call.outcome == "complete"


def test_events_pushed_before_anyone_connects_are_queued(server: mockhttp.Server) -> None:
    """No open stream: the events wait for the next stream, which is sent them first."""
    active = server.mock(EVENTS.reply(mockhttp.pushed()))
    assert active.push(Event(data="early")) == 0
    with open_events(server) as sock:
        active.wait_connected()
        active.push(Event(data="late"))
        active.close()
        body = read_to_last_chunk(sock)
    assert body == HEAD + b"d\r\ndata: early\n\n\r\nc\r\ndata: late\n\n\r\n0\r\n\r\n"


def test_push_to_every_stream_or_to_one(server: mockhttp.Server) -> None:
    """``active.push`` reaches every open stream; ``stream.push`` only its own."""
    active = server.mock(EVENTS.reply(mockhttp.pushed()))
    with open_events(server) as first, open_events(server) as second:
        one = active.wait_connected(1)
        two = active.wait_connected(2)
        assert active.push(Event(data="all")) == 2
        two.push(Event(data="you"))
        one.close()
        assert active.close() == 1
        assert read_to_last_chunk(first) == HEAD + b"b\r\ndata: all\n\n\r\n0\r\n\r\n"
        assert read_to_last_chunk(second) == (
            HEAD + b"b\r\ndata: all\n\n\r\nb\r\ndata: you\n\n\r\n0\r\n\r\n"
        )
    assert [s.number for s in active.streams] == [1, 2]
    with pytest.raises(ConfigError, match="stream 2 has ended"):
        two.push(Event(data="late"))


def test_a_fault_cuts_after_k_pushed_events(server: mockhttp.Server) -> None:
    """Faults count pushed events: close_after_events(2) delivers two, and the cut takes
    the third's place when it is pushed; the stream is then over, and later pushes no
    longer reach it."""
    active = server.mock(EVENTS.reply(mockhttp.pushed()).pipe(fault.close_after_events(2)))
    with open_events(server) as sock:
        stream = active.wait_connected()
        active.push(Event(data="1"), Event(data="2"))
        expected = HEAD + b"9\r\ndata: 1\n\n\r\n9\r\ndata: 2\n\n\r\n"
        assert read_exactly(sock, len(expected)) == expected
        assert stream.open  # two whole events: the cut waits for the next one
        active.push(Event(data="3"))
        body = expected + read_to_eof(sock)
    assert body == HEAD + b"9\r\ndata: 1\n\n\r\n9\r\ndata: 2\n\n\r\n"
    assert stream.call.wait() == "closed"
    assert not active.streams[0].open
    assert active.push(Event(data="4")) == 0  # queued for the next stream


def test_a_resumable_stream_resends_what_the_client_missed(server: mockhttp.Server) -> None:
    """Pushed events are numbered; the reconnect with Last-Event-ID: 2 is sent 3 (pushed
    while it was away) and then the new ones, numbered on."""
    cut = fault.first(1, fault.close_after_events(2))
    reply = mockhttp.pushed(resumable=True, retry=10)
    active = server.mock(EVENTS.reply(reply).pipe(cut))
    with open_events(server) as sock:
        first = active.wait_connected()
        active.push(*(Event(data=f"t{i}") for i in (1, 2, 3)))
        assert read_to_eof(sock).endswith(b"id: 2\ndata: t2\n\n\r\n")
    assert first.call.wait() == "closed"
    with open_events(server, b"Last-Event-ID: 2\r\n") as sock:
        second = active.wait_connected(2)
        active.push(Event(data="t4"))
        active.close()
        body = read_to_last_chunk(sock)
    assert body == HEAD + (
        b"b\r\nretry: 10\n\n\r\n10\r\nid: 3\ndata: t3\n\n\r\n10\r\nid: 4\ndata: t4\n\n\r\n0\r\n\r\n"
    )
    assert first.call.event_ids == ["1", "2"]
    assert (second.call.last_event_id, second.call.event_ids) == ("2", ["3", "4"])
    assert second.call.after_cut is not None
    assert second.call.after_cut >= 0
    active.assert_resumed(retry=0)  # the right id, each pushed event once


def test_assert_resumed_names_what_a_pushed_stream_missed(server: mockhttp.Server) -> None:
    """A reconnect without Last-Event-ID on a resumable pushed stream: event 1 twice."""
    cut = fault.first(1, fault.close_after_events(1))
    active = server.mock(EVENTS.reply(mockhttp.pushed(resumable=True)).pipe(cut))
    with open_events(server) as sock:
        active.wait_connected()
        active.push(Event(data="a"), Event(data="b"))  # "b" takes the cut's place
        read_to_eof(sock)
    active.streams[0].call.wait()
    with open_events(server) as sock:
        active.wait_connected(2)
        active.push(Event(data="c"))
        active.close()
        read_to_last_chunk(sock)
    active.streams[1].call.wait()
    with pytest.raises(
        VerificationError, match="call 2 came with Last-Event-ID None, expected '1'"
    ):
        active.assert_resumed(retry=0)


def test_server_close_ends_open_streams(server: mockhttp.Server) -> None:
    active = server.mock(EVENTS.reply(mockhttp.pushed()))
    with open_events(server):
        stream = active.wait_connected()
        server.close()
        assert stream.call.wait() == "server closed"
    assert not stream.open


def test_wait_connected_says_how_many_opened(server: mockhttp.Server) -> None:
    active = server.mock(EVENTS.reply(mockhttp.pushed()))
    with pytest.raises(VerificationError, match=r"open stream 1 within 0.05 s; 0 stream\(s\)"):
        active.wait_connected(timeout=0.05)
    with pytest.raises(ConfigError, match="n=0 must be a positive int"):
        active.wait_connected(0)


def test_misuse_is_refused_with_the_reason(server: mockhttp.Server) -> None:
    plain = server.mock(mockhttp.get("/plain").reply(mockhttp.ok()))
    with pytest.raises(ConfigError, match=r"push\(\): mock GET /plain does not reply with"):
        plain.push(Event(data="x"))
    active = server.mock(EVENTS.reply(mockhttp.pushed()))
    with pytest.raises(ConfigError, match=r"events\[0\]='x' must be an Event"):
        active.push("x")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="retry=-1 must be a non-negative int"):
        mockhttp.pushed(retry=-1)
    with pytest.raises(ConfigError, match="has a body or events of its own"):
        mockhttp.pushed(mockhttp.ok().body("x"))


@pytest.mark.asyncio
async def test_wait_connected_async_lets_the_client_run(server: mockhttp.Server) -> None:
    """An async client on the test's loop connects while the test awaits its stream."""
    import asyncio

    active = server.mock(EVENTS.reply(mockhttp.pushed()))
    async with httpx.AsyncClient() as client:

        async def read() -> bytes:
            async with client.stream("GET", server.url_for("/events")) as response:
                return b"".join([c async for c in response.aiter_raw()])

        task = asyncio.ensure_future(read())
        stream = await active.wait_connected_async()
        stream.push(Event(data="x"))
        stream.close()
        assert await asyncio.wait_for(task, 5) == b"data: x\n\n"


def test_clear_journal_forgets_streams_queue_and_log(server: mockhttp.Server) -> None:
    """A module server's next test starts afresh: no stream, nothing queued, ids from 1."""
    active = server.mock(EVENTS.reply(mockhttp.pushed(resumable=True)))
    with open_events(server) as sock:
        old = active.wait_connected()
        active.push(Event(data="a"))
        server.clear_journal()
        assert read_to_last_chunk(sock).endswith(b"f\r\nid: 1\ndata: a\n\n\r\n0\r\n\r\n")
    assert old.call.wait() == "complete"
    assert active.streams == []
    active.push(Event(data="b"))  # queued, and numbered from 1 again
    with open_events(server) as sock:
        active.wait_connected()
        active.close()
        assert read_to_last_chunk(sock).endswith(b"f\r\nid: 1\ndata: b\n\n\r\n0\r\n\r\n")
