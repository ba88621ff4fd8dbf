"""The connection protocol fed bytes on a transport that records what it is asked to do.

No socket: a real server (not started) answers through a ``Connection`` whose transport
keeps every write, close and pause, so the bytes and the order are read exactly.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import mockhttp
from mockhttp._server._connection import MAX_HEAD, MAX_QUEUED, Connection


class Recorder(asyncio.Transport):
    """A transport that records writes, closes and read pauses; it never pushes back."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False
        self.pauses = 0
        self.resumes = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        assert not self.closed, "a write after the close"
        self.writes.append(bytes(data))

    @property
    def sent(self) -> bytes:
        return b"".join(self.writes)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def get_write_buffer_size(self) -> int:
        return 0

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        self.pauses += 1

    def resume_reading(self) -> None:
        self.resumes += 1


def server() -> mockhttp.Server:
    s = mockhttp.Server()
    s.mock(mockhttp.get("/a").reply(mockhttp.ok().body("A")))
    s.mock(mockhttp.get("/b").reply(mockhttp.ok().body("BB")))
    return s


def fed(
    chunks: list[bytes], srv: mockhttp.Server | None = None, settle: int = 3
) -> tuple[mockhttp.Server, Connection, Recorder]:
    """Feed ``chunks`` to a new connection on a running loop; let ``settle`` turns pass."""
    srv = server() if srv is None else srv
    transport = Recorder()

    async def run() -> Connection:
        conn = Connection(srv)
        conn.connection_made(transport)
        for chunk in chunks:
            conn.data_received(chunk)
        for _ in range(settle):
            await asyncio.sleep(0)
        return conn

    return srv, asyncio.run(run()), transport


def heads(sent: bytes) -> list[bytes]:
    """The status lines in ``sent`` (bodies here never hold one)."""
    return re.findall(rb"HTTP/1\.1 \d{3} [^\r]*", sent)


def test_one_request_gets_its_reply_in_one_write_and_the_connection_stays_open() -> None:
    srv, _, transport = fed([b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n"])
    assert transport.writes == [b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nA"]
    assert not transport.closed  # keep-alive
    (call,) = srv.journal
    assert (call.status, call.outcome, call.wire_bytes) == (200, "complete", len(transport.sent))


def test_pipelined_requests_are_answered_in_order() -> None:
    srv, _, transport = fed(
        [b"GET /b HTTP/1.1\r\n\r\nGET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\n\r\n"]
    )
    bodies = [w.rsplit(b"\r\n\r\n", 1)[1] for w in transport.writes]
    assert bodies == [b"BB", b"A", b"BB"]
    assert [c.request.path for c in srv.journal] == ["/b", "/a", "/b"]


def test_a_request_split_across_reads_is_answered_once_whole() -> None:
    _, _, transport = fed([b"GET /a HT", b"TP/1.1\r\nHo", b"st: x\r\n", b"\r\n"])
    assert heads(transport.sent) == [b"HTTP/1.1 200 OK"]


def test_connection_close_and_http10_close_after_the_reply() -> None:
    _, _, closing = fed([b"GET /a HTTP/1.1\r\nConnection: close\r\n\r\n"])
    assert heads(closing.sent) == [b"HTTP/1.1 200 OK"]
    assert closing.closed
    _, _, old = fed([b"GET /a HTTP/1.0\r\n\r\n"])
    assert old.sent == b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\nconnection: close\r\n\r\nA"
    assert old.closed


def test_a_bad_request_gets_a_400_and_the_connection_closes() -> None:
    srv, _, transport = fed([b"GET /a HTTP/1.1\r\nBad Header\r\n\r\n"])
    assert transport.sent.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert b"malformed request" in transport.sent
    assert transport.closed
    assert list(srv.journal) == []  # nothing reached the mocks


def test_the_replies_before_a_bad_request_still_go_out_first() -> None:
    _, _, transport = fed([b"GET /a HTTP/1.1\r\n\r\nGARBAGE\r\n\r\n"])
    assert heads(transport.sent) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 400 Bad Request"]
    assert transport.closed


def test_a_head_over_the_limit_gets_a_431() -> None:
    big = b"X-Big: " + b"a" * MAX_HEAD + b"\r\n"
    _, _, transport = fed([b"GET /a HTTP/1.1\r\n" + big + b"\r\n"])
    assert transport.sent.startswith(b"HTTP/1.1 431 ")
    assert transport.closed


def test_a_body_promised_over_the_limit_gets_a_413_before_it_is_sent() -> None:
    _, _, transport = fed([b"POST /a HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n"])
    assert transport.sent.startswith(b"HTTP/1.1 413 ")
    assert transport.closed


def test_a_client_pipelining_past_the_queue_is_paused_then_resumed() -> None:
    srv = mockhttp.Server()
    srv.mock(mockhttp.get("/slow").reply(mockhttp.ok().body("s").delay(0.05)))
    many = b"GET /slow HTTP/1.1\r\n\r\n" * (MAX_QUEUED + 5)
    transport = Recorder()

    async def run() -> int:
        conn = Connection(srv)
        conn.connection_made(transport)
        conn.data_received(many)
        queued = len(conn.queue)
        assert transport.pauses == 1  # the queue is full: reading stops
        deadline = asyncio.get_running_loop().time() + 10
        while len(heads(transport.sent)) < MAX_QUEUED + 5 and (
            asyncio.get_running_loop().time() < deadline
        ):
            await asyncio.sleep(0.01)
        return queued

    queued = asyncio.run(run())
    assert queued >= MAX_QUEUED - 1
    assert transport.resumes >= 1
    assert len(heads(transport.sent)) == MAX_QUEUED + 5


def test_an_unmatched_request_gets_the_report() -> None:
    srv, _, transport = fed([b"GET /nothing HTTP/1.1\r\n\r\n"])
    assert transport.sent.startswith(b"HTTP/1.1 404 Not Found\r\n")
    assert b"no mock matched GET /nothing" in transport.sent
    assert srv.unmatched[0].explanation is not None
    assert not transport.closed


def test_100_continue_goes_out_when_the_request_is_next_in_line() -> None:
    head = b"POST /p HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
    srv = server()
    srv.mock(mockhttp.post("/p").reply(mockhttp.ok().body("P")))
    _, _, alone = fed([head], srv)
    assert alone.writes == [b"HTTP/1.1 100 Continue\r\n\r\n"]
    _, _, came = fed([head + b"hi"], srv)  # the body came with the head: no wait
    assert heads(came.sent) == [b"HTTP/1.1 100 Continue", b"HTTP/1.1 200 OK"]


def test_100_continue_behind_a_running_reply_waits_for_it() -> None:
    srv = server()
    srv.mock(mockhttp.get("/slow").reply(mockhttp.ok().body("s").delay(0.05)))
    srv.mock(mockhttp.post("/p").reply(mockhttp.ok().body("P")))
    transport = Recorder()

    async def run() -> None:
        conn = Connection(srv)
        conn.connection_made(transport)
        conn.data_received(b"GET /slow HTTP/1.1\r\n\r\n")
        conn.data_received(b"POST /p HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
        assert b"100 Continue" not in transport.sent  # the slow reply runs
        deadline = asyncio.get_running_loop().time() + 10
        while b"100 Continue" not in transport.sent:
            assert asyncio.get_running_loop().time() < deadline
            await asyncio.sleep(0.01)
        conn.data_received(b"hi")
        await asyncio.sleep(0)

    asyncio.run(run())
    assert heads(transport.sent) == [
        b"HTTP/1.1 200 OK",
        b"HTTP/1.1 100 Continue",
        b"HTTP/1.1 200 OK",
    ]


def test_an_upgrade_request_answered_as_http11_lets_the_next_request_through() -> None:
    upgrade = b"GET /a HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
    srv, conn, transport = fed([upgrade + b"GET /b HTTP/1.1\r\n\r\n"])
    assert heads(transport.sent) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 200 OK"]
    assert [c.request.path for c in srv.journal] == ["/a", "/b"]
    assert transport.pauses == 1  # held while its plan was chosen
    assert transport.resumes >= 1
    assert conn.h1.trailing is None


def test_a_kept_answer_on_a_paused_connection_waits_for_the_client_to_read() -> None:
    srv = server()
    get = b"GET /a HTTP/1.1\r\n\r\n"
    transport = Recorder()

    async def run() -> None:
        conn = Connection(srv)
        conn.connection_made(transport)
        conn.data_received(get)
        conn.data_received(get)  # the second time: the lane keeps the answer
        assert srv._lane is not None
        assert len(srv._lane) == 1
        conn.pause_writing()
        conn.data_received(get)  # a kept answer, journaled, its bytes held
        assert len(transport.writes) == 2
        assert conn.runner is not None
        conn.resume_writing()
        for _ in range(3):
            await asyncio.sleep(0)
        assert conn.runner is None

    asyncio.run(run())
    assert len(heads(transport.sent)) == 3
    assert [c.status for c in srv.journal] == [200, 200, 200]


def test_a_late_head_gets_408_and_an_idle_connection_just_closes() -> None:
    srv = server()
    transport = Recorder()
    idle = Recorder()

    async def run() -> None:
        conn = Connection(srv)
        conn.connection_made(transport)
        conn.data_received(b"GET /a HTTP/1.1\r\nHo")
        assert conn.waiting() == srv.header_timeout
        conn.timed_out()
        await asyncio.sleep(0)
        other = Connection(srv)
        other.connection_made(idle)
        assert other.waiting() == srv.idle_timeout
        other.timed_out()

    asyncio.run(run())
    assert transport.sent.startswith(b"HTTP/1.1 408 ")
    assert b"the request head did not arrive in time" in transport.sent
    assert transport.closed
    assert idle.closed
    assert idle.sent == b""
