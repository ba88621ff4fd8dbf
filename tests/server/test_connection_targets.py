"""A malformed absolute-form target gets a plain 400, not httptools' internals (issue 19)."""

from __future__ import annotations

import pytest

import mockhttp
from tests.helpers.clients import connect, read_all


@pytest.mark.parametrize("target", [b"http://[::1/x", b"http://[zz]/x", b"https://[::1"])
def test_a_malformed_absolute_target_is_a_plain_400(target: bytes) -> None:
    with mockhttp.Server() as server:
        sock = connect(server.port)
        sock.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = read_all(sock, reset_ok=True)
        sock.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 Bad Request\r\n")
    assert body == (
        b"malformed request: the request target is not a valid URL "
        b"(expected /path?query, or http://host/path)\n"
    )
    assert b"callback" not in answer
