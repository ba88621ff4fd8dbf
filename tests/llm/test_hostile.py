"""mockhttp.llm replies to hostile request bodies, on the wire with httpx."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import llm


def _shape(response: httpx.Response) -> tuple[int, str, Any]:
    """What a reply says, without its random ids and times."""
    body = response.json()
    return response.status_code, response.headers["content-type"], body["choices"]


@pytest.mark.parametrize("depth", [1_000, 5_000, 100_000])
def test_a_body_nested_too_deep_is_treated_as_not_json(server: mockhttp.Server, depth: int) -> None:
    """A JSON body nested ~1,000 levels deep got a 500 (a RecursionError in server.errors);
    it is answered as a body that is not JSON is: as if it were empty."""
    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hello there")))
    url = server.url + "/v1/chat/completions"
    not_json = httpx.post(url, content=b"{not json", headers={"content-type": "application/json"})
    deep = (
        b'{"model": "gpt-deep", "stream": true, "messages": ' + b"[" * depth + b"]" * depth + b"}"
    )
    response = httpx.post(url, content=deep, headers={"content-type": "application/json"})
    assert server.errors == []
    assert response.status_code == 200
    assert _shape(response) == _shape(not_json)
    assert response.json()["model"] == not_json.json()["model"] != "gpt-deep"
    server.check()
