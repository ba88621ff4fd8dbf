"""The recording proxy is locked to its upstream: hostile targets from a local client are
refused with a 400 and a log line, and no connection reaches another loopback server."""

from __future__ import annotations

import io
import socket
import threading
from collections.abc import Iterator

import pytest

import mockhttp
from mockhttp.record import Recorder

KEY = "sk-ant-guard-Zq9777"


@pytest.fixture
def bystander() -> Iterator[tuple[int, list[bytes]]]:
    """A second loopback server: its port, and what each connection to it sent."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)
    seen: list[bytes] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(0.5)
                try:
                    seen.append(conn.recv(65536))
                except OSError:
                    seen.append(b"")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], seen
    stop.set()
    thread.join(2)
    listener.close()


def _send(host: str, port: int, line: str) -> bytes:
    with socket.create_connection((host, port), timeout=5) as conn:
        head = f"{line}\r\nHost: x\r\nx-api-key: {KEY}\r\nConnection: close\r\n\r\n"
        conn.sendall(head.encode())
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    return data


@pytest.mark.parametrize(
    ("target", "why"),
    [
        ("CONNECT @127.0.0.1:{port}/v1/chat/completions", "authority-form"),
        ("CONNECT 127.0.0.1:{port}", "authority-form"),
        ("POST http://127.0.0.1:{port}/v1/chat/completions", "HTTP_PROXY"),
        ("GET //127.0.0.1:{port}/v1/models", "starts with //"),
    ],
)
def test_a_target_that_is_not_a_path_is_refused_and_reaches_no_one(
    bystander: tuple[int, list[bytes]], target: str, why: str
) -> None:
    port, seen = bystander
    log = io.StringIO()
    with mockhttp.Server() as upstream, Recorder(upstream.url, log=log) as rec:
        upstream.mock(mockhttp.request(None, None).reply(mockhttp.ok().body("upstream")))
        line = target.format(port=port) + " HTTP/1.1"
        reply = _send(rec.server.host, rec.server.port, line)
        assert reply.startswith(b"HTTP/1.1 400 Bad Request\r\n"), reply
        assert b"forwards only /path?query targets" in reply
        assert why.encode() in reply
        assert len(upstream.journal) == 0
        assert rec.mocks == []
    assert seen == []  # nothing connected to the bystander, let alone sent it the key
    assert f"refused {target.format(port=port)}: " in log.getvalue()
    assert KEY not in log.getvalue()


def test_an_origin_form_target_still_reaches_the_upstream(
    bystander: tuple[int, list[bytes]],
) -> None:
    log = io.StringIO()
    with mockhttp.Server() as upstream, Recorder(upstream.url, log=log) as rec:
        upstream.mock(mockhttp.get("/v1/models").reply(mockhttp.ok().body("upstream")))
        reply = _send(rec.server.host, rec.server.port, "GET /v1/models?key=AIzaQuery1 HTTP/1.1")
        assert reply.endswith(b"\r\n\r\nupstream")
        rec.wait(1)
    assert bystander[1] == []
    assert "recorded GET /v1/models?key=[redacted] -> 200" in log.getvalue()
    assert "AIzaQuery1" not in log.getvalue()


def test_a_recorder_bound_beyond_loopback_warns() -> None:
    log = io.StringIO()
    with Recorder("http://127.0.0.1:9", host="0.0.0.0", log=log):
        pass
    assert "warning: listening on 0.0.0.0, not loopback" in log.getvalue()
    log = io.StringIO()
    with Recorder("http://127.0.0.1:9", log=log):
        pass
    assert "warning" not in log.getvalue()


def test_close_does_not_raise_when_a_thread_could_not_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A machine out of threads: the client gets a 503 that says so, ``close`` reports it."""
    log = io.StringIO()
    with mockhttp.Server() as upstream:
        rec = Recorder(upstream.url, log=log).start()

        def refuse(self: threading.Thread) -> None:
            raise RuntimeError("can't start new thread")

        with monkeypatch.context() as patch:
            patch.setattr(threading.Thread, "start", refuse)
            reply = _send(rec.server.host, rec.server.port, "GET /v1/models HTTP/1.1")
        assert reply.startswith(b"HTTP/1.1 503 ")
        assert b"could not start a thread" in reply
        assert rec.close() == []
    assert [type(e) for e in rec.errors] == [RuntimeError]
    assert "internal error: RuntimeError: can't start new thread" in log.getvalue()


@pytest.mark.parametrize(
    "path",
    ["/v1/../../admin", "/v1/%2e%2e/%2E%2E/admin", "/v1/.%2E/admin", "/v1/%2e%2e%2fadmin",
     "/v1/%252e%252e/admin", "/v1/..\\admin", "/v1/..?q=1"],
)  # fmt: skip
def test_a_path_that_climbs_out_of_the_base_path_is_refused(path: str) -> None:
    """``..`` in any spelling would leave the upstream's base path: a 400, nothing sent."""
    log = io.StringIO()
    with mockhttp.Server() as upstream, Recorder(upstream.url + "/base", log=log) as rec:
        upstream.mock(mockhttp.request(None, None).reply(mockhttp.ok().body("upstream")))
        reply = _send(rec.server.host, rec.server.port, f"GET {path} HTTP/1.1")
        assert reply.startswith(b"HTTP/1.1 400 Bad Request\r\n"), reply
        assert b"a path with a '..' segment" in reply
        assert len(upstream.journal) == 0
    assert f"refused GET {path}: " in log.getvalue()


@pytest.mark.parametrize("path", ["/v1/..x/a", "/v1/a..b", "/v1/.../a", "/v1/a?next=../b"])
def test_dots_that_do_not_climb_still_reach_the_upstream(path: str) -> None:
    with mockhttp.Server() as upstream, Recorder(upstream.url + "/base", log=io.StringIO()) as rec:
        upstream.mock(mockhttp.request(None, None).reply(mockhttp.ok().body("upstream")))
        reply = _send(rec.server.host, rec.server.port, f"GET {path} HTTP/1.1")
        assert reply.endswith(b"\r\n\r\nupstream"), reply
        [call] = upstream.journal
    assert call.request.target == "/base" + path
