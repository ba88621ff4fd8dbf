"""``@pytest.mark.mockhttp(tls=True)``: ``mockhttp_server`` over https."""

from __future__ import annotations

import httpx
import pytest

import mockhttp

pytest.importorskip("trustme")


@pytest.mark.mockhttp(tls=True)
def test_the_marker_gives_an_https_server(mockhttp_server: mockhttp.Server) -> None:
    mockhttp_server.mock(mockhttp.get("/hi").reply(mockhttp.ok().body("over TLS")))
    assert mockhttp_server.url.startswith("https://")
    reply = httpx.get(mockhttp_server.url_for("/hi"), verify=mockhttp_server.ssl_context())
    assert reply.text == "over TLS"


def test_without_it_the_server_is_plain_http(mockhttp_server: mockhttp.Server) -> None:
    assert mockhttp_server.url.startswith("http://")
