"""A real Chromium ``WebSocket`` over wss:// (Chromium trusting exactly the run's
certificate), against the same script as test_chromium_ws.py."""

from __future__ import annotations

from typing import Any

import pytest

import mockhttp

from .test_chromium_ws import PAGE, check, endpoint, talk

pytest.importorskip("trustme")


def test_chromium_talks_to_a_websocket_mock_over_tls(chromium_tls: Any, certs: Any) -> None:
    page = mockhttp.ok().header("Content-Type", "text/html; charset=utf-8").body(PAGE)
    with (
        mockhttp.Server(tls=str(certs.folder)) as site,
        mockhttp.Server(tls=str(certs.folder)) as api,
    ):
        site.mock(mockhttp.get("/").reply(page))
        chat = endpoint()
        api.mock(chat.mock("/ws"))
        got = talk(chromium_tls, site, f"wss://127.0.0.1:{api.port}/ws")
        check(got, chat, site.url.rstrip("/"))
