"""https on uvloop: the handshake is done by ``connect_accepted_socket`` in mockhttp's own
accept path (``_server/_accept.py`` Rule 4).  Before, uvloop's server raced the handshake
that ``connection_made`` started: a ClientHello read before ``start_tls`` hung it (15 of
40 new clients failed).  These tests read what each client gets on the wire."""

from __future__ import annotations

import asyncio
import socket
import ssl
import time

import httpx
import pytest

import mockhttp
from mockhttp._server._accept import Listener

pytest.importorskip("trustme")
uvloop = pytest.importorskip("uvloop")


def _ended(sock: socket.socket, within: float) -> float:
    """Seconds until the server ended ``sock`` (EOF, or a reset); fails after ``within``."""
    sock.settimeout(within)
    start = time.monotonic()
    try:
        while sock.recv(4096):
            pass
    except ConnectionResetError:
        pass
    except TimeoutError:
        pytest.fail(f"the server kept the connection open for more than {within} s")
    return time.monotonic() - start


def test_new_servers_answer_every_new_client() -> None:
    """40 servers, two clients each, a new TLS connection every time: every one is served
    (the race lost 15 of 40 rounds; a lost one hung until the client's timeout)."""
    failed = []
    for round_ in range(40):
        with mockhttp.Server(tls=True, loop="uvloop") as server:
            server.mock(mockhttp.get("/x").reply(mockhttp.ok().body("hi")))
            for client in range(2):
                try:
                    with httpx.Client(verify=server.ssl_context(), timeout=5) as http:
                        assert http.get(server.url_for("/x")).text == "hi"
                except httpx.HTTPError as exc:
                    failed.append(f"round {round_} client {client}: {exc!r}")
    assert not failed, failed


def test_a_silent_client_is_dropped_after_header_timeout() -> None:
    with mockhttp.Server(tls=True, loop="uvloop", header_timeout=0.5) as server:
        raw = socket.create_connection((server.host, server.port), timeout=5)
        with raw:
            took = _ended(raw, within=5)
        assert took > 0.3, took  # not at once: the handshake had its time
        with httpx.Client(verify=server.ssl_context(), timeout=5) as http:
            assert http.get(server.url_for("/")).status_code == 404  # still serving


def test_closing_ends_connections_still_in_their_handshake() -> None:
    server = mockhttp.Server(tls=True, loop="uvloop", header_timeout=30).start()
    raws = [socket.create_connection((server.host, server.port), timeout=5) for _ in range(3)]
    time.sleep(0.2)  # accepted, waiting for a ClientHello
    try:
        assert server.close()
        for raw in raws:
            assert _ended(raw, within=3) < 3
    finally:
        for raw in raws:
            raw.close()


def test_plain_http_to_the_https_port_is_dropped_and_others_served() -> None:
    with mockhttp.Server(tls=True, loop="uvloop") as server:
        server.mock(mockhttp.get("/").reply(mockhttp.ok().body("hi")))
        raw = socket.create_connection((server.host, server.port), timeout=5)
        with raw:
            raw.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            _ended(raw, within=5)
        with httpx.Client(verify=server.ssl_context(), timeout=5) as http:
            assert http.get(server.url_for("/")).text == "hi"
        assert len(server.journal) == 1  # the plain request never reached a mock


def test_a_socket_accepted_on_the_turn_the_listener_closes_is_closed() -> None:
    """Accepted, its hand-over task not yet run, and the listener closed in the same
    turn: the task never starts, so the listener closes that socket itself."""
    loop = uvloop.new_event_loop()
    listening = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listening.getsockname(), timeout=5)
    try:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        listener = Listener(loop, listening, asyncio.Protocol, 16, context, 5.0)

        def accept_then_close() -> None:
            listener._ready()  # (what the reader callback does when the client is seen)
            listener.close()

        loop.call_soon(accept_then_close)
        loop.run_until_complete(asyncio.sleep(0.05))
        assert _ended(client, within=3) < 3
    finally:
        client.close()
        loop.close()
