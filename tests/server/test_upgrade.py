"""The upgrade seam (``_server/_upgrade.py``, ``Connection.switch``): an upgrade request
answered with 101 hands the connection to another protocol, over a real socket.

The protocol here is a trivial echo; the realtime issue puts a WebSocket in its place.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Iterator
from typing import ClassVar

import pytest

import mockhttp
from mockhttp import ConfigError
from mockhttp._server._loop import LOOPS
from mockhttp._server._upgrade import Handshake, Switching, switching, switching_later

from ..helpers.clients import connect


class Echo(asyncio.Protocol):
    """Writes back what it reads; closes at the client's EOF."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport) or hasattr(transport, "write")
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        self.transport.write(data)


UPGRADE = b"GET /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: echo\r\n\r\n"
HEAD_101 = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n"


def read_until(sock: socket.socket, end: bytes, have: bytes = b"") -> bytes:
    """Read until ``have`` ends with ``end`` (or the peer closes)."""
    while not have.endswith(end):
        chunk = sock.recv(65536)
        if not chunk:
            break
        have += chunk
    return have


def available_loops() -> list[str]:
    loops = ["asyncio"]
    if "uvloop" in LOOPS:
        loops.append("uvloop")
    return loops


@pytest.fixture(params=available_loops())
def server(request: pytest.FixtureRequest) -> Iterator[mockhttp.Server]:
    with mockhttp.Server(loop=request.param, idle_timeout=0.5) as srv:
        srv.mock(mockhttp.get("/echo").reply(switching(Echo, "echo")))
        srv.mock(mockhttp.get("/plain").reply(mockhttp.ok().body("plain")))
        srv.mock(mockhttp.get("/slow").reply(mockhttp.ok().body("slow").delay(0.2)))
        yield srv


def test_an_upgrade_hands_the_connection_over_with_the_bytes_that_followed(
    server: mockhttp.Server,
) -> None:
    with connect(server.port) as sock:
        sock.sendall(UPGRADE + b"hello")
        got = read_until(sock, b"hello")
        assert got == HEAD_101 + b"hello"
        sock.sendall(b"GET /plain HTTP/1.1\r\n\r\n")  # no longer HTTP: echoed as it is
        assert read_until(sock, b"\r\n\r\n") == b"GET /plain HTTP/1.1\r\n\r\n"
    (call,) = server.journal
    assert (call.status, call.outcome, call.wire_bytes) == (101, "complete", len(HEAD_101))
    assert call.request.headers["upgrade"] == "echo"


def test_a_switched_connection_is_not_timed_out_by_the_http_sweep(
    server: mockhttp.Server,
) -> None:
    with connect(server.port) as sock:
        sock.sendall(UPGRADE)
        assert read_until(sock, b"\r\n\r\n") == HEAD_101
        time.sleep(1.5)  # three idle timeouts: the echo protocol keeps its connection
        sock.sendall(b"still here")
        assert read_until(sock, b"still here") == b"still here"


def test_a_request_that_did_not_ask_to_upgrade_gets_426_and_the_connection_goes_on(
    server: mockhttp.Server,
) -> None:
    with connect(server.port) as sock:
        sock.sendall(b"GET /echo HTTP/1.1\r\nHost: x\r\n\r\nGET /plain HTTP/1.1\r\n\r\n")
        got = read_until(sock, b"plain")
    assert got.startswith(b"HTTP/1.1 426 Upgrade Required\r\n")
    assert b"upgrade: echo\r\n" in got.lower()
    assert got.count(b"HTTP/1.1 ") == 2
    assert [c.status for c in server.journal] == [426, 200]


def test_an_upgrade_answered_as_http11_goes_on_with_the_requests_after_it(
    server: mockhttp.Server,
) -> None:
    plain_upgrade = UPGRADE.replace(b"/echo", b"/plain")
    with connect(server.port) as sock:
        sock.sendall(plain_upgrade + b"GET /plain HTTP/1.1\r\n\r\n")
        got = read_until(sock, b"plainplain", read_until(sock, b"plain"))
    assert got.count(b"HTTP/1.1 200 OK") == 2
    assert [c.request.path for c in server.journal] == ["/plain", "/plain"]


def test_an_upgrade_pipelined_behind_a_slow_reply_switches_after_it(
    server: mockhttp.Server,
) -> None:
    with connect(server.port) as sock:
        sock.sendall(b"GET /slow HTTP/1.1\r\n\r\n" + UPGRADE + b"ping")
        got = read_until(sock, b"ping")
    assert got.startswith(b"HTTP/1.1 200 OK\r\n")
    assert got.endswith(b"slow" + HEAD_101 + b"ping")


def test_closing_the_server_ends_switched_connections(server: mockhttp.Server) -> None:
    sock = connect(server.port)
    try:
        sock.sendall(UPGRADE)
        assert read_until(sock, b"\r\n\r\n") == HEAD_101
        assert server.close()
        sock.settimeout(10)
        assert read_until(sock, b"never") == b""  # the server's end closed
    finally:
        sock.close()


def test_a_client_that_hangs_up_leaves_no_connection_behind(server: mockhttp.Server) -> None:
    with connect(server.port) as sock:
        sock.sendall(UPGRADE + b"x")
        assert read_until(sock, b"x") == HEAD_101 + b"x"
    deadline = time.monotonic() + 10
    while server._connections and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not server._connections


def test_switching_refuses_what_is_not_a_protocol_or_a_token() -> None:
    with pytest.raises(ConfigError, match="callable"):
        switching("echo", "echo")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="one protocol token"):
        switching(Echo, "web socket")


def test_a_switching_reply_names_its_protocol_in_its_refusal() -> None:
    reply = switching(Echo, "websocket")
    assert isinstance(reply, Switching)
    refusal = reply.refusal()
    assert refusal.status_code == 426
    assert ("Upgrade", "websocket") in refusal.headers
    own = Switching(101, protocol=Echo, refused=mockhttp.status(400).body("no"))
    assert own.refusal().status_code == 400
    assert reply.head_bytes() == (
        b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
    )


def test_an_upgrade_switches_a_tls_connection_too() -> None:
    pytest.importorskip("trustme")
    with mockhttp.Server(tls=True) as server:
        server.mock(mockhttp.get("/echo").reply(switching(Echo, "echo")))
        context = server.ssl_context()
        with context.wrap_socket(connect(server.port), server_hostname="127.0.0.1") as sock:
            sock.sendall(UPGRADE + b"secret")
            assert read_until(sock, b"secret") == HEAD_101 + b"secret"
            sock.sendall(b"more")
            assert read_until(sock, b"more") == b"more"


# -- Rule 2: a protocol that answers the upgrade later (switching_later) ---------------------------


class Answering(asyncio.Protocol):
    """Takes the connection at once, answers the upgrade after a turn of the loop as
    ``how`` says, and echoes what came meanwhile and after (a relay waits so upstream)."""

    answered: ClassVar[list[bool]] = []

    def __init__(self, handshake: Handshake, how: str) -> None:
        self.handshake = handshake
        self.how = how
        self.transport: asyncio.Transport | None = None
        self.held = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        if self.how != "never":
            asyncio.get_running_loop().call_later(0.05, self.answer)

    def answer(self) -> None:
        assert self.transport is not None
        if self.how == "accept":
            Answering.answered.append(self.handshake.accept([("Sec-WebSocket-Protocol", "v2")]))
            Answering.answered.append(self.handshake.accept())  # the first answer counts
            self.transport.write(self.held)
        else:
            refused = mockhttp.status(401).header("X-Why", "key").body("no key")
            Answering.answered.append(self.handshake.refuse(refused))

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        if self.handshake.answered:
            self.transport.write(data)
        else:
            self.held += data

    def connection_lost(self, exc: Exception | None) -> None:
        self.handshake.gone()


def _answering(how: str) -> Callable[[Handshake], Answering]:
    return lambda handshake: Answering(handshake, how)


@pytest.fixture
def later() -> Iterator[mockhttp.Server]:
    Answering.answered.clear()
    with mockhttp.Server() as srv:
        for how in ("accept", "refuse", "never"):
            srv.mock(mockhttp.get(f"/{how}").reply(switching_later(_answering(how), "echo")))
        yield srv


def test_an_upgrade_answered_later_sends_its_101_with_the_protocols_headers(
    later: mockhttp.Server,
) -> None:
    with connect(later.port) as sock:
        sock.sendall(UPGRADE.replace(b"/echo", b"/accept") + b"early")
        got = read_until(sock, b"early")
    head = HEAD_101.replace(b"\r\n\r\n", b"\r\nSec-WebSocket-Protocol: v2\r\n\r\n")
    assert got == head + b"early"  # the bytes sent before the answer came after it
    assert Answering.answered == [True, False]
    (call,) = later.journal
    assert call.finished.wait(10)
    assert (call.status, call.outcome, call.wire_bytes) == (101, "complete", len(head))


def test_an_upgrade_refused_later_gets_that_reply_and_a_close(later: mockhttp.Server) -> None:
    with connect(later.port) as sock:
        sock.sendall(UPGRADE.replace(b"/echo", b"/refuse"))
        sock.settimeout(10)
        got = read_until(sock, b"never")  # until the server closes
    head, _, body = got.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 401 Unauthorized\r\n")
    assert b"x-why: key" in head.lower()
    assert b"connection: close" in head.lower()
    assert body == b"no key"
    assert Answering.answered == [True]
    (call,) = later.journal
    assert call.finished.wait(10)
    assert (call.status, call.outcome, call.body_bytes) == (401, "complete", 6)
    assert call.body_sent == b"no key"


def test_an_upgrade_never_answered_ends_as_a_hang_up(later: mockhttp.Server) -> None:
    with connect(later.port) as sock:
        sock.sendall(UPGRADE.replace(b"/echo", b"/never"))
        deadline = time.monotonic() + 10
        while not later.journal and time.monotonic() < deadline:
            time.sleep(0.01)
    (call,) = later.journal
    assert call.finished.wait(10)
    assert call.outcome == "client hung up"
    assert call.wire_bytes == 0


def test_a_server_closed_before_the_answer_says_so(later: mockhttp.Server) -> None:
    sock = connect(later.port)
    try:
        sock.sendall(UPGRADE.replace(b"/echo", b"/never"))
        deadline = time.monotonic() + 10
        while not later.journal and time.monotonic() < deadline:
            time.sleep(0.01)
        assert later.close()
        (call,) = later.journal
        assert call.finished.wait(10)
        assert call.outcome == "server closed"
    finally:
        sock.close()


def test_a_plain_request_to_a_later_upgrade_gets_426(later: mockhttp.Server) -> None:
    with connect(later.port) as sock:
        sock.sendall(b"GET /accept HTTP/1.1\r\nHost: x\r\n\r\n")
        got = read_until(sock, b"upgrade request\n")
    assert got.startswith(b"HTTP/1.1 426 Upgrade Required\r\n")
    assert Answering.answered == []
