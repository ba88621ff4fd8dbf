"""``mockhttp check`` (``python -m mockhttp.contract``): offline files, live, exit codes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import mockhttp
from mockhttp import match
from mockhttp.contract.__main__ import main
from tests.helpers.contract_streams import (
    ANTHROPIC,
    ANTHROPIC_BUFFERED,
    BREAKING,
    BUFFERED,
    NO_USAGE_REQUEST,
    OPENAI,
    OPENAI_REFERENCE,
    REQUEST,
    USAGE_CHUNK,
    swap,
)

PATH = "/v1/chat/completions"


def write(tmp_path: Path, name: str, content: bytes | str | object) -> str:
    """Write a file for offline mode and return its path."""
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content)
    else:
        path.write_text(json.dumps(content))
    return str(path)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -m mockhttp.contract`` in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "mockhttp.contract", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_offline_reference_exits_0_with_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A recorded reference stream with its request passes: exit 0, every rule listed."""
    body = write(tmp_path, "body.sse", OPENAI_REFERENCE.body)
    request = write(tmp_path, "request.json", REQUEST)
    assert main(["--body", body, "--request", request, "--verbose"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^openai\.done +pass$", out, re.M)
    assert out.rstrip().endswith("0 violations, 0 warnings, 0 notes in 1 exchange(s)")


def test_offline_violation_exits_1_and_names_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A recorded stream that breaks a rule exits 1 and shows the rule, place and message."""
    body = write(tmp_path, "body.sse", BREAKING["openai.after-finish"].body)
    assert main(["--body", body, "--verbose"]) == 1
    out = capsys.readouterr().out
    assert re.search(
        r"^openai\.after-finish +violation  event 4, byte 753  choice 0 continues", out, re.M
    )


def test_offline_head_request_and_buffered_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--head (curl -D), --request and --buffered feed the rules that need them."""
    head = (
        "HTTP/1.1 100 Continue\r\n\r\n"
        "HTTP/2 200\r\ncontent-type: text/event-stream; charset=utf-8\r\n\r\n"
    )
    changed = json.loads(json.dumps(BUFFERED).replace("three", "four"))
    args = [
        "--body", write(tmp_path, "body.sse", OPENAI_REFERENCE.body),
        "--head", write(tmp_path, "head.txt", head),
        "--request", write(tmp_path, "request.json", NO_USAGE_REQUEST),
        "--buffered", write(tmp_path, "buffered.json", changed),
        "--json",
    ]  # fmt: skip
    assert main(args) == 1
    report = json.loads(capsys.readouterr().out)
    rules = {f["rule"]: f for f in report["exchanges"][0]["findings"]}
    assert report["ok"] is False
    assert rules["openai.usage-opt-in"]["severity"] == "violation"
    assert rules["buffered.content"]["message"].startswith("the joined content deltas")
    assert "buffered.finish-reason" in report["exchanges"][0]["rules"]


def test_offline_non_200_head_is_a_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A recorded 429 is reported under http.status and exits 1."""
    head = write(
        tmp_path, "head.txt", "HTTP/1.1 429 Too Many Requests\ncontent-type: application/json\n"
    )
    body = write(tmp_path, "body.json", b'{"error":{"code":"rate_limit_exceeded"}}')
    assert main(["--body", body, "--head", head, "--json"]) == 1
    (exchange,) = json.loads(capsys.readouterr().out)["exchanges"]
    assert [f["rule"] for f in exchange["findings"]] == ["http.status"]
    assert "openai.done" in exchange["skipped"]


def test_junit_report_marks_violations_as_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--junit writes one test case per rule, with a failure for each violated rule."""
    body = write(tmp_path, "body.sse", BREAKING["openai.done"].body)
    junit = tmp_path / "report.xml"
    assert main(["--body", body, "--junit", str(junit)]) == 1
    capsys.readouterr()
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    failed = [c.get("name") for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failed == ["openai.done"]
    assert suite.get("failures") == "1"
    assert int(suite.get("tests", "0")) == len(list(suite.iter("testcase")))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "give either a URL (live mode) or --body FILE"),
        (["http://127.0.0.1:1", "--body", "x"], "give either a URL"),
        (["http://127.0.0.1:1"], "live mode needs --model"),
        (["http://127.0.0.1:1", "--model", "m", "--header", "nocolon"], "is not 'Name: value'"),
        (["--body", "/nonexistent/body.sse"], "cannot read /nonexistent/body.sse"),
        (
            [
                "http://x",
                "--model",
                "m",
                "--profile",
                "anthropic-messages",
                "--profile",
                "openai-chat",
            ],
            "checks one API at a time: anthropic-messages, openai-chat",
        ),
        (
            ["http://x", "--model", "m", "--request", "/nonexistent/r.json"],
            "cannot read --request /nonexistent/r.json: No such file or directory",
        ),
    ],
)
def test_usage_errors_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad command line exits 2 with the reason on stderr and no report."""
    assert main(args) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert captured.out == ""


def test_bad_json_and_bad_head_files_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A --request that is not JSON, or a --head without a status line, is a usage error."""
    body = write(tmp_path, "body.sse", OPENAI_REFERENCE.body)
    assert main(["--body", body, "--request", write(tmp_path, "r.json", "{nope")]) == 2
    assert "--request" in capsys.readouterr().err
    assert main(["--body", body, "--head", write(tmp_path, "h.txt", "200 OK\n")]) == 2
    assert "not a status line: '200 OK'" in capsys.readouterr().err


def serve_openai(server: mockhttp.Server) -> None:
    """Mock a well-behaved Chat Completions endpoint (both streams and the buffered answer)."""
    stream = match.json_path("$.stream", match.equal(True))
    usage = match.json_path("$.stream_options.include_usage", match.equal(True))
    without_usage = swap(OPENAI, USAGE_CHUNK)
    # the most recently added matching mock answers: general first, specific last
    server.mock(mockhttp.post(PATH).reply(mockhttp.ok().json(BUFFERED)))
    server.mock(mockhttp.post(PATH).body(stream).reply(mockhttp.ok().event_stream(*without_usage)))
    server.mock(mockhttp.post(PATH).body(stream & usage).reply(mockhttp.ok().event_stream(*OPENAI)))


def test_live_openai_end_to_end_exits_0(server: mockhttp.Server, tmp_path: Path) -> None:
    """Live mode sends the three requests and a conforming endpoint exits 0 (these canned
    streams carry no logprobs: the request file says not to ask for them)."""
    serve_openai(server)
    request = write(tmp_path, "request.json", {"logprobs": False})
    result = run_cli(
        server.url, "--model", "gpt-test", "--api-key", "sk-test", "--json", "--request", request
    )
    assert (result.returncode, result.stderr) == (0, "")
    report = json.loads(result.stdout)
    assert [e["exchange"] for e in report["exchanges"]] == ["stream with include_usage", "stream"]
    assert all(f["severity"] == "note" for e in report["exchanges"] for f in e["findings"])
    sent = [call.request.json() for call in server.journal]
    assert [body["stream"] for body in sent] == [False, True, True]
    assert {call.request.headers["authorization"] for call in server.journal} == {"Bearer sk-test"}


def test_live_broken_stream_exits_1_with_the_rule(server: mockhttp.Server) -> None:
    """A live endpoint whose streams lack [DONE] exits 1 and the table names openai.done."""
    server.mock(mockhttp.post(PATH).reply(mockhttp.ok().json(BUFFERED)))
    server.mock(
        mockhttp.post(PATH)
        .body(match.json_path("$.stream", match.equal(True)))
        .reply(mockhttp.ok().event_stream(*OPENAI[:-1]))
    )
    result = run_cli(server.url + "/v1", "--model", "gpt-test", "--verbose")
    assert result.returncode == 1
    assert re.search(r"^openai\.done +violation", result.stdout, re.M)
    assert "== stream with include_usage" in result.stdout


def test_live_error_status_is_a_finding(server: mockhttp.Server) -> None:
    """A 401 from the endpoint is reported under http.status, not as a traceback."""
    server.mock(mockhttp.post(PATH).reply(mockhttp.status(401).json({"error": "bad key"})))
    result = run_cli(server.url + PATH, "--model", "gpt-test", "--json")
    assert (result.returncode, result.stderr) == (1, "")
    report = json.loads(result.stdout)
    assert {f["rule"] for e in report["exchanges"] for f in e["findings"]} == {"http.status"}


def test_live_unreachable_endpoint_is_a_finding() -> None:
    """Nothing listening: exit 1 with an http.transport finding, and no traceback."""
    result = run_cli("http://127.0.0.1:9", "--model", "m", "--timeout", "5")
    assert result.returncode == 1
    assert "http.transport" in result.stdout
    assert "Traceback" not in result.stderr


def test_live_anthropic_end_to_end(server: mockhttp.Server) -> None:
    """--profile anthropic-messages sends x-api-key and checks the typed event stream."""
    server.mock(mockhttp.post("/v1/messages").reply(mockhttp.ok().json(ANTHROPIC_BUFFERED)))
    server.mock(
        mockhttp.post("/v1/messages")
        .header("x-api-key", match.equal("k"))
        .body(match.json_path("$.stream", match.equal(True)))
        .reply(mockhttp.ok().event_stream(*ANTHROPIC))
    )
    result = run_cli(
        server.url, "--model", "claude-test", "--profile", "anthropic-messages", "--api-key", "k"
    )
    assert (result.returncode, result.stderr) == (0, "")
    assert "pass       anthropic-messages: 19 rules checked" in result.stdout
    assert result.stdout.rstrip().endswith("0 violations, 0 warnings, 0 notes in 1 exchange(s)")


DEEP = "[" * 1000 + "]" * 1000  # past json's recursion limit: RecursionError, not ValueError


def test_deep_json_in_a_data_line_is_not_json_not_a_traceback(tmp_path: Path) -> None:
    """A data line (or tool-call arguments) nested 1,000 deep crashed with RecursionError."""
    call = {"index": 0, "id": "t", "type": "function", "function": {"name": "f", "arguments": DEEP}}
    chunk = {
        "id": "c", "object": "chat.completion.chunk", "model": "m",
        "choices": [{"index": 0, "delta": {"tool_calls": [call]}, "finish_reason": None}],
    }  # fmt: skip
    body = f"data: {DEEP}\n\ndata: {json.dumps(chunk)}\n\ndata: [DONE]\n\n"
    result = run_cli("--body", write(tmp_path, "deep.sse", body), "--json")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    violated = {
        f["rule"] for e in json.loads(result.stdout)["exchanges"] for f in e["findings"]
        if f["severity"] == "violation"
    }  # fmt: skip
    assert {"openai.json", "openai.tool-call-args"} <= violated


@pytest.mark.parametrize("option", ["--request", "--buffered"])
def test_deep_json_input_file_is_a_usage_error(tmp_path: Path, option: str) -> None:
    deep = write(tmp_path, "deep.json", DEEP)
    result = run_cli("--body", write(tmp_path, "b.sse", OPENAI_REFERENCE.body), option, deep)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"{option} {deep} is nested too deep to parse as JSON" in result.stderr


def test_live_deep_buffered_reply_is_a_finding(server: mockhttp.Server) -> None:
    """The buffered reply nested 1,000 deep crashed the live check with RecursionError."""
    server.mock(mockhttp.post(PATH).reply(mockhttp.ok().body(DEEP)))
    result = run_cli(server.url, "--model", "m")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("event", "message"),
    [
        (
            {"type": "response.output_text.delta", "item_id": {}, "output_index": 0, "delta": "x"},
            "response.output_text.delta names item {}, which is not a string id",
        ),
        (
            {"type": "response.output_item.added", "output_index": 0,
             "item": {"id": [1], "type": "message"}},
            "response.output_item.added: output item id [1] is not a string",
        ),
    ],
)  # fmt: skip
def test_responses_item_id_that_is_not_a_string_is_a_finding(
    tmp_path: Path, event: dict[str, object], message: str
) -> None:
    """An item id that is a dict or a list crashed with TypeError: unhashable type."""
    body = f"event: {event['type']}\ndata: {json.dumps(event)}\n\n"
    result = run_cli(
        "--body", write(tmp_path, "r.sse", body), "--profile", "openai-responses", "--json"
    )
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    found = [
        f["message"] for e in json.loads(result.stdout)["exchanges"] for f in e["findings"]
        if f["rule"] == "responses.items"
    ]  # fmt: skip
    assert message in found


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["http://[::1", "--model", "m"], "the URL 'http://[::1' is not valid"),
        (["http://127.0.0.1:9", "--model", "m", "--header", "x: é"], "--header 'x: é'"),
        (["http://127.0.0.1:9", "--model", "m", "--api-key", "é"], "--api-key"),
        (["http://127.0.0.1:9", "--model", "m", "--deadline", "1e308"], "--deadline"),
        (["http://127.0.0.1:9", "--model", "m", "--timeout", "nan"], "--timeout"),
        (["http://127.0.0.1:9", "--model", "m", "--timeout", "-1"], "--timeout"),
        (["http://127.0.0.1:9", "--model", "m", "--timeout", "0"], "--timeout"),
        (["http://127.0.0.1:9", "--model", "m", "--max-lines", "0"], "--max-lines"),
    ],
)
def test_bad_live_arguments_are_usage_errors(args: list[str], message: str) -> None:
    """These were tracebacks (ValueError, UnicodeEncodeError), a deadline silently not
    enforced (OverflowError in the alarm's thread), or silently accepted (--timeout)."""
    result = run_cli(*args)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert message in result.stderr
    assert result.stdout == ""


def test_request_alone_drives_a_check_against_a_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``check URL --request FILE`` with no ``--model``: the request names its model, and
    each exchange the check sends finds its recording (it needed --model, and its own
    prompt matched no recording)."""
    import httpx

    from mockhttp import llm
    from mockhttp.record import Recorder

    messages = [{"role": "user", "content": "Say hi"}]
    sent = {"model": "gpt-4o-mini", "messages": messages, "logprobs": False}
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hi there")))
        with Recorder(upstream.url, tmp_path / "rec") as recorder:
            usage = {"stream_options": {"include_usage": True}}
            for extra in ({"stream": False}, {"stream": True}, {"stream": True, **usage}):
                httpx.post(recorder.url + "/v1/chat/completions", json={**sent, **extra})
            recorder.wait(3)
    request = tmp_path / "request.json"
    request.write_text(json.dumps(sent))
    with mockhttp.Server() as replay:
        replay.mock(mockhttp.load(tmp_path / "rec"))
        assert main([replay.url, "--request", str(request)]) == 0, capsys.readouterr().out
        assert [c.status for c in replay.journal] == [200, 200, 200]
        replay.check()
    request.write_text(json.dumps({"messages": messages}))
    assert main([replay.url, "--request", str(request)]) == 2
    assert "live mode needs --model, or a --request body that names its model" in (
        capsys.readouterr().err
    )
