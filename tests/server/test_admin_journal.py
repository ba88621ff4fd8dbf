"""The admin API's journal: count without a mock, clear, unique names, why a miss missed."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import httpx
import pytest

import mockhttp


@pytest.fixture
def admin() -> Iterator[httpx.Client]:
    with (
        mockhttp.Server(admin=True) as server,
        httpx.Client(base_url=server.url, headers={"Content-Type": "application/yaml"}) as client,
    ):
        yield client


def test_count_requests_matching_a_pattern_without_adding_a_mock(admin: httpx.Client) -> None:
    admin.post("/__mockhttp/mocks", content="request: {path: /v1/chat}\n")
    admin.post("/v1/chat", json={"model": "a"})
    admin.post("/v1/chat", json={"model": "b"})
    admin.get("/v1/other")
    pattern = "request: {method: POST, path: /v1/chat, body: [json_path, $.model, b]}\n"
    counted = admin.post("/__mockhttp/requests/count", content=pattern)
    exact = {"exact": True, "dropped": 0}  # no call has left the journal
    assert (counted.status_code, counted.json()) == (200, {"count": 1, **exact})
    everything = admin.post("/__mockhttp/requests/count", content="request: {}\n")
    assert everything.json() == {"count": 3, **exact}
    assert len(admin.get("/__mockhttp/mocks").json()["mocks"]) == 1
    two = admin.post("/__mockhttp/requests/count", content="request: {}\n---\nrequest: {}\n")
    assert two.status_code == 400
    assert "expected one request pattern" in two.json()["error"]["message"]


def test_clear_the_journal_and_keep_the_mocks(admin: httpx.Client) -> None:
    admin.post("/__mockhttp/mocks", content="name: m\nrequest: {path: /a}\n")
    admin.get("/a")
    admin.get("/b")
    cleared = admin.delete("/__mockhttp/journal")
    assert (cleared.status_code, cleared.json()) == (200, {"cleared": 2})
    assert admin.get("/__mockhttp/journal").json() == {"calls": []}
    (mock,) = admin.get("/__mockhttp/mocks").json()["mocks"]
    assert (mock["name"], mock["call_count"]) == ("m", 0)


def test_duplicate_mock_names_are_refused(admin: httpx.Client) -> None:
    first = admin.post("/__mockhttp/mocks", content="name: chat\nrequest: {path: /a}\n")
    assert first.status_code == 201
    again = admin.post("/__mockhttp/mocks", content="name: chat\nrequest: {path: /b}\n")
    assert again.status_code == 409
    error = again.json()["error"]
    assert (error["type"], error["name"]) == ("duplicate_name", "chat")
    assert "is already registered" in error["message"]
    twice = admin.post(
        "/__mockhttp/mocks",
        content="name: x\nrequest: {path: /a}\n---\nname: x\nrequest: {path: /b}\n",
    )
    assert twice.status_code == 400  # a mock file error, at both places
    error = twice.json()["error"]
    assert (error["type"], error["line"], error["column"], error["path"]) == (
        "mockfile_error",
        4,
        7,
        "name",
    )
    assert "a mock named 'x' is already defined at request body:1:7" in error["message"]
    assert [m["name"] for m in admin.get("/__mockhttp/mocks").json()["mocks"]] == ["chat"]


def test_journal_entries_carry_a_time_and_misses_their_explanation(admin: httpx.Client) -> None:
    admin.post("/__mockhttp/mocks", content="name: models\nrequest: {path: /v1/models}\n")
    admin.get("/v1/models/")
    admin.get("/v1/models")
    miss, hit = admin.get("/__mockhttp/journal").json()["calls"]
    now = datetime.now(timezone.utc)
    for call in (miss, hit):
        when = datetime.fromisoformat(call["time"])
        assert now - timedelta(seconds=30) < when <= now
    assert "explanation" not in hit
    explanation = miss["explanation"]
    assert explanation["message"].startswith("no mock matched GET /v1/models/\n")
    assert explanation["closest"][0]["differences"][0]["field"] == "path"
    only = admin.get("/__mockhttp/journal", params={"mock": "none"}).json()["calls"]
    assert [c["explanation"]["closest"][0]["name"] for c in only] == ["models"]


def test_scenarios_over_the_admin_api(admin: httpx.Client) -> None:
    admin.post(
        "/__mockhttp/mocks",
        content="request: {path: /a}\nscenario: {name: s, state: Started, next_state: two}\n",
    )
    assert admin.get("/__mockhttp/scenarios").json() == {"scenarios": {"s": "Started"}}
    admin.get("/a")
    assert admin.get("/__mockhttp/scenarios").json() == {"scenarios": {"s": "two"}}
    reset = admin.post("/__mockhttp/scenarios/reset")  # answers as GET scenarios does
    assert (reset.status_code, reset.json()) == (200, {"scenarios": {"s": "Started"}})
    assert admin.get("/a").status_code == 200


def test_the_journal_shows_headers_and_query_as_mappings_of_lists(admin: httpx.Client) -> None:
    """JS and Go read ``headers["x-tag"]`` without pairing by hand; the pairs stay too."""
    headers = [("X-Tag", "one"), ("x-tag", "two"), ("Accept", "*/*")]
    admin.get("/v1/items?tag=a&tag=b&q=", headers=headers)
    [call] = admin.get("/__mockhttp/journal").json()["calls"]
    request = call["request"]
    assert request["headers"]["x-tag"] == ["one", "two"]
    assert request["headers"]["accept"] == ["*/*"]
    assert ["X-Tag", "one"] in request["header_pairs"]
    assert request["header_pairs"].index(["X-Tag", "one"]) + 1 == request["header_pairs"].index(
        ["x-tag", "two"]
    )
    assert request["query"] == {"tag": ["a", "b"], "q": [""]}
    assert request["query_pairs"] == [["tag", "a"], ["tag", "b"], ["q", ""]]


def test_the_journal_gives_binary_bodies_as_base64_and_text_as_text(admin: httpx.Client) -> None:
    """A body that is not UTF-8 comes back byte for byte, never with U+FFFD."""
    binary = bytes(range(256))
    admin.post("/upload", content=binary, headers={"Content-Type": "application/octet-stream"})
    admin.post("/text", content="héllo".encode(), headers={"Content-Type": "text/plain"})
    admin.get("/empty")
    first, second, third = admin.get("/__mockhttp/journal").json()["calls"]
    assert first["request"]["body_encoding"] == "base64"
    assert base64.b64decode(first["request"]["body"]) == binary
    assert (second["request"]["body"], second["request"]["body_encoding"]) == ("héllo", "utf-8")
    assert (third["request"]["body"], third["request"]["body_encoding"]) == ("", "utf-8")
    assert "dropped" not in first
