"""https with a throwaway CA (``Server(tls=True)``): real clients trusting ``ca_path``, and
faults that keep their meaning under TLS (a cut without close_notify, a reset)."""

from __future__ import annotations

import socket
import ssl
from pathlib import Path

import anthropic
import httpx
import openai
import pytest

import mockhttp
from mockhttp import Event, fault, llm
from mockhttp._server._tls import make_certs, spki_sha256

pytest.importorskip("trustme")


@pytest.fixture(params=["asyncio", "uvloop"])
def loop(request: pytest.FixtureRequest) -> str:
    """Every wire test on both loops (uvloop's https path is its own: _accept.py)."""
    if request.param == "uvloop":
        pytest.importorskip("uvloop")
    return str(request.param)


def _read_until_end(server: mockhttp.Server, request: bytes) -> tuple[bytes, str]:
    """Send ``request`` over TLS and read everything the server sends, TCP and TLS kept
    apart (an ``ssl.SSLObject`` over a plain socket): how it ended, "close_notify" (a
    clean TLS end), "eof without close_notify" (a truncation) or "reset" (a TCP RST)."""
    raw = socket.create_connection((server.host, server.port), timeout=5)
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = server.ssl_context().wrap_bio(incoming, outgoing, server_hostname=server.host)

    def pump() -> str:
        """Send what TLS wrote, read what TCP brings: "" or how TCP ended."""
        try:
            if outgoing.pending:
                raw.sendall(outgoing.read())
            data = raw.recv(65536)
        except ConnectionResetError:
            return "reset"
        incoming.write(data)
        return "" if data else "eof without close_notify"

    with raw:
        while True:
            try:
                tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                assert not pump(), "the handshake did not finish"
        tls.write(request)
        got = b""
        while True:
            try:
                piece = tls.read(65536)
            except ssl.SSLWantReadError:
                piece = None
            if piece == b"":  # (an SSLObject reads b"" after the peer's close_notify)
                return got, "close_notify"
            if piece is not None:
                got += piece
                continue
            end = pump()
            if end:
                return got, end


def _get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()


def test_httpx_trusts_ca_path_and_reads_a_stream_byte_exact(loop: str) -> None:
    events = [Event(data=f"token {i}", id=str(i)) for i in range(3)]
    reply = mockhttp.ok().event_stream(*events)
    expected = b"".join(e.encode() for e in events)
    with mockhttp.Server(tls=True, loop=loop) as server:
        server.mock(mockhttp.get("/events").reply(reply))
        assert server.url.startswith("https://127.0.0.1:")
        assert Path(server.ca_path).read_text().startswith("-----BEGIN CERTIFICATE-----")
        trusted = ssl.create_default_context(cafile=server.ca_path)
        with (
            httpx.Client(verify=trusted) as client,
            client.stream("GET", server.url_for("/events")) as response,
        ):
            body = response.read()
        assert body == expected
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            httpx.get(server.url_for("/events"))  # the system's CAs do not know ours
        server.check()


def test_the_certificate_names_localhost_and_the_loopback_addresses(loop: str) -> None:
    with mockhttp.Server(tls=True, loop=loop) as server:
        server.mock(mockhttp.get("/").reply(mockhttp.ok().body("hi")))
        for host in ("localhost", "127.0.0.1"):
            url = f"https://{host}:{server.port}/"
            assert httpx.get(url, verify=server.ssl_context()).text == "hi"


def test_alpn_offers_http11(loop: str) -> None:
    with mockhttp.Server(tls=True, loop=loop) as server:
        server.mock(mockhttp.get("/").reply(mockhttp.ok().body("hi")))
        for offered, chosen in ((None, None), (["h2", "http/1.1"], "http/1.1")):
            raw = socket.create_connection((server.host, server.port), timeout=5)
            context = server.ssl_context()
            if offered:
                context.set_alpn_protocols(offered)
            with context.wrap_socket(raw, server_hostname=server.host) as sock:
                assert sock.selected_alpn_protocol() == chosen
                sock.sendall(_get("/"))
                assert sock.recv(4096).startswith(b"HTTP/1.1 200 OK\r\n")


def test_a_complete_reply_ends_with_close_notify(loop: str) -> None:
    with mockhttp.Server(tls=True, loop=loop) as server:
        server.mock(mockhttp.get("/").reply(mockhttp.ok().body("x" * 100)))
        got, end = _read_until_end(server, _get("/"))
        assert got.endswith(b"\r\n\r\n" + b"x" * 100)
        assert end == "close_notify"


def test_a_cut_sends_the_first_n_body_bytes_then_no_close_notify(loop: str) -> None:
    """limit_data(N): exactly N body bytes, then the connection ends without TLS's
    close_notify, so the client knows it was truncated (httpx says so too)."""
    body = bytes(range(256)) * 400  # 100 KiB: more than one TLS record
    with mockhttp.Server(tls=True, loop=loop) as server:
        mock = server.mock(
            mockhttp.get("/").reply(mockhttp.ok().body(body)).pipe(fault.limit_data(70_000))
        )
        got, end = _read_until_end(server, _get("/"))
        assert end == "eof without close_notify"
        assert got.split(b"\r\n\r\n", 1)[1] == body[:70_000]
        with pytest.raises(httpx.RemoteProtocolError):
            httpx.get(server.url, verify=server.ssl_context())
        assert [c.outcome for c in mock.calls] == ["closed", "closed"]


def test_a_cut_stream_keeps_the_events_before_it(loop: str) -> None:
    events = [Event(data=f"token {i}") for i in range(5)]
    reply = mockhttp.ok().event_stream(*events)
    with mockhttp.Server(tls=True, loop=loop) as server:
        server.mock(mockhttp.get("/").reply(reply).pipe(fault.close_after_events(2)))
        got, end = _read_until_end(server, _get("/"))
        assert end == "eof without close_notify"
        assert got.endswith(b"f\r\ndata: token 0\n\n\r\nf\r\ndata: token 1\n\n\r\n")


def test_a_reset_is_a_tcp_reset_after_the_bytes_before_it(loop: str) -> None:
    with mockhttp.Server(tls=True, loop=loop) as server:
        reply = mockhttp.ok().body("y" * 5000)
        server.mock(mockhttp.get("/").reply(reply).pipe(fault.reset_after_bytes(3000)))
        got, end = _read_until_end(server, _get("/"))
        assert end == "reset"
        assert got.split(b"\r\n\r\n", 1)[1] == b"y" * 3000


def test_the_openai_sdk_over_tls(loop: str) -> None:
    with mockhttp.Server(tls=True, loop=loop) as server:
        server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hi, TLS")))
        http_client = openai.DefaultHttpxClient(verify=server.ssl_context())
        with openai.OpenAI(
            base_url=server.url_for("/v1"), api_key="sk-test", http_client=http_client
        ) as client:
            stream = client.chat.completions.create(
                model="gpt-4o", messages=[{"role": "user", "content": "Hi"}], stream=True
            )
            text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        assert text == "Hi, TLS"
        server.check()


def test_the_anthropic_sdk_over_tls(loop: str) -> None:
    with mockhttp.Server(tls=True, loop=loop) as server:
        server.mock(mockhttp.post("/v1/messages").reply(llm.anthropic_messages("Hi, TLS")))
        # (this SDK bundles its own httpx: its DefaultHttpxClient takes the same verify=)
        http_client = anthropic.DefaultHttpxClient(verify=server.ssl_context())
        with (
            anthropic.Anthropic(
                base_url=server.url, api_key="sk-ant-test", http_client=http_client
            ) as client,
            client.messages.stream(
                model="claude-sonnet-4-5",
                max_tokens=64,
                messages=[{"role": "user", "content": "Hi"}],
            ) as stream,
        ):
            text = "".join(stream.text_stream)
        assert text == "Hi, TLS"
        server.check()


def test_a_folder_of_certificates_is_reused_and_kept(tmp_path: Path) -> None:
    certs = make_certs("127.0.0.1", tmp_path)
    with mockhttp.Server(tls=str(tmp_path)) as server:
        server.mock(mockhttp.get("/").reply(mockhttp.ok().body("same CA")))
        assert server.ca_path == str(tmp_path / "ca.pem")
        context = ssl.create_default_context(cafile=str(certs.ca_path))
        assert httpx.get(server.url, verify=context).text == "same CA"
    assert certs.ca_path.is_file()  # given, not made: not removed


def test_a_made_ca_is_removed_when_the_server_closes(loop: str) -> None:
    with mockhttp.Server(tls=True, loop=loop) as server:
        ca_path = Path(server.ca_path)
        assert ca_path.is_file()
    assert not ca_path.parent.exists()


def test_bad_tls_arguments_say_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(mockhttp.ConfigError, match=r"no ca\.pem in it"):
        mockhttp.Server(tls=str(tmp_path))
    with pytest.raises(mockhttp.ConfigError, match="must be True, False or a folder"):
        mockhttp.Server(tls=1)  # type: ignore[arg-type]
    with mockhttp.Server() as server, pytest.raises(mockhttp.ServerError, match="plain http"):
        server.ssl_context()


def test_spki_sha256_is_the_leaf_key_hash(loop: str) -> None:
    with mockhttp.Server(tls=True, loop=loop) as server:
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization

        der = ssl.PEM_cert_to_DER_cert(ssl.get_server_certificate((server.host, server.port)))
        key = x509.load_der_x509_certificate(der).public_key()
        spki = key.public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        import base64
        import hashlib

        expected = base64.b64encode(hashlib.sha256(spki).digest()).decode()
        assert server._tls is not None
        assert spki_sha256(server._tls) == expected
