"""The same two browser scenarios over https: a fetch stream after a preflight, and an
EventSource resumed after Last-Event-ID, with Chromium trusting exactly the run's server
certificate (``--ignore-certificate-errors-spki-list``: no ``ignore_https_errors``)."""

from __future__ import annotations

from typing import Any

import pytest

import mockhttp
from mockhttp import Event, fault, llm

from .test_chromium import EVENT_SOURCE, FETCH_STREAM, PAGE, _content, _on_page

pytest.importorskip("trustme")


def _site(certs: Any) -> mockhttp.Server:
    site = mockhttp.Server(tls=str(certs.folder))
    page = mockhttp.ok().header("Content-Type", "text/html; charset=utf-8").body(PAGE)
    site.mock(mockhttp.get("/").reply(page))
    return site


def test_fetch_reads_an_llm_stream_over_https(chromium_tls: Any, certs: Any) -> None:
    with _site(certs) as site, mockhttp.Server(cors=True, tls=str(certs.folder)) as api:
        assert site.url.startswith("https://")
        assert api.url.startswith("https://")
        reply = llm.openai_chat("Hello over TLS")
        mock = api.mock(mockhttp.post("/v1/chat/completions").reply(reply))
        got = _on_page(chromium_tls, site, FETCH_STREAM, api.url_for("/v1/chat/completions"))
        assert got["status"] == 200
        assert _content(got["text"]) == "Hello over TLS"
        assert len(api.preflights) == 1
        [call] = mock.calls
        assert call.request.headers["authorization"] == "Bearer sk-test"
        api.check()


def test_event_source_resumes_over_https(chromium_tls: Any, certs: Any) -> None:
    with _site(certs) as site, mockhttp.Server(cors=True, tls=str(certs.folder)) as api:
        events = [Event(data=f"token {i}") for i in range(1, 6)]
        reply = mockhttp.ok().event_stream(*events, resumable=True, retry=300, event_delay=0.1)
        cut = fault.first(1, fault.close_after_events(2))
        mock = api.mock(mockhttp.get("/events").reply(reply).pipe(cut))
        got = _on_page(chromium_tls, site, EVENT_SOURCE, api.url_for("/events"))
        assert got == [[str(i), f"token {i}"] for i in range(1, 6)]
        first, second = mock.calls
        assert second.wait() == "complete"
        assert (first.event_ids, first.outcome) == (["1", "2"], "closed")
        assert (second.last_event_id, second.event_ids) == ("2", ["3", "4", "5"])
        mock.assert_resumed()
