"""Live ``mockhttp check`` of the Responses API and Gemini, and ``--request FILE``.

Against the built-in mocks (they pass) and broken mocks (they fail with the rule named),
over loopback, through the real command line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

import mockhttp
from mockhttp import match
from mockhttp._cli._serve import DEFAULTS
from mockhttp.contract.__main__ import main
from tests.helpers.contract_streams import RESPONSES

GEMINI_NO_USAGE = Path(__file__).parent.parent / "data" / "contract" / "gemini-no-usage.sse"
STREAM = match.json_path("$.stream", match.equal(True))


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """Run ``mockhttp check`` in this process (a subprocess costs a second of imports)."""

    def run(*args: str) -> Result:
        code = main(list(args))
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run


@pytest.fixture
def defaults(server: mockhttp.Server) -> mockhttp.Server:
    """The server with the built-in mocks (``mockhttp serve --defaults``'s)."""
    for mock in mockhttp.load(DEFAULTS):
        server.mock(mock)
    return server


@pytest.mark.parametrize(
    ("profile", "rules"), [("openai-responses", 22), ("gemini", 16), ("openai-chat", 40)]
)
def test_built_in_mocks_pass_live(
    run_cli: Callable[..., Result], defaults: mockhttp.Server, profile: str, rules: int
) -> None:
    """Each API's built-in mock passes its live check: exit 0, every rule passed."""
    result = run_cli(defaults.url, "--model", "m", "--profile", profile, "--api-key", "k")
    assert (result.returncode, result.stderr) == (0, ""), result.stdout
    assert f"pass       {profile}: {rules} rules checked" in result.stdout


def test_live_responses_sends_both_modes(
    run_cli: Callable[..., Result], defaults: mockhttp.Server
) -> None:
    """POST /v1/responses buffered, then streamed; the key as a bearer token."""
    result = run_cli(defaults.url + "/v1", "--model", "gpt-x", "--profile", "openai-responses",
                     "--api-key", "sk-r", "--json")  # fmt: skip
    assert result.returncode == 0, result.stdout
    calls = list(defaults.journal)
    assert [(c.request.path, c.request.json()["stream"]) for c in calls] == [
        ("/v1/responses", False),
        ("/v1/responses", True),
    ]
    assert calls[0].request.json()["input"].startswith("Count from one to five")
    assert {c.request.headers["authorization"] for c in calls} == {"Bearer sk-r"}


def test_live_gemini_key_in_a_header_not_the_query(
    run_cli: Callable[..., Result], defaults: mockhttp.Server
) -> None:
    """:generateContent, then :streamGenerateContent?alt=sse; x-goog-api-key, no ?key=."""
    result = run_cli(defaults.url, "--model", "gemini-x", "--profile", "gemini", "--api-key", "g1")
    assert result.returncode == 0, result.stdout
    calls = list(defaults.journal)
    assert [(c.request.path, c.request.query) for c in calls] == [
        ("/v1beta/models/gemini-x:generateContent", ()),
        ("/v1beta/models/gemini-x:streamGenerateContent", (("alt", "sse"),)),
    ]
    assert {c.request.headers["x-goog-api-key"] for c in calls} == {"g1"}
    assert all("authorization" not in c.request.headers for c in calls)
    assert "g1" not in result.stdout


def test_live_gemini_url_naming_the_endpoint(
    run_cli: Callable[..., Result], defaults: mockhttp.Server
) -> None:
    """A URL that names the endpoint keeps its path and swaps the method per exchange."""
    url = defaults.url + "/v1/models/g:streamGenerateContent?alt=sse"
    result = run_cli(url, "--model", "ignored", "--profile", "gemini")
    assert result.returncode == 0, result.stdout
    assert [c.request.path for c in defaults.journal] == [
        "/v1/models/g:generateContent",
        "/v1/models/g:streamGenerateContent",
    ]


def test_broken_responses_stream_fails_with_the_rule(
    run_cli: Callable[..., Result], defaults: mockhttp.Server
) -> None:
    """A Responses stream cut before response.completed: exit 1, responses.terminal named."""
    defaults.mock(
        mockhttp.post("/v1/responses")
        .body(STREAM)
        .reply(mockhttp.ok().event_stream(*RESPONSES[:-1]))
    )
    result = run_cli(defaults.url, "--model", "m", "--profile", "openai-responses")
    assert result.returncode == 1
    assert re.search(r"^violation  responses\.terminal ", result.stdout, re.M), result.stdout


def test_broken_gemini_stream_fails_with_the_rule(
    run_cli: Callable[..., Result], defaults: mockhttp.Server
) -> None:
    """A Gemini stream whose last event has no usageMetadata: exit 1, gemini.usage named."""
    body = GEMINI_NO_USAGE.read_bytes()
    defaults.mock(
        mockhttp.post(match.regex(r":streamGenerateContent$"))
        .reply(mockhttp.ok().header("content-type", "text/event-stream").body(body))
    )  # fmt: skip
    result = run_cli(defaults.url, "--model", "m", "--profile", "gemini")
    assert result.returncode == 1
    assert re.search(r"^violation  gemini\.usage ", result.stdout, re.M), result.stdout


def test_failed_buffered_request_is_buffered_received(
    run_cli: Callable[..., Result], defaults: mockhttp.Server
) -> None:
    """The stream passes but :generateContent answers 500: buffered.received names it."""
    defaults.mock(
        mockhttp.post(match.regex(r":generateContent$")).reply(mockhttp.status(500).json({}))
    )
    result = run_cli(defaults.url, "--model", "m", "--profile", "gemini", "--json")
    assert result.returncode == 1
    findings = [f for e in json.loads(result.stdout)["exchanges"] for f in e["findings"]]
    assert [(f["rule"], f["message"]) for f in findings] == [
        ("buffered.received", "the buffered request got status 500: {}")
    ]


TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]


def test_request_file_is_the_base_of_every_request(
    run_cli: Callable[..., Result], defaults: mockhttp.Server, tmp_path: Path
) -> None:
    """--request FILE: the user's tools and provider fields in every request; the stream
    flag (and stream_options) set per exchange by the check; --model wins."""
    mine = {
        "model": "from-file",
        "messages": [{"role": "user", "content": "weather?"}],
        "tools": TOOLS,
        "response_format": {"type": "json_object"},
        "provider": {"order": ["groq"]},
        "stream": True,
        "stream_options": {"include_usage": False},
    }
    (tmp_path / "r.json").write_text(json.dumps(mine))
    result = run_cli(defaults.url, "--model", "m", "--request", str(tmp_path / "r.json"))
    assert result.returncode == 0, result.stdout
    sent = [c.request.json() for c in defaults.journal]
    assert [(b["stream"], b.get("stream_options")) for b in sent] == [
        (False, None),
        (True, {"include_usage": True}),
        (True, None),
    ]
    for body in sent:
        assert (body["model"], body["tools"], body["provider"]) == ("m", TOOLS, mine["provider"])
        assert body["messages"] == mine["messages"]
        assert body["response_format"] == {"type": "json_object"}
        assert body["logprobs"] is True  # the check's default, under the user's fields


def test_request_file_for_gemini_keeps_its_body(
    run_cli: Callable[..., Result], defaults: mockhttp.Server, tmp_path: Path
) -> None:
    """A Gemini request of the user's own (tools, safetySettings) is sent as given."""
    mine = {
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
    }
    (tmp_path / "g.json").write_text(json.dumps(mine))
    result = run_cli(defaults.url, "--model", "m", "--profile", "gemini",
                     "--request", str(tmp_path / "g.json"))  # fmt: skip
    assert result.returncode == 0, result.stdout
    sent = [c.request.json() for c in defaults.journal]
    assert [b["safetySettings"] for b in sent] == [mine["safetySettings"]] * 2
    assert sent[0]["contents"] == mine["contents"]
    assert sent[0]["generationConfig"] == {"maxOutputTokens": 32, "temperature": 0}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{nope", "--request {path} is not JSON: Expecting property name enclosed in double "
                  "quotes: line 1 column 2 (char 1)"),
        ("[1, 2]", "--request {path} must be a JSON object (a request body), not [1, 2]"),
    ],
)  # fmt: skip
def test_bad_request_file_is_a_usage_error(
    run_cli: Callable[..., Result], tmp_path: Path, content: str, message: str
) -> None:
    """A request file that is not JSON, or not an object: exit 2, the path and what is wrong."""
    path = tmp_path / "r.json"
    path.write_text(content)
    result = run_cli("http://127.0.0.1:9", "--model", "m", "--request", str(path))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"mockhttp check: error: {message.format(path=path)}\n"
