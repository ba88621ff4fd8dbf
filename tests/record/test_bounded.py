"""The recording proxy is bounded, on the wire with raw-socket upstreams and clients: a reply
is relayed as it arrives; a client that does not read stalls the upstream's sends (the
proxy's memory stays flat); a recording past its cap is marked truncated; a client that
hangs up before the head cancels the upstream request (no thread or fd left behind)."""

from __future__ import annotations

import io
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

import mockhttp
from mockhttp.record import Recorder, Recording

PIECE = b"y" * 65536


class RawUpstream:
    """A one-connection-at-a-time upstream on a raw socket: reads a request head, then runs
    ``answer(conn)``; records what happened."""

    def __init__(self, answer: Callable[[socket.socket, RawUpstream], None]) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.answer = answer
        self.sent = 0
        self.closed_at: float | None = None  # when the proxy closed the connection
        self.events: dict[str, threading.Event] = {
            n: threading.Event() for n in ("request", "go", "done")
        }
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            self.events["request"].set()
            try:
                self.answer(conn, self)
            except OSError:
                self.closed_at = time.monotonic()
            self.events["done"].set()
        self.listener.close()


def _big(conn: socket.socket, up: RawUpstream, total: int) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % total)
    while up.sent < total:
        conn.sendall(PIECE)
        up.sent += len(PIECE)


def _silent(conn: socket.socket, up: RawUpstream) -> None:
    conn.settimeout(10)
    if conn.recv(1) == b"":  # the proxy closed its side: the request was cancelled
        up.closed_at = time.monotonic()


def _rss() -> int:
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


def _fds() -> int:
    """The process's open descriptors, but libuv's spare one: a uvloop loop opens
    ``/dev/null`` with its first connection and keeps it for EMFILE (``uv__stream_init``)."""
    names = os.listdir("/proc/self/fd")
    return sum(1 for name in names if _target(name) != os.devnull)


def _target(fd: str) -> str | None:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # (the listing's own descriptor, closed by now)
        return None


def _ask(url: str, path: str = "/big") -> socket.socket:
    port = int(url.rsplit(":", 1)[1])
    client = socket.create_connection(("127.0.0.1", port))
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    client.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return client


@pytest.fixture
def out(tmp_path: Path) -> Path:
    return tmp_path / "rec"


def test_a_reply_is_relayed_before_the_upstream_has_sent_it_all(out: Path) -> None:
    def answer(conn: socket.socket, up: RawUpstream) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n")
        assert up.events["go"].wait(5), "the client never got the first bytes"
        conn.sendall(b"4\r\nlast\r\n0\r\n\r\n")

    up = RawUpstream(answer)
    with Recorder(up.url, out) as recorder, httpx.stream("GET", recorder.url + "/s") as reply:
        reads = reply.iter_raw()
        assert next(reads) == b"first"  # while the upstream waits for us
        up.events["go"].set()
        assert b"".join(reads) == b"last"
        recorder.wait(1)
    (mock,) = mockhttp.load(out)
    assert isinstance(mock.response, Recording)
    assert [w.data for w in mock.response.writes] == [b"first", b"last"]


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_a_client_that_does_not_read_stalls_the_upstream_and_the_proxy_stays_small(
    out: Path, loop: str
) -> None:
    total = 128 * 1024 * 1024
    up = RawUpstream(lambda conn, up: _big(conn, up, total))
    with Recorder(up.url, out, max_recording_size=1024 * 1024, loop=loop) as recorder:
        assert recorder.server.loop_name == loop
        before = _rss()
        client = _ask(recorder.url)
        time.sleep(1.0)
        stalled_at = up.sent
        time.sleep(0.5)
        assert up.sent == stalled_at  # the upstream's sends stall: nobody reads
        assert stalled_at < 48 * 1024 * 1024, stalled_at  # buffers, not the reply
        assert _rss() - before < 40 * 1024 * 1024
        got = 0
        while got < total + 38:  # the whole reply still comes, once the client reads
            data = client.recv(1 << 20)
            assert data
            got += len(data)
        client.close()
        assert len(recorder.wait(1)) == 1
        assert up.events["done"].wait(5)
    assert up.sent == total


def test_past_the_cap_the_client_gets_everything_and_the_recording_says_truncated(
    out: Path,
) -> None:
    body = b"0123456789" * 500
    log = io.StringIO()
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.get("/big").reply(mockhttp.ok().body(body)))
        with Recorder(upstream.url, out, log=log, max_recording_size=1000) as recorder:
            assert httpx.get(recorder.url + "/big").content == body
            recorder.wait(1)
    (path,) = out.iterdir()
    text = path.read_text()
    assert "    end: close\n    truncated: 5000\n" in text
    (mock,) = mockhttp.load(path)
    assert isinstance(mock.response, Recording)
    assert mock.response.body_bytes == body[:1000]
    assert (mock.response.length, mock.response.truncated) == (None, 5000)
    assert "(truncated: 1000 of 5000 bytes kept, --max-recording-size)" in log.getvalue()


def test_a_client_that_hangs_up_before_the_head_cancels_the_upstream_request(
    out: Path,
) -> None:
    up = RawUpstream(_silent)
    log = io.StringIO()
    with Recorder(up.url, out, log=log) as recorder:
        threads, fds = threading.active_count(), _fds()
        client = _ask(recorder.url, "/hang")
        assert up.events["request"].wait(5)
        client.close()
        gone = time.monotonic()
        assert up.events["done"].wait(3)
        assert up.closed_at is not None
        assert up.closed_at - gone < 1.0
        deadline = time.monotonic() + 3  # the upstream's thread and listener are gone too
        while threading.active_count() > threads - 1 or _fds() > fds - 1:
            assert time.monotonic() < deadline, (threading.active_count(), threads, _fds(), fds)
            time.sleep(0.02)
        start = time.monotonic()
    assert time.monotonic() - start < 2  # close() waited for no hung exchange
    assert "the client went away; upstream request cancelled" in log.getvalue()


def test_the_record_flag_takes_a_size() -> None:
    import argparse

    from mockhttp.record._cli import configure_parser

    parser = argparse.ArgumentParser()
    configure_parser(parser)
    args = parser.parse_args(["--upstream", "http://x", "--max-recording-size", "16MiB"])
    assert args.max_recording_size == 16 * 1024 * 1024
    assert parser.parse_args(["--upstream", "http://x"]).max_recording_size == 64 * 1024 * 1024
    with pytest.raises(SystemExit):
        parser.parse_args(["--upstream", "http://x", "--max-recording-size", "lots"])


def test_a_chunk_extension_after_whitespace_is_legal_and_recorded(out: Path) -> None:
    # RFC 9112: chunk-ext = *( BWS ";" BWS chunk-ext-name ... ): "5 ;ext=1" is legal
    def answer(conn: socket.socket, up: RawUpstream) -> None:
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"5 ;ext=1\r\nfirst\r\n4\t; a=b ; c\r\nlast\r\n0\r\n\r\n"
        )

    up = RawUpstream(answer)
    with Recorder(up.url, out) as recorder:
        reply = httpx.get(recorder.url + "/s")
        recorder.wait(1)
    assert (reply.status_code, reply.content) == (200, b"firstlast")
    (mock,) = mockhttp.load(out)
    assert isinstance(mock.response, Recording)
    assert b"".join(w.data for w in mock.response.writes) == b"firstlast"
    assert mock.response.end == "complete"
