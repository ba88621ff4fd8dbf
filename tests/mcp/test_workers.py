"""``mockhttp serve --workers 2`` with an MCP server: its sessions and its tools' script
places are kept by the supervisor (``_core/_kept.py``), so a session initialized through
one worker is known to the other, and a tool's answers go on in order whichever worker
takes the call (wire: real processes, a fresh connection per request: the kernel hands
each to one worker or the other; the journal says which)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers.cli_process import Serving

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT spreading: Linux"
)

FILE = textwrap.dedent(
    """\
    request: {path: /mcp}
    response:
      mcp:
        tools:
          - name: get_weather
            answers: [Sunny, Rain, Snow]
    """
)
ACCEPT = {"Accept": "application/json, text/event-stream"}
TRIES = 40  # fresh connections: both workers take one of them but 1 time in 2**39


def rpc(method: str, id_: int | None = None, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    return message if id_ is None else {**message, "id": id_}


def post(url: str, message: dict[str, Any], session: str | None = None) -> httpx.Response:
    """One POST on a connection of its own."""
    headers = ACCEPT if session is None else {**ACCEPT, "Mcp-Session-Id": session}
    return httpx.post(url + "/mcp", json=message, headers=headers, timeout=30)


def workers_of(url: str, method: str) -> list[int]:
    """Which worker answered each call of ``method``, in order (the journal)."""
    calls = httpx.get(url + "/__mockhttp/journal", timeout=30).json()["calls"]
    return [
        c["worker"]
        for c in calls
        if c["request"]["method"] == "POST" and json.loads(c["request"]["body"])["method"] == method
    ]


def test_a_session_and_a_tools_answers_are_every_workers(tmp_path: Path) -> None:
    mocks = tmp_path / "mcp.yaml"
    mocks.write_text(FILE)
    with Serving(str(mocks), "--workers", "2", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        url = serving.url
        init = rpc("initialize", 1, protocolVersion="2025-06-18", capabilities={})
        started = post(url, init)
        assert started.status_code == 200, started.text
        session = started.headers["mcp-session-id"]
        assert post(url, rpc("notifications/initialized"), session).status_code == 202
        (first,) = workers_of(url, "initialize")

        for n in range(TRIES):  # until the other worker listed the tools
            listed = post(url, rpc("tools/list", 10 + n), session)
            assert listed.status_code == 200, listed.text
            assert [t["name"] for t in listed.json()["result"]["tools"]] == ["get_weather"]
            if set(workers_of(url, "tools/list")) == {0, 1}:
                break
        assert set(workers_of(url, "tools/list")) == {0, 1}
        assert first in (0, 1)

        texts = []
        for n in range(TRIES):  # a tool's answers in order, whichever worker answers
            call = post(url, rpc("tools/call", 100 + n, name="get_weather", arguments={}), session)
            texts.append(call.json()["result"]["content"][0]["text"])
            if n >= 2 and set(workers_of(url, "tools/call")) == {0, 1}:
                break
        assert set(workers_of(url, "tools/call")) == {0, 1}
        assert texts == ["Sunny", "Rain", *["Snow"] * (len(texts) - 2)]

        assert httpx.delete(url + "/mcp", headers={"Mcp-Session-Id": session}).status_code == 200
        for n in range(4):  # ended for every worker
            gone = post(url, rpc("tools/list", 1000 + n), session)
            assert gone.status_code == 404, gone.text
