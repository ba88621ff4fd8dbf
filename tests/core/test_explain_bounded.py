"""Explanations of a miss: bounded, pointed, ranked field by field, and kept."""

from __future__ import annotations

import httpx
import pytest

import mockhttp
from mockhttp import match
from mockhttp._core._explain import explain


def test_a_long_prompt_is_cut_with_its_length(server: mockhttp.Server) -> None:
    """A 200 KB prompt makes a short 404 and a short check() message, not 600 KB."""
    server.mock(mockhttp.post("/v1/chat", name="chat").body(match.equal("short")))
    server.mock(mockhttp.post("/v1/chat", name="json").body(match.json_equal({"a": 1})))
    prompt = "x" * 200_000
    text = httpx.post(server.url + "/v1/chat", content=prompt.encode()).text
    assert len(text) < 2_000, len(text)
    assert "… (200,000 chars)" in text
    as_json = httpx.post(
        server.url + "/v1/chat",
        json={"messages": [{"content": prompt}]},
        headers={"Accept": "application/json"},
    )
    assert len(as_json.content) < 6_000, len(as_json.content)
    error = as_json.json()["error"]
    assert error["request"]["body_cut"] == "the first 1000 of 200,029 characters"
    with pytest.raises(mockhttp.UnmatchedRequestError) as raised:
        server.check()
    assert len(str(raised.value)) < 4_000


def test_json_equal_names_each_differing_path_with_both_values() -> None:
    expected = {"model": "gpt", "messages": [{"role": "user", "content": "hi"}], "n": 1}
    mock = mockhttp.post("/c").body(match.json_equal(expected))
    body = {"model": "gpt", "messages": [{"role": "user", "content": "hello"}], "stream": True}
    request = mockhttp.Request("POST", "/c", body=httpx.Request("POST", "/", json=body).content)
    (diff,) = mock.differences(request)
    assert diff.reason == (
        "$.messages[0].content: got 'hello', expected 'hi'; "
        "$.n: got nothing (absent), expected 1; "
        "$.stream: got true, expected it absent"
    )
    many = mockhttp.post("/c").body(match.json_equal({f"k{i}": i for i in range(8)}))
    (diff,) = many.differences(mockhttp.Request("POST", "/c", body=b"{}"))
    assert diff.reason.endswith("$.k4: got nothing (absent), expected 4; and 3 more differences")


def test_the_closest_mock_is_ranked_by_how_close_the_path_came() -> None:
    """A trailing slash ranks the chat mock first, not another POST mock."""
    chat = mockhttp.post("/v1/chat/completions", name="chat").body(
        match.json_path("$.model", match.exists())
    )
    embeddings = mockhttp.post("/v1/embeddings", name="embeddings")
    for mocks in ([chat, embeddings], [embeddings, chat]):
        found = explain(
            mockhttp.Request("POST", "/v1/chat/completions/", body=b'{"model": "m"}'), mocks
        )
        assert found.closest[0]["name"] == "chat"
        assert found.line == (
            "closest: 'chat', path: got '/v1/chat/completions/', expected '/v1/chat/completions'"
        )
        # the path ranks first, even when the body differs too
        body_too = explain(mockhttp.Request("POST", "/v1/chat/completions/", body=b"{}"), mocks)
        assert [c["name"] for c in body_too.closest] == ["chat", "embeddings"]


def test_unmatched_calls_keep_their_explanation_and_every_call_its_time(
    server: mockhttp.Server,
) -> None:
    import time

    server.mock(mockhttp.get("/v1/models", name="models"))
    before = time.time()
    httpx.get(server.url + "/v1/model")
    httpx.get(server.url + "/v1/models")
    miss, hit = server.journal
    assert miss.explanation is not None
    assert str(miss.explanation).startswith("no mock matched GET /v1/model\n  closest: mock")
    assert hit.explanation is None
    assert before <= miss.time <= hit.time <= time.time()


def test_many_mocks_still_rank_the_nearest_first() -> None:
    # past COMPARED mocks, a rough key picks which are compared field by field
    from mockhttp import Mock, Request
    from mockhttp._core._explain import COMPARED, explain

    mocks = [Mock(method="GET", path=f"/items/{n}") for n in range(COMPARED * 10)]
    mocks.append(Mock(method="GET", path="/items/needle"))
    report = explain(Request("POST", "/items/needle"), mocks)
    assert report.closest[0]["mock"] == "GET /items/needle"
    assert report.total == COMPARED * 10 + 1
