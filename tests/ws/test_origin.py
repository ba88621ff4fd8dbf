"""The Origin policy of WebSocket endpoints (ws/_kind.py Rule 4) and serve --allow-origin."""

from __future__ import annotations

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

import mockhttp
from mockhttp import ConfigError, llm, ws


def _open(port: int, origin: str | None, path: str = "/ws") -> str:
    headers = {} if origin is None else {"Origin": origin}
    with connect(f"ws://127.0.0.1:{port}{path}", additional_headers=headers) as client:
        return str(client.recv(timeout=10))


@pytest.mark.parametrize(
    "origin",
    [
        None,
        "http://127.0.0.1:3000",
        "http://localhost:5173",
        "http://app.localhost",
        "http://[::1]:8080",
    ],
)
def test_no_origin_and_loopback_pages_are_answered(origin: str | None) -> None:
    with mockhttp.Server() as server:
        server.mock(ws.websocket(ws.send("hi")).mock("/ws"))
        assert _open(server.port, origin) == "hi"


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "file://"])
def test_another_sites_page_gets_403(origin: str) -> None:
    with mockhttp.Server() as server:
        endpoint = ws.websocket(ws.send("hi"))
        server.mock(endpoint.mock("/ws"))
        with pytest.raises(InvalidStatus) as refused:
            _open(server.port, origin)
        assert refused.value.response.status_code == 403
        assert b"allow_origins (--allow-origin)" in refused.value.response.body
        assert endpoint.sessions == []


def test_allow_origins_lets_a_page_in_and_star_lets_all() -> None:
    with mockhttp.Server() as server:
        server.mock(ws.websocket(ws.send("a"), allow_origins=["https://app.example"]).mock("/a"))
        server.mock(llm.openai_realtime(allow_origins=["*"]).mock())
        assert _open(server.port, "https://app.example/", "/a") == "a"
        with pytest.raises(InvalidStatus):
            _open(server.port, "https://other.example", "/a")
        assert '"session.created"' in _open(server.port, "https://any.example", "/v1/realtime")


def test_allowing_widens_websocket_endpoints_only() -> None:
    plain = mockhttp.get("/x").reply(mockhttp.ok())
    socket = ws.websocket(ws.send("a"), allow_origins=["https://a.example"]).mock("/a")
    out = ws.allowing([plain, socket], ["https://b.example"])
    assert out[0] is plain
    assert isinstance(out[1].kind, ws.WebSocket)
    assert out[1].kind.allow_origins == ("https://a.example", "https://b.example")
    assert ws.allowing([plain], []) == [plain]


def test_bad_allow_origins_and_the_file_form() -> None:
    with pytest.raises(ConfigError, match="list of origins"):
        ws.websocket(allow_origins="https://a.example")
    with pytest.raises(ConfigError, match="must hold origins"):
        ws.websocket(allow_origins=[""])
    (mock,) = mockhttp.loads(
        "- request: {method: GET, path: /ws}\n"
        "  response: {websocket: {script: [{send: hi}], allow_origins: [https://a.example]}}\n"
    )
    assert isinstance(mock.kind, ws.WebSocket)
    assert mock.kind.allow_origins == ("https://a.example",)
    assert mock.kind.to_args()["allow_origins"] == ["https://a.example"]


def test_serve_allow_origin_widens_websocket_and_mcp_endpoints() -> None:
    from mockhttp import mcp
    from mockhttp._cli._main import _widened

    socket = ws.websocket(ws.send("a")).mock("/a")
    out = _widened([socket, mcp.server()], [], ["https://b.example"])
    assert isinstance(out[0].kind, ws.WebSocket)
    assert out[0].kind.allow_origins == ("https://b.example",)
    assert isinstance(out[1].kind, mcp.McpServer)
    assert out[1].kind.allow_origins == ("https://b.example",)
