"""Everyday mistakes get a clear error, and everyday wishes work."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import match


def test_a_query_in_the_path_is_refused_pointing_to_query() -> None:
    with pytest.raises(mockhttp.ConfigError) as raised:
        mockhttp.get("/v1/models?limit=10")
    assert ".query(name, value)" in str(raised.value)
    assert "'/v1/models'" in str(raised.value)
    with pytest.raises(mockhttp.MockfileError) as in_file:  # the YAML user's words
        mockhttp.loads("request: {path: '/v1/models?limit=10'}\n")
    assert "request.path: " in str(in_file.value)
    assert 'write path: /v1/models and query: {limit: "10"}' in str(in_file.value)


def test_matchers_see_every_value_of_a_repeated_query_parameter(server: mockhttp.Server) -> None:
    tagged = server.mock(mockhttp.get("/items", name="b").query("tag", match.contains("b")))
    once = server.mock(mockhttp.get("/items", name="one").query("tag", "a"))
    assert httpx.get(server.url + "/items?tag=a&tag=b").status_code == 200
    assert httpx.get(server.url + "/items?tag=a").status_code == 200
    assert (tagged.call_count, once.call_count) == (1, 1)
    both = mockhttp.get("/items").query("tag", ["a", "b"])
    assert both.matches(mockhttp.Request("GET", "/items?tag=a&tag=b"))


def test_url_before_start_raises() -> None:
    server = mockhttp.Server()
    with pytest.raises(mockhttp.ServerError, match=r"call server.start\(\) first"):
        server.url  # noqa: B018
    with server:
        assert server.url.startswith("http://127.0.0.1:")
        assert not server.url.endswith(":0")


def test_respond_with_gets_the_path_template_values(server: mockhttp.Server) -> None:
    def by_id(request: mockhttp.Request, id: str) -> mockhttp.Reply:
        return mockhttp.ok().json({"id": id, "path": request.path})

    def any_params(request: mockhttp.Request, **params: str) -> mockhttp.Reply:
        return mockhttp.ok().json(params)

    server.mock(mockhttp.get("/v1/files/{id}").respond_with(by_id))
    server.mock(mockhttp.get("/v1/{kind}/{id}/raw").respond_with(any_params))
    server.mock(mockhttp.get("/v1/plain/{id}").respond_with(lambda r: mockhttp.ok().body(r.path)))
    assert httpx.get(server.url + "/v1/files/f-1").json() == {"id": "f-1", "path": "/v1/files/f-1"}
    assert httpx.get(server.url + "/v1/x/9/raw").json() == {"kind": "x", "id": "9"}
    assert httpx.get(server.url + "/v1/plain/3").text == "/v1/plain/3"
    server.check()


def test_server_mock_takes_several_mocks(server: mockhttp.Server, tmp_path) -> None:
    both = server.mock(mockhttp.get("/a"), mockhttp.get("/b"))
    assert [m.mock.path for m in both] == ["/a", "/b"]
    (tmp_path / "m.yaml").write_text("request: {path: /c}\n---\nrequest: {path: /d}\n")
    loaded = server.mock(mockhttp.load(tmp_path))
    assert [m.mock.path for m in loaded] == ["/c", "/d"]
    assert len(list(server.mocks)) == 4
    assert isinstance(server.mock(mockhttp.get("/e")), mockhttp.ActiveMock)
    assert server.mock([]) == []
    bad: list[Any] = [mockhttp.get("/f"), "nope"]
    with pytest.raises(mockhttp.ConfigError, match="must be a Mock"):
        server.mock(bad)
    assert len(server.mocks) == 5
    for path in "abcde":
        assert httpx.get(f"{server.url}/{path}").status_code == 200
