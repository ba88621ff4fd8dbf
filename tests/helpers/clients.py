"""Small hand-written clients, as a user's code would be, for tests on the wire."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import BinaryIO
from urllib.parse import urlsplit

import anthropic
import httpx


class StreamEnded(Exception):
    """The stream ended before [DONE]."""


def complete(url: str, prompt: str, *, timeout: float = 5.0) -> str:
    """The seed's ``complete`` client, in Python over a raw socket.

    It asks for a streamed chat completion, reads ``data:`` lines until ``[DONE]`` and returns
    the answer; it raises on a non-200 status, and when the stream (or the HTTP body) ends
    before ``[DONE]``.
    """
    parts = urlsplit(url)
    body = json.dumps(
        {"model": "gpt-test", "stream": True, "messages": [{"role": "user", "content": prompt}]}
    ).encode()
    head = (
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        "Content-Type: application/json\r\nAccept: text/event-stream\r\n"
        f"Authorization: Bearer sk-test\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        sock.sendall(head + body)
        reader = _HTTPBody(sock.makefile("rb"))
        if reader.status != 200:
            raise RuntimeError(f"status {reader.status}")
        answer: list[str] = []
        for line in reader.lines():
            if not line.startswith("data: "):
                continue
            data = line[len("data: ") :]
            if data == "[DONE]":
                return "".join(answer)
            chunk = json.loads(data)
            answer.extend(c["delta"].get("content", "") for c in chunk["choices"])
    raise StreamEnded("the stream ended before [DONE]")


def complete_httpx(url: str, prompt: str, *, timeout: float = 5.0) -> str:
    """The seed's ``complete`` client over httpx: read ``data:`` lines until [DONE].

    Like the Go original, it fails on a non-200 status, on a read error, and when the stream
    ends before [DONE] -- it never returns half an answer.
    """
    body = {"model": "gpt-test", "stream": True, "messages": [{"role": "user", "content": prompt}]}
    headers = {"Accept": "text/event-stream", "Authorization": "Bearer sk-test"}
    with httpx.stream(
        "POST", url + "/v1/chat/completions", json=body, headers=headers, timeout=timeout
    ) as response:
        if response.status_code != 200:
            raise RuntimeError(f"status {response.status_code}")
        answer: list[str] = []
        for line in response.iter_lines():
            data = line.removeprefix("data: ")
            if data == line:
                continue  # a blank line between events, or another field
            if data == "[DONE]":
                return "".join(answer)
            chunk = json.loads(data)
            answer.extend(c["delta"].get("content", "") for c in chunk["choices"])
    raise StreamEnded("the stream ended before [DONE]")


def anthropic_text(url: str) -> str:
    """A client that splits events at blank lines and reads event: and data: lines."""
    text = []
    with httpx.stream(
        "POST",
        url + "/v1/messages",
        json={"model": "claude-test", "max_tokens": 16, "stream": True, "messages": []},
        headers={"x-api-key": "test-key", "anthropic-version": "2023-06-01"},
    ) as response:
        buffer = ""
        for piece in response.iter_text():
            buffer += piece
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                fields = dict(line.split(": ", 1) for line in block.split("\n"))
                if fields["event"] == "content_block_delta":
                    text.append(json.loads(fields["data"])["delta"]["text"])
                elif fields["event"] == "message_stop":
                    return "".join(text)
    raise AssertionError("no message_stop")


def anthropic_sdk_text(url: str) -> str:
    """The text the official anthropic SDK builds from a streamed message at ``url``.

    This SDK release sends its key as a bearer token and a newer anthropic-version; the
    guide's mocks pin x-api-key and 2023-06-01, so the client is told to send those.
    """
    with anthropic.Anthropic(
        base_url=url,
        api_key="test-key",
        max_retries=0,
        default_headers={"x-api-key": "test-key", "anthropic-version": "2023-06-01"},
    ) as client:
        stream = client.messages.create(
            model="claude-test",
            max_tokens=16,
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
        )
        return "".join(
            e.delta.text
            for e in stream
            if e.type == "content_block_delta" and e.delta.type == "text_delta"
        )


class _HTTPBody:
    """Just enough HTTP/1.1 to read a status, headers and a chunked or sized body."""

    def __init__(self, file: BinaryIO) -> None:
        self.file = file
        status_line = self._readline()
        self.status = int(status_line.split()[1])
        self.headers: dict[str, str] = {}
        while line := self._readline():
            name, _, value = line.partition(":")
            self.headers[name.strip().lower()] = value.strip()

    def _readline(self) -> str:
        raw = self.file.readline()
        if not raw.endswith(b"\n"):
            raise StreamEnded("connection closed mid-line")
        return str(raw.decode().rstrip("\r\n"))

    def lines(self) -> Iterator[str]:
        pending = b""
        for piece in self._pieces():
            pending += piece
            *done, pending = pending.split(b"\n")
            for line in done:
                yield line.rstrip(b"\r").decode()

    def _pieces(self) -> Iterator[bytes]:
        if self.headers.get("transfer-encoding") == "chunked":
            while True:
                size = int(self._readline(), 16)
                if size == 0:
                    return
                data = self.file.read(size + 2)
                if len(data) < size + 2:
                    raise StreamEnded("unexpected EOF inside a chunk")
                yield data[:size]
        length = int(self.headers.get("content-length", "0"))
        data = self.file.read(length)
        if len(data) < length:
            raise StreamEnded("unexpected EOF in the body")
        yield data


def raw_exchange(url: str, request: bytes, *, timeout: float = 5.0) -> bytes:
    """Send ``request`` bytes and read everything until the server closes."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        sock.sendall(request)
        received = b""
        while data := sock.recv(65536):
            received += data
    return received


def connect(port: int, *, timeout: float = 5.0) -> socket.socket:
    """A raw TCP connection to a server on 127.0.0.1."""
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)


def read_all(sock: socket.socket, *, reset_ok: bool = False) -> bytes:
    """Every byte until the server closes; with ``reset_ok``, a reset ends the reading too
    (a server that closes with our bytes unread resets the connection after its reply)."""
    data = b""
    try:
        while piece := sock.recv(1 << 20):
            data += piece
    except ConnectionResetError:
        if not reset_ok:
            raise
    return data
