"""The admin API under /__mockhttp/, driven over HTTP with httpx as a test in Go would."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

import mockhttp

STREAM_YAML = """\
name: chat
request:
  method: POST
  path: /v1/chat/completions
  body: [jsonpath, $.stream, [equal, true]]
response:
  event_stream:
    events:
      - data: {choices: [{delta: {content: Hi}}]}
      - data: "[DONE]"
"""
MODELS_JSON = (
    '[{"name": "models", "request": {"method": "GET", "path": "/v1/models"},'
    ' "response": {"json": {"data": []}}},'
    ' {"request": {"path": "/v1/health"}, "response": {"status": 204}}]'
)
YAML = {"Content-Type": "application/yaml"}
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def admin() -> Iterator[httpx.Client]:
    """An httpx client on a server with the admin API switched on."""
    with mockhttp.Server(admin=True) as server, httpx.Client(base_url=server.url) as client:
        yield client


def test_add_a_yaml_mock_then_call_it(admin: httpx.Client) -> None:
    """A YAML body adds a mock (201, with its id and document); the mock then answers."""
    added = admin.post("/__mockhttp/mocks", content=STREAM_YAML, headers=YAML)
    assert added.status_code == 201
    [mock] = added.json()["mocks"]
    assert mock["name"] == "chat"
    assert mock["call_count"] == 0
    assert mock["mock"]["request"]["body"] == ["json_path", "$.stream", ["equal", True]]
    answer = admin.post("/v1/chat/completions", json={"stream": True})
    assert answer.text == 'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\ndata: [DONE]\n\n'


def test_add_json_mocks_list_and_count_calls(admin: httpx.Client) -> None:
    """A JSON list adds two mocks; the list and a mock's call count follow the calls."""
    ids = [
        m["id"]
        for m in admin.post("/__mockhttp/mocks", content=MODELS_JSON, headers=JSON).json()["mocks"]
    ]
    assert admin.get("/v1/models").json() == {"data": []}
    assert admin.get("/v1/models").status_code == 200
    listed = admin.get("/__mockhttp/mocks").json()["mocks"]
    assert [m["id"] for m in listed] == ids[::-1]  # most recent first
    assert admin.get(f"/__mockhttp/mocks/{ids[0]}").json()["call_count"] == 2
    assert admin.get("/__mockhttp/mocks/models").json()["id"] == ids[0]
    calls = admin.get("/__mockhttp/mocks/models/calls").json()
    assert calls["call_count"] == 2
    assert calls["calls"][0]["request"]["path"] == "/v1/models"
    assert calls["calls"][0]["status"] == 200


def test_journal_filters_by_mock_and_unmatched(admin: httpx.Client) -> None:
    """The journal lists every request (not admin ones), by mock or the unmatched only."""
    admin.post("/__mockhttp/mocks", content=MODELS_JSON, headers=JSON)
    admin.get("/v1/models")
    admin.get("/v1/health")
    admin.get("/nowhere")
    journal = admin.get("/__mockhttp/journal").json()["calls"]
    assert [c["request"]["path"] for c in journal] == ["/v1/models", "/v1/health", "/nowhere"]
    assert journal[0]["mock_describe"] == "'models'"
    assert journal[2]["mock"] is None
    assert journal[2]["status"] == 404
    models = admin.get("/__mockhttp/journal", params={"mock": "models"}).json()["calls"]
    assert [c["request"]["path"] for c in models] == ["/v1/models"]
    unmatched = admin.get("/__mockhttp/journal", params={"mock": "none"}).json()["calls"]
    assert [c["request"]["path"] for c in unmatched] == ["/nowhere"]


def test_delete_one_mock_then_all(admin: httpx.Client) -> None:
    """DELETE removes one mock by id or name, then every mock; the journal stays."""
    ids = [
        m["id"]
        for m in admin.post("/__mockhttp/mocks", content=MODELS_JSON, headers=JSON).json()["mocks"]
    ]
    admin.get("/v1/models")
    assert admin.delete("/__mockhttp/mocks/models").json()["removed"]["id"] == ids[0]
    assert admin.get("/v1/models").status_code == 404
    assert admin.delete("/__mockhttp/mocks").json() == {"removed": 1}
    assert admin.get("/v1/health").status_code == 404
    assert len(admin.get("/__mockhttp/journal").json()["calls"]) == 3


def test_reset_clears_mocks_and_journal(admin: httpx.Client) -> None:
    """POST reset removes the mocks and empties the journal."""
    admin.post("/__mockhttp/mocks", content=MODELS_JSON, headers=JSON)
    admin.get("/v1/models")
    assert admin.post("/__mockhttp/reset").json() == {"mocks": 0, "journal": 0}
    assert admin.get("/__mockhttp/mocks").json() == {"mocks": []}
    assert admin.get("/__mockhttp/journal").json() == {"calls": []}


def test_a_bad_mock_file_is_a_400_with_its_location(admin: httpx.Client) -> None:
    """A body that does not load adds nothing and answers where and why."""
    bad = STREAM_YAML.replace("[equal, true]", "[equals, true]")
    answer = admin.post("/__mockhttp/mocks", content=bad, headers=YAML)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["type"] == "mockfile_error"
    assert error["message"].startswith(
        "request body:5:31 at request.body[2][0]: unknown matcher 'equals' — did you mean 'equal'?"
    )
    assert (error["line"], error["column"], error["path"]) == (5, 31, "request.body[2][0]")
    assert admin.get("/__mockhttp/mocks").json() == {"mocks": []}


def test_unknown_endpoints_mocks_and_methods(admin: httpx.Client) -> None:
    """Unknown paths under the prefix are 404, a wrong method 405 with Allow."""
    assert admin.get("/__mockhttp/nope").json()["error"]["type"] == "unknown_endpoint"
    missing = admin.get("/__mockhttp/mocks/42")
    assert missing.status_code == 404
    assert missing.json()["error"]["message"] == "no mock with id or name '42'"
    wrong = admin.put("/__mockhttp/mocks")
    assert wrong.status_code == 405
    assert wrong.headers["allow"] == "GET, POST, DELETE"
    assert "POST /__mockhttp/mocks" in admin.get("/__mockhttp/").json()["endpoints"]


def test_python_mocks_are_listed_too() -> None:
    """Mocks added in Python show up in the list, with their file form."""
    with mockhttp.Server(admin=True) as server:
        server.mock(mockhttp.get("/py", name="py").reply(mockhttp.ok().body("x")))
        server.mock(mockhttp.get("/bin").reply(mockhttp.ok().body(b"\xff")))
        listed = httpx.get(server.url + "/__mockhttp/mocks").json()["mocks"]
    assert listed[0]["mock"] is None  # a binary body has no file form
    assert listed[1]["mock"]["response"]["body"] == "x"


def test_the_admin_api_is_off_by_default(server: mockhttp.Server) -> None:
    """Without admin=True the prefix is an ordinary path, unmatched here."""
    assert httpx.get(server.url + "/__mockhttp/mocks").status_code == 404
    server.reset()


def test_unknown_refs_are_404_everywhere(admin: httpx.Client) -> None:
    """Deleting, reading calls of, or filtering the journal by an unknown mock is a 404."""
    for answer in (
        admin.delete("/__mockhttp/mocks/ghost"),
        admin.get("/__mockhttp/mocks/ghost/calls"),
        admin.get("/__mockhttp/journal", params={"mock": "ghost"}),
    ):
        assert answer.status_code == 404
        assert answer.json()["error"] == {
            "type": "unknown_mock",
            "message": "no mock with id or name 'ghost'",
        }


def test_names_with_spaces_are_percent_decoded(admin: httpx.Client) -> None:
    """A mock named with a space is found by its percent-encoded name."""
    admin.post("/__mockhttp/mocks", content="name: my mock\nrequest: {path: /m}\n", headers=YAML)
    assert admin.get("/__mockhttp/mocks/my%20mock").json()["name"] == "my mock"


AUTH_YAML = """\
- request: {method: POST, path: /login}
  scenario: {name: auth, next_state: in}
  response: {status: 200, body: welcome}
- request: {method: GET, path: /me}
  scenario: {name: auth, state: in}
  response: {status: 200, body: me}
"""


def test_put_a_scenarios_state_moves_it(admin: httpx.Client) -> None:
    """``PUT /__mockhttp/scenarios/{name}/state`` with ``{"state": S}`` (WireMock's form)."""
    assert admin.post("/__mockhttp/mocks", content=AUTH_YAML, headers=YAML).status_code == 201
    assert admin.get("/me").status_code == 404
    moved = admin.put("/__mockhttp/scenarios/auth/state", json={"state": "in"})
    assert (moved.status_code, moved.json()) == (200, {"scenario": "auth", "state": "in"})
    assert admin.get("/me").text == "me"
    assert admin.get("/__mockhttp/scenarios").json() == {"scenarios": {"auth": "in"}}
    assert "PUT /__mockhttp/scenarios/{name}/state" in admin.get("/__mockhttp/").text


def test_put_a_tests_scenario_state_moves_that_tests_alone(admin: httpx.Client) -> None:
    """By ``?test=`` or the test header; a test's ``GET scenarios`` lists the shared
    mocks' scenarios too (its requests meet them)."""
    assert admin.post("/__mockhttp/mocks", content=AUTH_YAML, headers=YAML).status_code == 201
    by_query = admin.put("/__mockhttp/scenarios/auth/state?test=a", json={"state": "in"})
    assert by_query.status_code == 200, by_query.text
    by_header = admin.put(
        "/__mockhttp/scenarios/auth/state", json={"state": "in"}, headers={"x-mockhttp-test": "b"}
    )
    assert by_header.status_code == 200, by_header.text
    assert admin.get("/me", headers={"x-mockhttp-test": "a"}).text == "me"
    assert admin.get("/__test/b/me").text == "me"
    assert admin.get("/me", headers={"x-mockhttp-test": "c"}).status_code == 404
    assert admin.get("/me").status_code == 404
    assert admin.get("/__mockhttp/scenarios?test=a").json() == {"scenarios": {"auth": "in"}}
    assert admin.get("/__mockhttp/scenarios?test=c").json() == {"scenarios": {"auth": "Started"}}


@pytest.mark.parametrize(
    ("body", "headers", "code", "said"),
    [
        (b'{"state": "in"}', JSON, 404, "unknown scenario 'auht' — did you mean 'auth'?"),
        (b'{"stat": "in"}', JSON, 400, 'expected {"state": "..."}'),
        (b'{"state": ""}', JSON, 400, "\"state\": '' must be a non-empty text"),
        (b'{"state": 3}', JSON, 400, '"state": 3 must be a non-empty text'),
        (b"state: in", YAML, 400, "the body is not JSON"),
        (b"", JSON, 400, 'the body is None; expected {"state": "..."}'),
        (b'{"state": "in"}', {"Content-Type": "text/plain"}, 415, "send application/json"),
    ],
    ids=["unknown-name", "unknown-key", "empty", "number", "yaml", "no-body", "text-plain"],
)
def test_a_bad_scenario_state_request_says_why(
    admin: httpx.Client, body: bytes, headers: dict[str, str], code: int, said: str
) -> None:
    assert admin.post("/__mockhttp/mocks", content=AUTH_YAML, headers=YAML).status_code == 201
    name = "auht" if code == 404 else "auth"
    got = admin.put(f"/__mockhttp/scenarios/{name}/state", content=body, headers=headers)
    assert got.status_code == code, got.text
    assert said in got.json()["error"]["message"]
    assert admin.get("/__mockhttp/scenarios").json() == {"scenarios": {"auth": "Started"}}
