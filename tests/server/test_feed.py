"""Feed: a reply put while it is sent, on the wire."""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest

import mockhttp
from mockhttp import ConfigError, Feed


def finish(feed: Feed) -> None:
    feed.data(b"data: two\n\n", 1)
    feed.end()


def test_each_piece_goes_out_when_it_is_put(server: mockhttp.Server) -> None:
    """The client reads a piece while the producer has not put the next one yet."""
    feeds: list[Feed] = []

    def answer(request: mockhttp.Request) -> mockhttp.Reply:
        feed = Feed()
        feeds.append(feed)
        feed.head(200, [("Content-Type", "text/event-stream")])
        feed.data(b"data: one\n\n", event=0)
        return feed.reply()

    server.mock(mockhttp.get("/live").respond_with(answer))
    with httpx.stream("GET", server.url_for("/live")) as response:
        reads = response.iter_raw()
        assert next(reads) == b"data: one\n\n"
        threading.Thread(target=finish, args=(feeds[0],)).start()  # after the first read
        assert b"".join(reads) == b"data: two\n\n"
    call = server.journal[0]
    assert call.wait(5) == "complete"
    assert (call.status, call.events) == (200, 2)


def test_the_status_is_the_feeds(server: mockhttp.Server) -> None:
    """The journal records the status the feed's head had, not a placeholder."""

    def answer(request: mockhttp.Request) -> mockhttp.Reply:
        feed = Feed()

        def later() -> None:
            time.sleep(0.05)
            feed.head(429, [("Content-Type", "application/json")], length=2)
            feed.data(b"{}")
            feed.end()

        threading.Thread(target=later).start()
        return feed.reply()

    server.mock(mockhttp.get("/slow").respond_with(answer))
    response = httpx.get(server.url_for("/slow"))
    assert (response.status_code, response.content) == (429, b"{}")
    assert response.headers["content-length"] == "2"
    server.journal[0].wait(5)
    assert server.journal[0].status == 429


def test_a_cut_before_the_head_resets_the_connection(server: mockhttp.Server) -> None:
    def answer(request: mockhttp.Request) -> mockhttp.Reply:
        feed = Feed()
        threading.Thread(target=lambda: feed.end("reset")).start()
        return feed.reply()

    server.mock(mockhttp.get("/gone").respond_with(answer))
    with pytest.raises(httpx.TransportError):
        httpx.get(server.url_for("/gone"))


def test_the_producer_learns_the_client_hung_up(server: mockhttp.Server) -> None:
    feeds: list[Feed] = []

    def answer(request: mockhttp.Request) -> mockhttp.Reply:
        feed = Feed()
        feeds.append(feed)
        feed.head(200, [("Content-Type", "text/event-stream")])
        feed.data(b": hello\n\n")
        return feed.reply()

    server.mock(mockhttp.get("/hang").respond_with(answer))
    with socket.create_connection((server.host, server.port)) as sock:
        sock.sendall(b"GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
        assert b": hello" in sock.recv(4096)
    # A client's EOF may be a half-close, so the next write reveals that it has gone.
    deadline = time.monotonic() + 5
    while not feeds[0].gone and time.monotonic() < deadline:
        feeds[0].data(b": more\n\n")
        feeds[0].wait_gone(0.02)
    assert feeds[0].gone
    assert server.journal[0].wait(5) == "client hung up"
    assert not server.errors


def test_misuse_is_a_config_error() -> None:
    feed = Feed()
    with pytest.raises(ConfigError, match="needs a head first"):
        feed.data(b"x")
    with pytest.raises(ConfigError, match="needs a head first"):
        feed.end()
    feed.head(200)
    with pytest.raises(ConfigError, match="already called"):
        feed.head(200)
    with pytest.raises(ConfigError, match="must be bytes"):
        feed.data("text")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="how='later'"):
        feed.end("later")  # type: ignore[arg-type]
    feed.end()
    with pytest.raises(ConfigError, match="already called"):
        feed.end("close")
    feed.steps()
    with pytest.raises(ConfigError, match="one request"):
        feed.steps()


def test_with_a_limit_data_waits_while_the_client_does_not_read(server: mockhttp.Server) -> None:
    """Feed(limit=N): the producer blocks once N bytes wait (backpressure), and goes on
    when the client reads; ``on_gone`` is called once the reply is over."""
    gone = threading.Event()
    feed = Feed(limit=65536, on_gone=gone.set)
    put = [0]
    piece = b"z" * 65536

    def produce() -> None:
        feed.head(200, length=len(piece) * 400)
        for _ in range(400):  # 25 MiB: far more than the sockets hold
            feed.data(piece)
            put[0] += 1
        feed.end()

    server.mock(mockhttp.get("/held").respond_with(lambda request: feed.reply()))
    client = socket.create_connection((server.host, server.port))
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    client.sendall(b"GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
    threading.Thread(target=produce, daemon=True).start()
    time.sleep(0.5)
    stalled = put[0]
    time.sleep(0.3)
    assert put[0] == stalled < 200  # blocked: the client reads nothing
    got = 0
    while got < len(piece) * 400:
        data = client.recv(1 << 20)
        assert data
        got += len(data) if got else len(data) - data.index(b"\r\n\r\n") - 4
    assert put[0] == 400
    assert gone.wait(5)
    client.close()


def test_a_limit_must_be_positive() -> None:
    with pytest.raises(ConfigError, match="limit=0 must be a positive int"):
        Feed(limit=0)
