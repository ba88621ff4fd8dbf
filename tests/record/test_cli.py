"""``mockhttp record``, ``mockhttp serve --variants`` and ``mockhttp check --save`` as a
user runs them."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import httpx
import openai
import pytest

import mockhttp
from mockhttp._cli._main import main
from mockhttp._cli._serve import DEFAULTS
from mockhttp.record import Recording
from tests.helpers.cli_process import ROOT, Serving, mockhttp_command
from tests.helpers.record_streams import TEXT, openai_events, recording_of

CHAT = "/v1/chat/completions"


def test_mockhttp_record_writes_one_file_per_exchange(tmp_path: Path) -> None:
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post(CHAT).reply(mockhttp.ok().event_stream(*openai_events())))
        proc = subprocess.Popen(
            mockhttp_command("record", "--upstream", upstream.url, "--out", str(tmp_path / "rec")),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            assert proc.stdout is not None
            url = proc.stdout.readline().strip()
            assert url.startswith("http://127.0.0.1:")
            with openai.OpenAI(
                base_url=url + "/v1", api_key="sk-cli-secret", max_retries=0
            ) as client:
                stream = client.chat.completions.create(model="gpt-test", messages=[], stream=True)
                text = "".join((c.choices[0].delta.content or "") for c in stream if c.choices)
            assert text == TEXT
        finally:
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "recorded POST /v1/chat/completions -> 200" in err
    (path,) = (tmp_path / "rec").iterdir()
    assert "sk-cli-secret" not in path.read_text()
    (mock,) = mockhttp.load(path)
    assert isinstance(mock.response, Recording)


def test_mockhttp_record_refuses_a_bad_upstream() -> None:
    done = subprocess.run(
        mockhttp_command("record", "--upstream", "example.com"),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 2
    assert "upstream='example.com' must be an http:// or https:// URL" in done.stderr


def test_serve_variants_serves_each_under_its_prefix(tmp_path: Path) -> None:
    recording = mockhttp.post(CHAT, name="chat").reply(recording_of(openai_events()))
    models = mockhttp.get("/v1/models").reply(mockhttp.ok().json({"data": []}))
    (tmp_path / "chat.yaml").write_text(mockhttp.dump([recording, models]))
    with Serving(str(tmp_path), "--variants") as served:
        line = served.wait_for_log("variants under")
        assert "/comment/, /keep_alive/, /crlf/" in line
        crlf = httpx.post(served.url + "/crlf" + CHAT).content
        assert crlf == recording_of(openai_events()).body_bytes.replace(b"\n", b"\r\n")
        original = httpx.post(served.url + CHAT).content
        assert original == recording_of(openai_events()).body_bytes
        assert httpx.get(served.url + "/cr/v1/models").json() == {"data": []}
        for name in ("comment", "split_utf8", "closed_without_done"):
            prefixed = f"{served.url}/{name}/v1"
            with openai.OpenAI(base_url=prefixed, api_key="x", max_retries=0) as client:
                stream = client.chat.completions.create(model="gpt-test", messages=[], stream=True)
                text = "".join((c.choices[0].delta.content or "") for c in stream if c.choices)
            assert text == TEXT
        missing = httpx.post(served.url + "/crlff" + CHAT)
        assert missing.status_code == 404
        assert "closest" in missing.text or "chat" in missing.text


def test_check_save_writes_the_live_exchanges_as_mocks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "check.yaml"
    with mockhttp.Server() as server:
        for mock in mockhttp.load(DEFAULTS):
            server.mock(mock)
        status = main(["check", server.url, "--model", "gpt-test", "--save", str(saved)])
    assert status in (0, 1)
    assert "saved 3 exchanges" in capsys.readouterr().err
    mocks = mockhttp.load(saved)  # names unique, so the file loads
    names = [m.name for m in mocks]
    assert names == [  # one mock per exchange, named after what it holds, each apart
        'openai chat "Count from one to five in words" #1',  # buffered
        'openai chat stream "Count from one to five in words" #1',
        'openai chat stream "Count from one to five in words" #2',  # with include_usage
    ]
    described = [m.response.describe() for m in mocks if m.response is not None]
    assert [d.split(" (")[0] for d in described] == ["200 recording"] * 3
    streamed = [
        m for m in mocks if isinstance(m.response, Recording) and m.response.is_event_stream
    ]
    assert len(streamed) == 2
    with mockhttp.Server() as replay:
        for mock in mocks:
            replay.mock(mock)
        with openai.OpenAI(base_url=replay.url + "/v1", api_key="x", max_retries=0) as client:
            answer = client.chat.completions.create(
                model="gpt-test",
                messages=[
                    {
                        "role": "user",
                        "content": "Count from one to five in words, separated by commas.",
                    }
                ],
                stream=False,
                max_tokens=32,
                temperature=0,
            )
    assert answer.choices[0].message.content
