"""Building LLM replies without sockets, and reading them back on a real one.

The per-module tests of ``mockhttp.llm`` call a reply's ``build``/``draft`` directly (pure
tests) and read the exact bytes a server sends (loopback tests); these are the few steps
they share.
"""

from __future__ import annotations

import json
import random
import socket
from typing import Any

from mockhttp import Headers, Request
from mockhttp._core._reply import Reply
from mockhttp.llm._draft import Chunk, Context, Draft


def request(
    body: Any, path: str = "/v1/chat/completions", method: str = "POST", **headers: str
) -> Request:
    """A request as the server parses it: ``body`` sent as JSON (bytes and text as they are)."""
    if isinstance(body, bytes):
        raw = body
    elif isinstance(body, str):
        raw = body.encode()
    else:
        raw = json.dumps(body).encode()
    return Request(method, path, Headers(tuple(headers.items())), raw)


def context(
    body: dict[str, Any] | None = None,
    path: str = "/v1/chat/completions",
    call: int = 1,
    model: str = "m",
    seed: int = 0,
) -> Context:
    """A draft's context for ``body`` (an rng seeded as a reply seeds it)."""
    body = body or {}
    return Context(request(body, path), body, call, random.Random(f"{seed}:{call}"), model)


def draft(chunks: list[Chunk], provider: str = "openai_chat", **more: Any) -> Draft:
    return Draft(provider, True, 200, (), chunks=tuple(chunks), **more)


def stream_bytes(reply: Reply) -> bytes:
    """The body bytes a built streamed reply sends (its encoded events, joined)."""
    assert reply.stream is not None, "not a streamed reply"
    return b"".join(reply.stream.encoded)


def payloads(reply: Reply) -> list[Any]:
    """The data of each event of a built streamed reply: JSON parsed, ``[DONE]`` as is."""
    assert reply.stream is not None, "not a streamed reply"
    out = []
    for event in reply.stream.events:
        text = event.data_text
        out.append(text if text in (None, "[DONE]") else json.loads(text))
    return out


def body_of(reply: Reply) -> Any:
    """A built buffered reply's JSON body."""
    assert reply.stream is None, "a streamed reply"
    return json.loads(reply.content)


def raw_exchange(
    url: str, path: str, body: Any, *, headers: dict[str, str] | None = None, timeout: float = 10.0
) -> tuple[bytes, bytes]:
    """POST ``body`` (JSON) to ``url + path`` on a plain socket, HTTP/1.0 style (the server
    closes when done): the response head and its body, de-chunked, byte for byte."""
    host, port = url.removeprefix("http://").split(":")
    raw = json.dumps(body).encode()
    lines = [
        f"POST {path} HTTP/1.1",
        f"Host: {host}:{port}",
        "Connection: close",
        "Content-Type: application/json",
        f"Content-Length: {len(raw)}",
    ]
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + raw)
        received = bytearray()
        while chunk := sock.recv(65536):
            received += chunk
    head, _, rest = bytes(received).partition(b"\r\n\r\n")
    if b"transfer-encoding: chunked" in head.lower():
        rest = _dechunk(rest)
    return head, rest


def _dechunk(data: bytes) -> bytes:
    out = bytearray()
    while True:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return bytes(out)
        out += data[:size]
        data = data[size + 2 :]


def sdk_extras(value: Any, path: str = "") -> list[str]:
    """The keys of a validated SDK object (a pydantic model tree) that its types do not
    name: what an official SDK keeps as "extra" (openai, anthropic allow extras; a
    reference stream should have none)."""
    from pydantic import BaseModel

    found: list[str] = []
    if isinstance(value, BaseModel):
        found += [f"{path}.{k}" for k in value.model_extra or {}]
        for name in type(value).model_fields:
            found += sdk_extras(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found += sdk_extras(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            found += sdk_extras(item, f"{path}.{key}")
    return found
