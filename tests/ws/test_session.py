"""A WebSocket session (ws/_session.py) on a real socket pair, its bytes read exactly.

The session is handed one end of ``socket.socketpair()`` as the server hands it the
upgraded transport; the test is the client on the other end, framing with wsproto's
client side (masked frames, as RFC 6455 asks of clients) and reading the mock's frames
byte for byte.  Every wait is for bytes or for the end of the connection, with a wide
timeout; no sleeps."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from wsproto.connection import Connection, ConnectionType
from wsproto.events import (
    BytesMessage,
    CloseConnection,
    Event,
    Message,
    Ping,
    Pong,
    TextMessage,
)

from mockhttp import match
from mockhttp._core._errors import RefusedRequest
from mockhttp._core._request import Request
from mockhttp.ws import _session
from mockhttp.ws._faults import Cut, Drop, IgnorePings, Raw, frame
from mockhttp.ws._script import Close, Echo, Expect, Pause, Send, Step
from mockhttp.ws._session import Answer, Session

WAIT = 10.0  # seconds: the longest any read waits (a loaded machine)
REQUEST = Request("GET", "/ws")


class Client:
    """The test's end of the pair: raw bytes in and out, and wsproto's client framing."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.ws = Connection(ConnectionType.CLIENT)
        self.loop = asyncio.get_running_loop()

    async def write(self, data: bytes) -> None:
        await self.loop.sock_sendall(self.sock, data)

    async def send(self, event: Event) -> None:
        await self.write(self.ws.send(event))

    async def read(self, count: int) -> bytes:
        """Exactly ``count`` bytes (fewer only at the end of the connection)."""
        got = b""
        while len(got) < count:
            more = await asyncio.wait_for(self.loop.sock_recv(self.sock, count - len(got)), WAIT)
            if not more:
                break
            got += more
        return got

    async def rest(self) -> bytes:
        """Everything until the mock closes the TCP connection."""
        got = b""
        while more := await asyncio.wait_for(self.loop.sock_recv(self.sock, 65536), WAIT):
            got += more
        return got

    async def event(self) -> Event:
        """The next event from the mock's frames."""
        while True:
            for event in self.ws.events():
                return event
            data = await asyncio.wait_for(self.loop.sock_recv(self.sock, 65536), WAIT)
            self.ws.receive_data(data or None)
            if not data:
                for event in self.ws.events():
                    return event
                raise EOFError("the mock closed the connection")

    async def message(self) -> str | bytes:
        parts: list[Any] = []
        while True:
            event = await self.event()
            assert isinstance(event, Message), event
            parts.append(event.data)
            if event.message_finished:
                return "".join(parts) if isinstance(event, TextMessage) else b"".join(parts)


def run(
    script: list[Step],
    talk: Callable[[Client, Session], Awaitable[None]],
    **options: Any,
) -> Session:
    """Start a session on one end of a socket pair, talk to it from the other, return it
    once its connection is over."""

    async def main() -> Session:
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        ended = asyncio.Event()
        loop = asyncio.get_running_loop()
        session = Session(script, REQUEST, on_end=lambda _s: ended.set(), **options)
        transport, _ = await loop.connect_accepted_socket(lambda: session, theirs)
        try:
            await talk(Client(ours), session)
            await asyncio.wait_for(ended.wait(), WAIT)
        finally:
            transport.close()
            ours.close()
        return session

    return asyncio.run(main())


def text_frame(data: str) -> bytes:
    """A server's text frame (unmasked), as it goes on the wire."""
    return frame(0x1, data.encode())


def close_frame(code: int, reason: str = "") -> bytes:
    return frame(0x8, code.to_bytes(2, "big") + reason.encode())


def journal(session: Session) -> list[tuple[str, str, Any, int | None]]:
    return [(f.direction, f.kind, f.data, f.code) for f in session.frames]


# -- sending, in order, byte for byte --------------------------------------------------------


def test_sends_go_out_as_unmasked_frames_in_order() -> None:
    async def talk(client: Client, session: Session) -> None:
        assert await client.read(7) == text_frame("hello")
        assert await client.read(5) == frame(0x2, b"\x00\x01\x02")
        assert await client.read(len(close_frame(1000, "ok"))) == close_frame(1000, "ok")
        await client.send(CloseConnection(1000))

    session = run([Send("hello"), Send(b"\x00\x01\x02"), Close(1000, "ok")], talk)
    assert session.sent == ["hello", b"\x00\x01\x02"]
    assert session.close_code == 1000
    assert journal(session)[-2:] == [("sent", "close", "ok", 1000), ("received", "close", "", 1000)]


def test_a_fragmented_send_is_that_many_frames_with_fin_on_the_last() -> None:
    async def talk(client: Client, session: Session) -> None:
        wire = await client.read(3 * 2 + 6)
        assert wire == (
            frame(0x1, b"ab", fin=False) + frame(0x0, b"cd", fin=False) + frame(0x0, b"ef")
        )
        await client.send(CloseConnection(1000))

    session = run([Send("abcdef", fragments=3)], talk)
    assert session.sent == ["abcdef"]  # one journal entry for the message


def test_a_json_send_is_compact_text() -> None:
    async def talk(client: Client, session: Session) -> None:
        assert await client.message() == '{"a":[1,2]}'
        await client.send(CloseConnection(1000))

    run([Send({"a": [1, 2]})], talk)


def test_a_pause_and_a_send_after_wait_their_time() -> None:
    loop_times: list[float] = []

    async def talk(client: Client, session: Session) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        await client.message()
        loop_times.append(loop.time() - start)
        await client.message()
        loop_times.append(loop.time() - start)
        await client.send(CloseConnection(1000))

    run([Pause(0.1), Send("one"), Send("two", after=0.1)], talk)
    assert loop_times[0] >= 0.1 - 0.01
    assert loop_times[1] >= 0.2 - 0.02  # no upper bound: a loaded machine is slow


def test_a_trickled_send_writes_its_bytes_in_pieces_that_make_the_frame() -> None:
    async def talk(client: Client, session: Session) -> None:
        whole = text_frame("x" * 64)
        assert await client.read(len(whole)) == whole
        await client.send(CloseConnection(1000))

    session = run([Send("x" * 64, trickle=0.001), Send("after")], talk)
    assert session.sent == ["x" * 64, "after"]  # the next step waited for the trickle


# -- receiving: expect, echo ---------------------------------------------------------------


def test_an_expect_waits_for_a_matching_message_then_the_script_goes_on() -> None:
    async def talk(client: Client, session: Session) -> None:
        await client.send(TextMessage('{"type": "hello"}'))
        assert await client.message() == "welcome"
        await client.send(CloseConnection(1000))

    session = run([Expect(match.json_path("$.type", match.equal("hello"))), Send("welcome")], talk)
    assert session.received == ['{"type": "hello"}']
    assert session.mismatches == []


def test_an_unexpected_message_closes_1008_with_the_reason() -> None:
    async def talk(client: Client, session: Session) -> None:
        await client.send(TextMessage("nope"))
        event = await client.event()
        assert isinstance(event, CloseConnection)
        assert event.code == 1008
        assert event.reason is not None
        assert event.reason.startswith("unexpected message: ")
        assert len(event.reason) <= 120
        await client.send(event.response())

    session = run([Expect(match.equal("yes")), Send("never")], talk)
    assert session.close_code == 1008
    assert len(session.mismatches) == 1
    assert session.mismatches[0].startswith("message 1: ")
    assert "never" not in session.sent


def test_messages_sent_before_their_expect_wait_their_turn() -> None:
    async def talk(client: Client, session: Session) -> None:
        await client.send(TextMessage("first"))
        await client.send(TextMessage("second"))
        assert await client.message() == "greeting"
        assert await client.message() == "got both"
        await client.send(CloseConnection(1000))

    session = run(
        [
            Send("greeting", after=0.05),
            Expect(match.equal("first")),
            Expect(match.equal("second")),
            Send("got both"),
        ],
        talk,
    )
    assert session.mismatches == []


def test_echo_n_echoes_that_many_then_goes_on() -> None:
    async def talk(client: Client, session: Session) -> None:
        await client.send(TextMessage("a"))
        await client.send(BytesMessage(b"b"))
        assert await client.message() == "a"
        assert await client.message() == b"b"
        assert await client.message() == "done"
        await client.send(CloseConnection(1000))

    session = run([Echo(2), Send("done")], talk)
    assert session.received == ["a", b"b"]
    assert session.sent == ["a", b"b", "done"]


def test_a_fragmented_message_from_the_client_is_one_message() -> None:
    async def talk(client: Client, session: Session) -> None:
        await client.send(TextMessage("hel", message_finished=False))
        await client.send(TextMessage("lo", message_finished=True))
        assert await client.message() == "hello"
        await client.send(CloseConnection(1000))

    session = run([Echo(1)], talk)
    received = [f for f in session.frames if f.direction == "received" and f.kind == "text"]
    assert [f.data for f in received] == ["hello"]


# -- rules 1 to 4 ------------------------------------------------------------------------------


def test_rule_1_a_ping_gets_a_pong_with_its_payload_until_ignore_pings() -> None:
    async def talk(client: Client, session: Session) -> None:
        await client.send(Ping(b"p1"))
        event = await client.event()
        assert isinstance(event, Pong)
        assert event.payload == b"p1"
        await client.send(TextMessage("go"))  # the script moves on to IgnorePings
        await client.send(Ping(b"p2"))
        await client.send(TextMessage("after"))
        assert await client.message() == "after"  # no pong came before the echo
        await client.send(CloseConnection(1000))

    session = run([Expect(match.equal("go")), IgnorePings(), Echo(1)], talk)
    pings = [(f.direction, f.kind, f.data) for f in session.frames if f.kind in ("ping", "pong")]
    assert pings == [
        ("received", "ping", b"p1"),
        ("sent", "pong", b"p1"),
        ("received", "ping", b"p2"),
    ]


def test_rule_2_a_clients_close_is_answered_with_its_code_then_tcp_closed() -> None:
    async def talk(client: Client, session: Session) -> None:
        await client.send(CloseConnection(4001, "bye"))
        assert await client.rest() == close_frame(4001, "bye")

    session = run([Echo()], talk)
    assert session.close_code == 4001
    assert journal(session) == [
        ("received", "close", "bye", 4001),
        ("sent", "close", "bye", 4001),
    ]


def test_rule_3_a_message_over_max_message_closes_1009() -> None:
    async def talk(client: Client, session: Session) -> None:
        await client.send(BytesMessage(b"x" * 8, message_finished=False))
        await client.send(BytesMessage(b"y" * 3))
        event = await client.event()
        assert isinstance(event, CloseConnection)
        assert (event.code, event.reason) == (1009, "message over 10 bytes")
        await client.send(event.response())

    session = run([Echo()], talk, max_message=10)
    assert session.received == []
    assert session.close_code == 1009


def test_rule_3_a_message_of_max_message_bytes_is_taken() -> None:
    async def talk(client: Client, session: Session) -> None:
        await client.send(BytesMessage(b"x" * 10))
        assert await client.message() == b"x" * 10
        await client.send(CloseConnection(1000))

    run([Echo()], talk, max_message=10)


def test_rule_4_a_close_the_client_never_answers_ends_after_close_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_session, "CLOSE_WAIT", 0.05)

    async def talk(client: Client, session: Session) -> None:
        assert await client.rest() == close_frame(1001, "going")  # then EOF, unanswered

    session = run([Close(1001, "going")], talk)
    assert session.close_code == 1001
    assert journal(session) == [("sent", "close", "going", 1001)]
    assert session.ended.is_set()


def test_the_client_going_away_without_a_close_leaves_no_close_code() -> None:
    async def talk(client: Client, session: Session) -> None:
        await client.send(TextMessage("a"))
        assert await client.message() == "a"
        client.sock.shutdown(socket.SHUT_WR)

    session = run([Echo()], talk)
    assert session.close_code is None
    assert session.received == ["a"]


def test_a_second_close_and_sends_after_the_end_write_nothing() -> None:
    async def talk(client: Client, session: Session) -> None:
        await client.send(CloseConnection(1000))
        assert await client.rest() == close_frame(1000)
        session.close(1011, "late")  # the connection is closed: nothing is written
        session.send("late")

    session = run([Echo()], talk)
    assert session.close_code == 1000
    assert [f.kind for f in session.frames] == ["close", "close"]


# -- faults ------------------------------------------------------------------------------------


def test_drop_closes_tcp_with_no_close_frame() -> None:
    async def talk(client: Client, session: Session) -> None:
        assert await client.rest() == text_frame("bye")

    session = run([Send("bye"), Drop(), Send("never")], talk)
    assert [f.kind for f in session.frames] == ["text", "drop"]
    assert session.close_code is None


def test_cut_writes_half_a_frame_then_drops() -> None:
    async def talk(client: Client, session: Session) -> None:
        assert await client.rest() == Cut("abcdef").wire()

    session = run([Cut("abcdef")], talk)
    assert journal(session) == [("sent", "cut", "abcdef", None), ("sent", "drop", b"", None)]


def test_raw_bytes_are_written_as_they_are() -> None:
    odd = frame(0x1, b"\xff\xfe")  # not UTF-8: only a raw step can send it

    async def talk(client: Client, session: Session) -> None:
        assert await client.read(len(odd)) == odd
        client.sock.shutdown(socket.SHUT_WR)

    session = run([Raw(odd)], talk)
    assert journal(session) == [("sent", "raw", odd, None)]


@pytest.mark.parametrize(
    ("wire", "code"),
    [
        (frame(0x1, b"unmasked"), 1002),  # a client's frames must be masked
        (
            Connection(ConnectionType.CLIENT).send(BytesMessage(b"x")).replace(b"\x82", b"\xf2", 1),
            1002,
        ),
    ],
    ids=["unmasked", "reserved-bits"],  # (the second's mask is random: ids made of it differ
)  # between xdist workers, which then refuse to run)
def test_rule_5_bytes_that_break_the_protocol_fail_the_connection_with_a_close(
    wire: bytes, code: int
) -> None:
    """RFC 6455 §7.1.7: the mock SHOULD send a close with the code, then closes TCP; the
    journal shows that close as sent (it was journaled as the client's, and none went)."""

    async def talk(client: Client, session: Session) -> None:
        await client.write(wire)
        reply = await client.rest()
        assert reply[:1] == b"\x88"  # a close frame, then the end
        assert int.from_bytes(reply[2:4], "big") == code

    session = run([Echo()], talk)
    assert session.received == []
    assert session.close_code == code
    ((direction, kind, _, closed),) = journal(session)
    assert (direction, kind, closed) == ("sent", "close", code)


def test_a_client_that_goes_without_a_close_after_the_mocks_close() -> None:
    async def talk(client: Client, session: Session) -> None:
        assert await client.read(len(close_frame(1000))) == close_frame(1000)
        client.sock.shutdown(socket.SHUT_WR)  # no close frame in answer

    session = run([Close(1000)], talk)
    assert session.close_code == 1000
    assert journal(session) == [("sent", "close", "", 1000)]


# -- a responder (a protocol's mock) ---------------------------------------------------------


class Shouter:
    """Greets, answers each message in capitals, refuses "bad", and closes on "bye"."""

    def greet(self) -> list[Answer]:
        return ["ready", b"\x01"]

    def answer(self, message: str | bytes) -> list[Answer]:
        if message == "bad":
            raise RefusedRequest("bad turn", ["refused: bad"])
        if message == "bye":
            return ["ok", Close(4000, "done")]
        text = message if isinstance(message, str) else message.decode()
        return [text.upper()]


def test_a_responder_greets_answers_refuses_and_closes() -> None:
    async def talk(client: Client, session: Session) -> None:
        assert await client.message() == "ready"
        assert await client.message() == b"\x01"
        await client.send(TextMessage("hi"))
        assert await client.message() == "HI"
        await client.send(TextMessage("bad"))
        assert await client.message() == "refused: bad"
        await client.send(TextMessage("bye"))
        assert await client.message() == "ok"
        event = await client.event()
        assert isinstance(event, CloseConnection)
        assert (event.code, event.reason) == (4000, "done")
        await client.send(event.response())

    session = run([], talk, responder=Shouter())
    assert session.sent == ["ready", b"\x01", "HI", "refused: bad", "ok"]
    assert [str(e) for e in session.errors] == ["bad turn"]
    assert session.close_code == 4000


# -- the journal -------------------------------------------------------------------------------


def test_each_frame_is_journaled_with_its_time_in_order() -> None:
    async def talk(client: Client, session: Session) -> None:
        assert await client.message() == "x"
        await client.send(TextMessage("a"))
        assert await client.message() == "a"
        await client.send(CloseConnection(1000))

    session = run([Send("x", after=0.02), Echo(1)], talk)
    times = [f.at for f in session.frames]
    assert times == sorted(times)
    assert times[0] >= 0.0
    assert session.frames[0].at >= 0.02 - 0.005  # "x" went after its wait
    assert [(f.direction, f.kind) for f in session.frames] == [
        ("sent", "text"), ("received", "text"), ("sent", "text"),
        ("received", "close"), ("sent", "close"),
    ]  # fmt: skip


def test_on_end_is_called_once() -> None:
    ends: list[Session] = []

    async def main() -> Session:
        ours, theirs = socket.socketpair()
        ours.setblocking(False)
        loop = asyncio.get_running_loop()
        session = Session([Close()], REQUEST, on_end=ends.append)
        transport, _ = await loop.connect_accepted_socket(lambda: session, theirs)
        client = Client(ours)
        event = await client.event()
        assert isinstance(event, CloseConnection)
        await client.send(event.response())
        assert await client.rest() == b""
        await asyncio.wait_for(asyncio.to_thread(session.ended.wait, WAIT), WAIT + 1)
        session.connection_lost(None)  # a second report of the same end
        transport.close()
        ours.close()
        return session

    session = asyncio.run(main())
    assert ends == [session]
