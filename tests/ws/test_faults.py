"""Frame-exact faults at message K, read by the ``websockets`` client over loopback:
what the client sees (its close code, a dropped or cut connection) and what the journal
says."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import mockhttp
from mockhttp import ws
from mockhttp.ws._faults import INVALID_UTF8, frame, pieces


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server() as srv:
        yield srv


def closed_by(server: mockhttp.Server, *script: object, **options: object) -> ConnectionClosed:
    """What the client sees after reading the script's messages until the end."""
    server.mock(ws.websocket(*script).mock("/ws"))
    with connect(f"ws://127.0.0.1:{server.port}/ws", **options) as client:  # type: ignore[arg-type]
        for _ in range(100):
            try:
                client.recv(timeout=10)
            except ConnectionClosed as closed:
                return closed
    raise AssertionError("the connection did not end")


@pytest.mark.parametrize("code", [1000, 1001, 1008, 1011])
def test_close_with_a_chosen_code_at_message_k(server: mockhttp.Server, code: int) -> None:
    seen = closed_by(server, ws.send("1"), ws.send("2"), ws.close(code, "k=2"))
    assert seen.rcvd is not None
    assert (seen.rcvd.code, seen.rcvd.reason) == (code, "k=2")


def test_drop_closes_tcp_with_no_close_frame(server: mockhttp.Server) -> None:
    chat = ws.websocket(ws.send("1"), ws.drop())
    server.mock(chat.mock("/ws"))
    with connect(f"ws://127.0.0.1:{server.port}/ws") as client:
        assert client.recv(timeout=10) == "1"
        with pytest.raises(ConnectionClosed) as closed:
            client.recv(timeout=10)
    assert closed.value.rcvd is None  # no close frame: what browsers report as 1006
    (session,) = chat.wait_ended()
    assert session.close_code is None
    assert [f.kind for f in session.frames] == ["text", "drop"]


def test_cut_ends_the_connection_mid_frame(server: mockhttp.Server) -> None:
    seen = closed_by(server, ws.send("whole"), ws.cut("half of this is sent"))
    assert seen.rcvd is None


def test_ignore_pings_lets_the_clients_keepalive_time_out(server: mockhttp.Server) -> None:
    chat = ws.websocket(ws.send("hi"), ws.ignore_pings())
    server.mock(chat.mock("/ws"))
    with connect(f"ws://127.0.0.1:{server.port}/ws") as client:
        assert client.recv(timeout=10) == "hi"
        assert client.ping(b"1").wait(0.5) is False
    (session,) = chat.wait_ended()
    kinds = [(f.direction, f.kind) for f in session.frames]
    assert ("received", "ping") in kinds
    assert ("sent", "pong") not in kinds


def test_pings_are_answered_before_ignore_pings(server: mockhttp.Server) -> None:
    server.mock(ws.websocket(ws.expect("go"), ws.ignore_pings()).mock("/ws"))
    with connect(f"ws://127.0.0.1:{server.port}/ws") as client:
        assert client.ping(b"1").wait(10) is True


def test_a_fragmented_message_arrives_in_its_frames(server: mockhttp.Server) -> None:
    server.mock(ws.websocket(ws.send("abcdefghi", fragments=3)).mock("/ws"))
    with connect(f"ws://127.0.0.1:{server.port}/ws") as client:
        assert list(client.recv_streaming()) == ["abc", "def", "ghi"]


def test_trickled_frames_arrive_whole_and_slowly(server: mockhttp.Server) -> None:
    server.mock(ws.websocket(ws.send("slow " * 20, trickle=0.05), ws.send("next")).mock("/ws"))
    with connect(f"ws://127.0.0.1:{server.port}/ws") as client:
        began = time.monotonic()
        assert client.recv(timeout=10) == "slow " * 20
        assert time.monotonic() - began >= 7 * 0.05 * 0.9  # 8 pieces, 7 gaps
        assert client.recv(timeout=10) == "next"


def test_an_oversized_message_makes_the_client_close_1009(server: mockhttp.Server) -> None:
    chat = ws.websocket(ws.oversized(2000))
    server.mock(chat.mock("/ws"))
    with (
        connect(f"ws://127.0.0.1:{server.port}/ws", max_size=1000) as client,
        pytest.raises(ConnectionClosed) as closed,
    ):
        client.recv(timeout=10)
    assert closed.value.sent is not None
    assert closed.value.sent.code == 1009
    (session,) = chat.wait_ended()
    assert session.close_code == 1009


def test_invalid_utf8_makes_the_client_close_1007(server: mockhttp.Server) -> None:
    seen = closed_by(server, ws.send("fine"), ws.invalid_utf8())
    assert seen.sent is not None
    assert seen.sent.code == 1007


def test_faults_read_from_a_mock_file() -> None:
    (mock,) = mockhttp.loads(
        """
- request: {method: GET, path: /ws}
  response:
    websocket:
      script:
        - send: one
          fragments: 2
          trickle: 10ms
        - ignore_pings: true
        - invalid_utf8: true
        - cut: abcdef
        - drop: true
"""
    )
    kind = mock.kind
    assert isinstance(kind, ws.WebSocket)
    assert kind.script == (
        ws.send("one", fragments=2, trickle=0.01),
        ws.ignore_pings(),
        ws.invalid_utf8(),
        ws.cut("abcdef"),
        ws.drop(),
    )
    assert mockhttp.loads(mockhttp.dump([mock]))[0].kind == kind


def test_frames_are_rfc_6455s() -> None:
    assert frame(1, b"Hello") == b"\x81\x05Hello"  # RFC 6455 §5.7, unmasked
    assert frame(2, b"x" * 256)[:4] == b"\x82\x7e\x01\x00"
    assert frame(2, b"x" * 65536)[:10] == b"\x82\x7f" + (65536).to_bytes(8, "big")
    assert frame(1, b"a", fin=False)[0] == 0x01
    assert ws.cut("abcd").wire() == b"\x81\x04ab"
    assert ws.invalid_utf8().data == frame(1, INVALID_UTF8)
    assert pieces(b"abcdefg", 3) == [b"abc", b"def", b"g"]
    assert pieces("ab", 5) == ["a", "b"]
