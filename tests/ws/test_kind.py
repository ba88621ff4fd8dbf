"""WebSocket mocks over real loopback sockets, read by the ``websockets`` client."""

from __future__ import annotations

import json
import socket
import ssl
from collections.abc import Iterator

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import mockhttp
from mockhttp import match, ws


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server() as srv:
        yield srv


def url(server: mockhttp.Server, path: str = "/ws") -> str:
    return f"ws://127.0.0.1:{server.port}{path}"


def test_a_script_sends_expects_and_echoes(server: mockhttp.Server) -> None:
    chat = ws.websocket(
        ws.send("hello"),
        ws.expect(match.json_path("$.type", match.equal("ping"))),
        ws.send({"type": "pong"}),
        ws.echo(2),
        ws.send(b"\x00\x01", after=0.01),
        ws.close(1000, "bye"),
    )
    server.mock(chat.mock("/ws"))
    with connect(url(server)) as client:
        assert client.recv(timeout=5) == "hello"
        client.send(json.dumps({"type": "ping"}))
        assert json.loads(client.recv(timeout=5)) == {"type": "pong"}
        client.send("one")
        client.send(b"two")
        assert client.recv(timeout=5) == "one"
        assert client.recv(timeout=5) == b"two"
        assert client.recv(timeout=5) == b"\x00\x01"
        with pytest.raises(ConnectionClosed) as closed:
            client.recv(timeout=5)
    assert closed.value.rcvd is not None
    assert (closed.value.rcvd.code, closed.value.rcvd.reason) == (1000, "bye")
    (session,) = chat.wait_ended()
    assert session.received == ['{"type": "ping"}', "one", b"two"]
    assert session.sent == ["hello", '{"type":"pong"}', "one", b"two", b"\x00\x01"]
    kinds = [(f.direction, f.kind) for f in session.frames]
    assert kinds[-2:] == [("sent", "close"), ("received", "close")]
    assert session.close_code == 1000
    assert session.mismatches == []
    (call,) = server.journal
    assert (call.status, call.request.path) == (101, "/ws")


def test_an_unexpected_message_closes_1008_with_the_explanation(
    server: mockhttp.Server,
) -> None:
    chat = ws.websocket(ws.expect(match.json_path("$.type", match.equal("ping"))))
    server.mock(chat.mock("/ws"))
    with connect(url(server)) as client:
        client.send('{"type": "pang"}')
        with pytest.raises(ConnectionClosed) as closed:
            client.recv(timeout=5)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1008
    assert "pang" in closed.value.rcvd.reason
    (session,) = chat.wait_ended()
    assert session.mismatches
    assert "'pang'" in session.mismatches[0]


def test_a_message_sent_before_its_expect_is_matched_in_order(server: mockhttp.Server) -> None:
    chat = ws.websocket(
        ws.send("go", after=0.05), ws.expect("first"), ws.expect("second"), ws.send("done")
    )
    server.mock(chat.mock("/ws"))
    with connect(url(server)) as client:
        client.send("first")
        client.send("second")
        assert client.recv(timeout=5) == "go"
        assert client.recv(timeout=5) == "done"


def test_echo_without_a_count_echoes_until_the_client_closes(server: mockhttp.Server) -> None:
    chat = ws.websocket(ws.echo())
    server.mock(chat.mock("/ws"))
    with connect(url(server)) as client:
        for i in range(5):
            client.send(f"m{i}")
            assert client.recv(timeout=5) == f"m{i}"
        client.ping(b"p").wait(5)
    (session,) = chat.wait_ended()
    assert ("received", "ping") in [(f.direction, f.kind) for f in session.frames]
    assert ("sent", "pong") in [(f.direction, f.kind) for f in session.frames]
    assert session.close_code == 1000  # the client's close, answered


def test_a_fragmented_message_is_one_message(server: mockhttp.Server) -> None:
    chat = ws.websocket(ws.echo(1))
    server.mock(chat.mock("/ws"))
    with connect(url(server)) as client:
        client.send(iter(["ab", "cd", "ef"]))  # three frames, one message
        assert client.recv(timeout=5) == "abcdef"
    (session,) = chat.wait_ended()
    assert session.received == ["abcdef"]


def test_a_message_over_max_message_closes_1009(server: mockhttp.Server) -> None:
    chat = ws.websocket(ws.echo(), max_message=10)
    server.mock(chat.mock("/ws"))
    with connect(url(server)) as client:
        client.send("x" * 11)
        with pytest.raises(ConnectionClosed) as closed:
            client.recv(timeout=5)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1009


def test_the_subprotocol_is_chosen_when_offered(server: mockhttp.Server) -> None:
    server.mock(ws.websocket(ws.send("hi"), subprotocol="chat").mock("/ws"))
    with connect(url(server), subprotocols=["other", "chat"]) as client:  # type: ignore[list-item]
        assert client.subprotocol == "chat"
        assert client.recv(timeout=5) == "hi"


def test_the_upgrade_is_matched_like_any_request(server: mockhttp.Server) -> None:
    chat = ws.websocket(ws.send("yes"))
    server.mock(mockhttp.get("/ws").header("authorization", "Bearer k").reply(chat))
    with pytest.raises(Exception, match="404"):
        connect(url(server)).close()
    with connect(url(server), additional_headers={"Authorization": "Bearer k"}) as client:
        assert client.recv(timeout=5) == "yes"


def raw(server: mockhttp.Server, head: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(head)
        got = b""
        while b"\r\n\r\n" not in got:
            chunk = sock.recv(4096)
            if not chunk:
                break
            got += chunk
        return got


def test_a_plain_get_gets_426_and_a_keyless_upgrade_400(server: mockhttp.Server) -> None:
    server.mock(ws.websocket().mock("/ws"))
    plain = raw(server, b"GET /ws HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert plain.startswith(b"HTTP/1.1 426 ")
    keyless = raw(
        server,
        b"GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        b"Sec-WebSocket-Version: 13\r\n\r\n",
    )
    assert keyless.startswith(b"HTTP/1.1 400 ")


def test_the_accept_token_is_rfc_6455s(server: mockhttp.Server) -> None:
    server.mock(ws.websocket().mock("/ws"))
    head = raw(
        server,
        b"GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    )
    assert head.startswith(b"HTTP/1.1 101 ")
    assert b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n" in head  # RFC 6455 §1.3


def test_over_tls() -> None:
    pytest.importorskip("trustme")
    chat = ws.websocket(ws.expect("hi"), ws.send("secure"))
    with mockhttp.Server(tls=True) as server:
        server.mock(chat.mock("/ws"))
        context = ssl.create_default_context(cafile=server.ca_path)
        with connect(f"wss://localhost:{server.port}/ws", ssl=context) as client:
            client.send("hi")
            assert client.recv(timeout=5) == "secure"


def test_a_mock_file_websocket() -> None:
    mocks = mockhttp.loads(
        """
- request: {method: GET, path: /ws}
  response:
    websocket:
      script:
        - send: {json: {type: hello}}
        - expect: [json_path, $.n, [equal, 1]]
        - send: {binary: AAE=}
        - close: {code: 1001, reason: away}
"""
    )
    with mockhttp.Server() as server:
        server.mock(*mocks)
        with connect(url(server)) as client:
            assert json.loads(client.recv(timeout=5)) == {"type": "hello"}
            client.send('{"n": 1}')
            assert client.recv(timeout=5) == b"\x00\x01"
            with pytest.raises(ConnectionClosed) as closed:
                client.recv(timeout=5)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1001
