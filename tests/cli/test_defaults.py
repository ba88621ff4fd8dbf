"""``serve --defaults``, ``mockhttp defaults``, empty folders and the readiness probe."""

from __future__ import annotations

from pathlib import Path

import httpx
import openai

import mockhttp
from mockhttp._cli._serve import DEFAULTS
from tests.helpers.cli_process import Serving, run

MINE = """\
name: openai-chat
request: {method: POST, path: /v1/chat/completions}
response: {json: {mine: true}}
---
name: late
priority: -5
request: {method: GET, path: /v1/models}
response: {json: {mine: true}}
"""


def test_defaults_beside_your_own_yours_first(tmp_path: Path) -> None:
    """Your mocks win over the built-in ones (even at a negative priority), one of yours
    with a built-in name replaces it, and the other built-in mocks still answer."""
    (tmp_path / "mine.yaml").write_text(MINE)
    with Serving("--defaults", str(tmp_path)) as serving:
        line = serving.wait_for_log("serving")
        assert f"serving 13 mocks from {tmp_path} and the built-in mocks" in line
        chat = httpx.post(serving.url + "/v1/chat/completions", json={})
        assert chat.json() == {"mine": True}
        assert httpx.get(serving.url + "/v1/models").json() == {"mine": True}
        with openai.OpenAI(base_url=serving.url + "/v1", api_key="k", max_retries=0) as client:
            answer = client.responses.create(model="m", input="hi")  # a built-in mock
        assert answer.output_text == "Hello, world"
        names = [m["name"] for m in httpx.get(serving.url + "/__mockhttp/mocks").json()["mocks"]]
        assert sorted(names) == [
            "a2a", "anthropic-messages", "embeddings", "gemini", "images", "late", "mcp",
            "models", "moderation", "openai-chat", "openai-responses", "speech", "transcription",
        ]  # fmt: skip
        assert serving.stop() == 0


def test_an_empty_folder_is_an_error_unless_allowed(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a mock")
    result = run("serve", "--port", "0", str(tmp_path))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"{tmp_path}: no mock files (*.yaml, *.yml, *.json) in it\n"
        "mockhttp: nothing to serve; --allow-empty starts anyway\n"
    )
    with Serving("--allow-empty", str(tmp_path)) as serving:
        assert httpx.get(serving.url + "/__mockhttp/health").json() == {
            "status": "ok",
            "mocks": 0,
        }
        assert serving.stop() == 0


def test_defaults_lists_and_writes_the_built_in_files(tmp_path: Path) -> None:
    listed = run("defaults")
    assert listed.returncode == 0
    # a2a comes first: it answers at its endpoint and its card's well-known paths
    assert listed.stdout.splitlines()[1].split() == [
        "anthropic-messages", "POST", "/v1/messages", "(anthropic.yaml)"
    ]  # fmt: skip
    out = tmp_path / "mocks"
    written = run("defaults", "--out", str(out))
    names = sorted(p.name for p in DEFAULTS.glob("*.yaml"))
    assert written.returncode == 0
    assert written.stdout.splitlines() == [str(out / n) for n in names]
    for name in names:
        assert (out / name).read_bytes() == (DEFAULTS / name).read_bytes()
    (out / "openai.yaml").write_text("request: {path: /edited}\n")
    again = run("defaults", "--out", str(out))
    assert again.returncode == 1
    assert f"{out / 'openai.yaml'}: exists, left as it is" in again.stderr
    assert (out / "openai.yaml").read_text() == "request: {path: /edited}\n"
    assert run("validate", str(out)).returncode == 0


def test_health_answers_without_the_admin_api_and_is_not_journaled() -> None:
    """The probe is the server's own: no admin API, a token, or a mock is needed."""
    with mockhttp.Server() as server:  # no admin API
        server.mock(mockhttp.get("/a").reply(mockhttp.status(204)))
        found = httpx.get(server.url + "/__mockhttp/health")
        assert (found.status_code, found.json()) == (200, {"status": "ok", "mocks": 1})
        assert found.headers["content-type"] == "application/json"
        assert len(server.journal) == 0
    with Serving("--admin-token", "t0k") as serving:  # the admin API refuses without it
        assert httpx.get(serving.url + "/__mockhttp/mocks").status_code == 401
        assert httpx.get(serving.url + "/__mockhttp/health").status_code == 200
        assert httpx.get(serving.url + "/__mockhttp/journal", headers={
            "Authorization": "Bearer t0k"
        }).json() == {"calls": []}  # fmt: skip
        serving.stop()
