"""``mockhttp serve DIR --record-missing --upstream URL`` on the wire: the mocks answer
what they match, a miss is forwarded, streamed through, recorded into DIR, and answered
from its new file the next time, with the upstream gone."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest

import mockhttp
from mockhttp._cli._main import main
from tests.helpers.cli_process import Serving
from tests.helpers.clients import raw_exchange
from tests.helpers.record_streams import TEXT, openai_events

CHAT = "/v1/chat/completions"
GAP = 0.2  # seconds between the upstream's events (5 events: 0.8 s in all)
KEY = "sk-upstream-secret-4242"
BODY = {"model": "gpt-test", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}
MODELS = """\
name: models
request: {method: GET, path: /v1/models}
response: {status: 200, json: {object: list, data: []}}
"""


def _stream(url: str) -> tuple[float, float, str]:
    """POST the chat stream; (seconds to the first event, seconds to the end, the text)."""
    start = time.monotonic()
    first = 0.0
    text = ""
    headers = {"Authorization": f"Bearer {KEY}"}
    with httpx.stream("POST", url + CHAT, json=BODY, headers=headers, timeout=10) as resp:
        assert resp.status_code == 200
        for line in resp.iter_lines():
            if not line.startswith("data: {"):
                continue
            first = first or time.monotonic() - start
            delta = json.loads(line[6:])["choices"][0]["delta"]
            text += delta.get("content", "")
    return first, time.monotonic() - start, text


def _upstream() -> mockhttp.Server:
    server = mockhttp.Server()
    stream = mockhttp.ok().event_stream(*openai_events(), event_delay=GAP)
    server.mock(mockhttp.post(CHAT).reply(stream))
    return server.start()


def test_a_miss_is_streamed_through_recorded_and_then_answered_without_the_upstream(
    tmp_path: Path,
) -> None:
    """The mock answers its request (the upstream never sees it); the miss reaches the
    client event by event, lands in DIR redacted, and answers again once the upstream
    has stopped; a miss the stopped upstream cannot answer fails, and is not recorded."""
    folder = tmp_path / "mocks"
    folder.mkdir()
    (folder / "models.yaml").write_text(MODELS)
    upstream = _upstream()
    try:
        with Serving(str(folder), "--record-missing", "--upstream", upstream.url) as serving:
            assert httpx.get(serving.url + "/v1/models").json() == {"object": "list", "data": []}
            assert len(upstream.journal) == 0
            first, total, text = _stream(serving.url)
            assert text == TEXT
            assert total >= 4 * GAP - 0.05  # the upstream's own pace
            assert first < total - 2 * GAP  # the first event came long before the end
            line = serving.wait_for_log("recorded POST /v1/chat/completions -> 200")
            assert 'openai chat stream "Hi" #1' in line
            assert len(upstream.journal) == 1
            upstream.close()
            first, total, again = _stream(serving.url)
            assert again == TEXT
            assert serving.wait_for_log("→ mock 'openai chat stream \"Hi\" #1' 200")
            gone = httpx.get(serving.url + "/v1/models/gone", timeout=10)  # the upstream gone
            assert gone.status_code == 502
            assert "is unreachable" in gone.text
            serving.wait_for_log("GET /v1/models/gone: not recorded: the upstream is unreachable")
            assert serving.stop() == 0
    finally:
        upstream.close()
    recorded = sorted(p.name for p in folder.iterdir())
    assert recorded == ["001-post-v1-chat-completions.yaml", "models.yaml"]
    content = (folder / recorded[0]).read_text()
    assert KEY not in content
    assert "Hi" in content
    assert KEY not in "".join(serving.log)


def test_the_recording_serves_again_after_a_restart_and_numbering_goes_on(tmp_path: Path) -> None:
    """A second session serves the recorded file, and records a new miss as 002-...; a
    target that is not origin-form is refused with a 400 and reaches nobody."""
    folder = tmp_path / "rec"  # created by serve
    upstream = mockhttp.Server().start()
    upstream.mock(mockhttp.get("/v1/a").reply(mockhttp.ok().json({"a": 1})))
    upstream.mock(mockhttp.get("/v1/b").reply(mockhttp.ok().json({"b": 2})))
    try:
        with Serving(str(folder), "--record-missing", "--upstream", upstream.url) as serving:
            assert httpx.get(serving.url + "/v1/a").json() == {"a": 1}
            serving.wait_for_log("recorded GET /v1/a -> 200")
            assert serving.stop() == 0
        with Serving(str(folder), "--record-missing", "--upstream", upstream.url) as serving:
            assert httpx.get(serving.url + "/v1/a").json() == {"a": 1}
            assert httpx.get(serving.url + "/v1/b").json() == {"b": 2}
            serving.wait_for_log("recorded GET /v1/b -> 200")
            raw = raw_exchange(
                serving.url,
                b"GET http://example.com/x HTTP/1.1\r\nHost: example.com\r\n"
                b"Connection: close\r\n\r\n",
            )
            assert raw.startswith(b"HTTP/1.1 400 ")
            assert b"forwards only /path?query targets" in raw
            assert serving.stop() == 0
    finally:
        upstream.close()
    assert [c.request.path for c in upstream.journal] == ["/v1/a", "/v1/b"]
    assert sorted(p.name for p in folder.iterdir()) == [
        "001-get-v1-a.yaml",
        "002-get-v1-b.yaml",
    ]


def test_a_path_that_climbs_out_of_the_upstreams_base_path_is_refused(tmp_path: Path) -> None:
    """N7: ``..`` (``%2e%2e`` in any case) would leave ``--upstream``'s base path: a 400
    that says why, nothing forwarded, nothing recorded; a plain path still goes through."""
    upstream = mockhttp.Server().start()
    upstream.mock(mockhttp.request(None, None).reply(mockhttp.ok().body("upstream")))
    base = upstream.url + "/openai"
    try:
        with Serving(str(tmp_path), "--record-missing", "--upstream", base) as serving:
            for path in (b"/v1/../../admin", b"/v1/%2E%2e/%2e%2E/admin"):
                raw = raw_exchange(
                    serving.url,
                    b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                )
                assert raw.startswith(b"HTTP/1.1 400 "), raw
                assert b"a path with a '..' segment" in raw
            assert httpx.get(serving.url + "/v1/models").text == "upstream"
            serving.wait_for_log("recorded GET /v1/models -> 200")
            assert serving.stop() == 0
    finally:
        upstream.close()
    assert [c.request.path for c in upstream.journal] == ["/openai/v1/models"]
    assert [p.name for p in tmp_path.iterdir()] == ["001-get-v1-models.yaml"]


def test_a_miss_too_large_to_load_is_answered_kept_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recording over the mock-file limit: the client gets the whole reply, the file is
    on disk, and the log says it is not served and how to raise the limit."""
    monkeypatch.setenv("MOCKHTTP_MAX_FILE_BYTES", "100000")
    body = b"z" * 300_000
    upstream = mockhttp.Server().start()
    upstream.mock(mockhttp.get("/big").reply(mockhttp.ok().body(body)))
    try:
        with Serving(str(tmp_path), "--record-missing", "--upstream", upstream.url) as serving:
            assert httpx.get(serving.url + "/big", timeout=30).content == body
            line = serving.wait_for_log("recorded, not served: too large")
            assert "raise the limit: MOCKHTTP_MAX_FILE_BYTES=" in line
            serving.wait_for_log("over the 100,000-byte limit of a mock file")
            assert serving.stop() == 0
    finally:
        upstream.close()
    assert [p.name for p in tmp_path.iterdir()] == ["001-get-big.yaml"]
    assert "Traceback" not in "".join(serving.log)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--record-missing"], "--record-missing needs --upstream URL"),
        (["--upstream", "http://127.0.0.1:9"], "--upstream URL is for --record-missing"),
        (
            ["--record-missing", "--upstream", "http://127.0.0.1:9", "--workers", "2"],
            "leave out --workers",
        ),
        (["--record-missing", "--upstream", "example.com"], "must be an http:// or https://"),
    ],
)
def test_bad_flag_combinations_say_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    """Each bad combination exits with status 2 and one line naming the flag."""
    assert main(["serve", str(tmp_path), "--port", "0", *args]) == 2
    assert message in capsys.readouterr().err


def test_record_missing_needs_one_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mock file, or two paths, is not where recordings go."""
    file = tmp_path / "models.yaml"
    file.write_text(MODELS)
    for paths in ([str(file)], [str(tmp_path), str(tmp_path / "b")]):
        argv = ["serve", *paths, "--record-missing", "--upstream", "http://127.0.0.1:9"]
        assert main(argv) == 2
        assert "needs one PATH, the directory" in capsys.readouterr().err
