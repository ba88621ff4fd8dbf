"""``call.body_sent`` keeps the first MiB of the body bytes written, exactly, whether the
body goes out in chunks (an event stream) or as it is (a ``Content-Length`` body)."""

from __future__ import annotations

import httpx

import mockhttp
from mockhttp import Event
from mockhttp._server._journal import BODY_KEPT


def test_an_event_stream_keeps_its_first_mib_of_body_bytes() -> None:
    events = [Event(data=f"{i:04d}" + "x" * 50_000) for i in range(40)]  # ~2 MB, chunked
    with mockhttp.Server() as server:
        server.mock(
            mockhttp.get("/s").reply(mockhttp.ok().event_stream(*events, event_delay=0.001))
        )
        with httpx.stream("GET", server.url + "/s") as response:
            body = response.read()
        call = server.journal.last
        call.wait()
    assert len(body) > 2 * BODY_KEPT - 100_000
    assert call.body_bytes == len(body)
    assert bytes(call.body_sent) == body[:BODY_KEPT]
    assert call.events == 40


def test_a_sized_body_keeps_its_first_mib() -> None:
    payload = bytes(range(256)) * (3 * 4096)  # 3 MiB: written in bursts, not in one piece
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/b").reply(mockhttp.ok().body(payload)))
        assert httpx.get(server.url + "/b").content == payload
        call = server.journal.last
        call.wait()
    assert call.body_bytes == len(payload)
    assert bytes(call.body_sent) == payload[:BODY_KEPT]
