"""The ``mockhttp`` command, run as a real process: serve, validate, check, signals."""

from __future__ import annotations

import json
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import anthropic
import httpx
import openai
import pytest
from anthropic.types import MessageParam
from openai.types.chat import ChatCompletionMessageParam

import mockhttp
from mockhttp._cli._main import main
from mockhttp._cli._serve import log_line
from mockhttp._server._journal import Call
from tests.helpers.cli_process import ROOT, Serving, mockhttp_command, run

SEED = "tests/data/seed"
LOG_TIME = r"\d\d:\d\d:\d\d\.\d\d\d"
SLOW_STREAM = """\
name: ticks
request: {path: /ticks}
response:
  event_stream:
    event_delay: 100ms
    repeat: true
    events: [{data: tick}]
"""

# -- serve: the built-in mocks ---------------------------------------------------------------


@pytest.fixture(scope="module")
def defaults() -> Iterator[Serving]:
    """``mockhttp serve`` with no PATH: the built-in LLM mocks."""
    with Serving() as serving:
        yield serving


@pytest.fixture
def openai_sdk(defaults: Serving) -> Iterator[openai.OpenAI]:
    """An openai SDK client for ``defaults``, closed after the test."""
    with openai.OpenAI(base_url=defaults.url + "/v1", api_key="any", max_retries=0) as client:
        yield client


def test_defaults_openai_sdk_streams_and_buffers(openai_sdk: openai.OpenAI) -> None:
    """The openai SDK gets "Hello, world" streamed, and as one JSON answer without stream."""
    messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]
    stream = openai_sdk.chat.completions.create(model="m", messages=messages, stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in stream) == "Hello, world"
    answer = openai_sdk.chat.completions.create(model="m", messages=messages)
    assert answer.choices[0].message.content == "Hello, world"
    assert answer.choices[0].finish_reason == "stop"


def test_defaults_anthropic_sdk_streams_and_buffers(defaults: Serving) -> None:
    """The anthropic SDK's stream helper and plain call both read "Hello, world"."""
    messages: list[MessageParam] = [{"role": "user", "content": "hi"}]
    with anthropic.Anthropic(base_url=defaults.url, api_key="any", max_retries=0) as client:
        with client.messages.stream(model="m", max_tokens=9, messages=messages) as stream:
            assert "".join(stream.text_stream) == "Hello, world"
            assert stream.get_final_message().stop_reason == "end_turn"
        answer = client.messages.create(model="m", max_tokens=9, messages=messages)
    block = answer.content[0]
    assert block.type == "text"
    assert block.text == "Hello, world"


def test_defaults_models_list(openai_sdk: openai.OpenAI) -> None:
    """GET /v1/models lists the mock models, as the openai SDK reads them."""
    models = openai_sdk.models.list()
    assert [m.id for m in models] == ["gpt-mock", "claude-mock", "gemini-mock"]


def test_defaults_log_one_line_per_request(defaults: Serving) -> None:
    """Each request is one stderr line: time, request, mock, status, events, outcome."""
    httpx.post(defaults.url + "/v1/chat/completions", json={"stream": True}).read()
    httpx.get(defaults.url + "/v1/nothing")
    line = defaults.wait_for_log("'openai-chat'")
    assert re.fullmatch(
        LOG_TIME + r" POST /v1/chat/completions → mock 'openai-chat' 200, "
        r"5 events, complete\n",
        line,
    ), line
    missing = defaults.wait_for_log("/v1/nothing")
    assert re.fullmatch(
        LOG_TIME + r" GET /v1/nothing → no match \(closest: '[\w-]+', \w+: got '[^']*', "
        r"expected [^)]+\) 404, \d+ bytes, complete\n",
        missing,
    ), missing
    assert defaults.log[0].startswith("mockhttp: serving 12 mocks from the built-in mocks on ")


# -- serve: files, logs, signals ------------------------------------------------------------


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_serves_the_seed_files_to_curl() -> None:
    """The seed's files, served by the CLI, stream to curl byte for byte."""
    with Serving(SEED) as serving:
        out = subprocess.run(
            ["curl", "-sSfN", "-H", "Authorization: Bearer sk-test", "--data-binary",
             '{"stream": true}', serving.url + "/v1/chat/completions"],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout  # fmt: skip
        assert out.endswith('"delta":{"content":"world"}}]}\n\ndata: [DONE]\n\n')
        assert serving.stop() == 0


def test_quiet_and_verbose() -> None:
    """--quiet logs no request; --verbose adds the request's headers and body."""
    with Serving(SEED, "--quiet") as quiet:
        httpx.get(quiet.url + "/nothing")
        assert quiet.stop() == 0
        assert [line for line in quiet.log if "/nothing" in line] == []
    with Serving(SEED, "--verbose") as verbose:
        httpx.post(verbose.url + "/nothing", content="the body", headers={"X-Who": "me"})
        verbose.wait_for_log("/nothing")
        assert verbose.wait_for_log("X-Who") == "    X-Who: me\n"
        assert verbose.wait_for_log("the body") == "    the body\n"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_within_a_second_closing_open_streams(tmp_path: Path, sig: int) -> None:
    """SIGTERM or SIGINT ends the process quickly, and an endless stream ends with it."""
    (tmp_path / "ticks.yaml").write_text(SLOW_STREAM)
    with Serving(str(tmp_path)) as serving, httpx.stream("GET", serving.url + "/ticks") as res:
        lines = res.iter_lines()
        assert next(lines) == "data: tick"
        started = time.monotonic()
        assert serving.stop(sig) == 0
        elapsed = time.monotonic() - started
        with pytest.raises(httpx.RemoteProtocolError):
            for _ in lines:
                pass
    # the promise is one second (a poll of 0.25 s and a wait of 0.5 s for the server's thread);
    # the margin is for the interpreter's exit on a loaded machine (1.5 s was not enough)
    assert elapsed < 1.0 + 2.0


def test_bad_file_at_start_exits_with_the_error(tmp_path: Path) -> None:
    """A bad file stops serve before it listens: status 1, the error on stderr, no URL."""
    (tmp_path / "good.yaml").write_text("request: {path: /a}\n")
    (tmp_path / "oops.yaml").write_text("request:\n  body: [equals, 1]\n")
    result = run("serve", "--port", "0", str(tmp_path))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"{tmp_path / 'oops.yaml'}:2:10 at request.body[0]: unknown matcher 'equals' — "
        "did you mean 'equal'?\nknown matchers: absent, all_of, any_of, contains, "
        "ends_with, equal, exists, json_equal, json_path, jsonpath, last_user_message, not, "
        "regex, starts_with, system_prompt, tool_offered, tool_result, turn_index\n"
    )


def test_a_busy_port_is_an_error() -> None:
    """A port already in use exits 1 and says which address."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        result = run("serve", "--port", str(port), SEED)
    assert result.returncode == 1
    assert result.stderr.startswith(f"mockhttp: cannot listen on 127.0.0.1:{port}: ")


# -- --watch ---------------------------------------------------------------------------------


def test_watch_reloads_without_dropping_open_streams(tmp_path: Path) -> None:
    """A changed file is served at once; a stream already open finishes as it began."""
    mocks = tmp_path / "mocks.yaml"
    slow = "request: {path: /s}\nresponse:\n  event_stream:\n    event_delay: 100ms\n"
    mocks.write_text(
        slow + "    events: [{data: old1}, {data: old2}, {data: old3}, {data: old4}]\n"
    )
    with Serving(str(tmp_path), "--watch") as serving:
        with httpx.stream("GET", serving.url + "/s") as res:
            lines = res.iter_lines()
            assert next(lines) == "data: old1"
            mocks.write_text(slow + "    events: [{data: new}]\n")
            serving.wait_for_log("mockhttp: reloaded 1 mock\n")
            assert httpx.get(serving.url + "/s").text == "data: new\n\n"
            assert [line for line in lines if line] == ["data: old2", "data: old3", "data: old4"]
        mocks.write_text("request: {path: /s, metod: GET}\n")
        error = serving.wait_for_log("not reloaded")
        assert error == "mockhttp: not reloaded, still serving the previous mocks:\n"
        assert serving.wait_for_log("unknown key 'metod'").startswith(
            f"{mocks}:1:21 at request.metod: "
        )
        assert httpx.get(serving.url + "/s").text == "data: new\n\n"


def test_watch_reload_keeps_mocks_added_through_the_admin_api(tmp_path: Path) -> None:
    """A mock added over HTTP still wins after the files it overrides are reloaded."""
    mocks = tmp_path / "mocks.yaml"
    mocks.write_text("request: {path: /x}\nresponse: {body: file v1}\n")
    with Serving(str(tmp_path), "--watch") as serving:
        added = httpx.post(
            serving.url + "/__mockhttp/mocks",
            content="request: {path: /x}\nresponse: {body: override}\n",
            headers={"Content-Type": "application/yaml"},
        )
        assert added.status_code == 201, added.text
        mocks.write_text("request: {path: /x}\nresponse: {body: file v2}\n")
        serving.wait_for_log("mockhttp: reloaded 1 mock\n")
        assert httpx.get(serving.url + "/x").text == "override"


# -- the admin API on the CLI's server --------------------------------------------------------


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_admin_with_curl_and_reset_restores_the_files() -> None:
    """curl adds a mock and reads its count; reset drops it and keeps the file mocks."""
    with Serving(SEED) as serving:
        admin = serving.url + "/__mockhttp"

        def curl(*args: str) -> str:
            done = subprocess.run(["curl", "-sSf", *args], capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            return done.stdout

        added = curl(
            "-H",
            "Content-Type: application/yaml",
            "--data-binary",
            "request: {path: /hi}\nresponse: {body: hello}",
            admin + "/mocks",
        )
        ref = re.search(r'"id":(\d+)', added)
        assert ref is not None
        assert curl(serving.url + "/hi") == "hello"
        assert '"call_count":1' in curl(f"{admin}/mocks/{ref.group(1)}")
        assert '"mocks":2' in curl("-X", "POST", admin + "/reset")
        assert subprocess.run(["curl", "-sf", serving.url + "/hi"]).returncode == 22
        listed = json.loads(curl(admin + "/mocks"))["mocks"]
        assert [m["describe"] for m in listed] == ["POST /v1/messages", "POST /v1/chat/completions"]


# -- validate, --version, --help, check ------------------------------------------------------


def test_validate_good_and_bad_files(tmp_path: Path) -> None:
    """validate prints each good file on stdout, each error on stderr; status 0 or 1."""
    good = run("validate", SEED)
    assert (good.returncode, good.stderr) == (0, "")
    assert good.stdout == (
        "tests/data/seed/chat_stream.yaml: ok, 1 mock\n"
        "tests/data/seed/named_events.yaml: ok, 1 mock\n"
    )
    (tmp_path / "bad.json").write_text('{"response": {"status": 99}}')
    bad = run("validate", SEED + "/chat_stream.yaml", str(tmp_path / "bad.json"), "missing.yaml")
    assert bad.returncode == 1
    assert bad.stdout == "tests/data/seed/chat_stream.yaml: ok, 1 mock\n"
    assert bad.stderr == (
        f"{tmp_path / 'bad.json'}:1:25 at response.status: status code=99 must be an int "
        "from 100 to 999\nmissing.yaml: no such file or directory\n"
    )


def test_version_and_help_on_every_command() -> None:
    """--version prints the version; --help works on the command and each subcommand."""
    version = run("--version")
    assert version.returncode == 0
    assert version.stdout.startswith(f"mockhttp {mockhttp.__version__}\n")
    for command in ([], ["serve"], ["validate"], ["check"]):
        shown = run(*command, "--help")
        assert shown.returncode == 0, shown.stderr
        assert shown.stdout.startswith(f"usage: mockhttp{''.join(' ' + c for c in command)}")
    assert "--watch" in run("serve", "--help").stdout
    assert "--profile" in run("check", "--help").stdout


@pytest.mark.parametrize(
    ("profile", "model"), [("openai-chat", "gpt-mock"), ("anthropic-messages", "claude-mock")]
)
def test_check_passes_on_the_built_in_mocks(defaults: Serving, profile: str, model: str) -> None:
    """``mockhttp check`` finds no contract violation in what ``mockhttp serve`` streams."""
    result = run("check", defaults.url, "--model", model, "--profile", profile)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "\n0 violations, 0 warnings" in result.stdout


def test_a_bad_port_is_a_usage_error() -> None:
    """--port outside 0..65535 is refused by the parser, exit status 2."""
    result = run("serve", "--port", "70000")
    assert result.returncode == 2
    assert result.stderr.endswith(
        "mockhttp serve: error: argument --port: '70000' is not a port number from 0 to 65535\n"
    )


def test_no_command_prints_help_and_fails() -> None:
    """``mockhttp`` alone shows the commands and exits 2."""
    result = run()
    assert result.returncode == 2
    for command in ("serve", "validate", "check"):
        assert command in result.stderr


def test_console_script_and_main_function() -> None:
    """The installed ``mockhttp`` script and ``main()`` run the same command."""
    script = Path(mockhttp_command()[0]).parent / "mockhttp"
    if script.exists():
        done = subprocess.run([script, "--version"], capture_output=True, text=True, cwd=ROOT)
        assert done.stdout.startswith(f"mockhttp {mockhttp.__version__}\n")
    assert main(["validate", str(ROOT / SEED)]) == 0


# -- the log line, pure ------------------------------------------------------------------------


def test_log_line_for_a_stream_an_unmatched_request_and_an_admin_call() -> None:
    """log_line names the mock, the closest one on a miss, events for streams and the end."""
    stream = mockhttp.post("/v1/chat", name="chat").reply(
        mockhttp.ok().event_stream(mockhttp.Event("a"))
    )
    now = datetime(2026, 1, 2, 3, 4, 5, 678_000)
    call = Call(mockhttp.Request("POST", "/v1/chat?x=1"), stream, 200, events=1, outcome="closed")
    assert log_line(call, [stream], now) == (
        "03:04:05.678 POST /v1/chat?x=1 → mock 'chat' 200, 1 event, closed"
    )
    miss = Call(mockhttp.Request("GET", "/v2"), None, 404, body_bytes=12, outcome="complete")
    assert log_line(miss, [stream], now) == (
        "03:04:05.678 GET /v2 → no match (closest: 'chat', method: got 'GET', expected 'POST')"
        " 404, 12 bytes, complete"
    )
    assert log_line(miss, [], now).endswith("no match (no mocks) 404, 12 bytes, complete")
    one = Call(mockhttp.Request("GET", "/v2"), None, 404, body_bytes=1, outcome="complete")
    assert log_line(one, [], now).endswith("404, 1 byte, complete")
    admin = Call(mockhttp.Request("GET", "/__mockhttp/mocks"), None, 200, outcome="complete")
    assert (
        log_line(admin, [], now)
        == "03:04:05.678 GET /__mockhttp/mocks → admin 200, 0 bytes, complete"
    )


def test_serve_cors_answers_a_preflight_from_the_origin_given(tmp_path: Path) -> None:
    """``serve --cors ORIGIN``: that origin's preflight is answered; another's refused."""
    mocks = tmp_path / "m.yaml"
    mocks.write_text("- request: {method: POST, path: /v1/chat}\n  response: {body: hi}\n")
    asked = {"Access-Control-Request-Method": "POST"}
    with Serving(str(mocks), "--cors", "http://localhost:3000") as serving:
        ok = httpx.options(
            serving.url + "/v1/chat", headers={**asked, "Origin": "http://localhost:3000"}
        )
        other = httpx.options(
            serving.url + "/v1/chat", headers={**asked, "Origin": "http://e.test"}
        )
        got = httpx.post(serving.url + "/v1/chat", headers={"Origin": "http://localhost:3000"})
        to_mcp = httpx.options(
            serving.url + "/mcp", headers={**asked, "Origin": "http://localhost:3000"}
        )
        answered = serving.wait_for_log("OPTIONS /v1/chat → cors preflight 204")
        refused = serving.wait_for_log("OPTIONS /v1/chat → cors preflight 403")
        mcp = serving.wait_for_log("OPTIONS /mcp → cors preflight 204")
    assert ok.status_code == 204
    assert other.status_code == 403
    assert to_mcp.status_code == 204
    assert got.headers["access-control-allow-origin"] == "http://localhost:3000"
    for line in (answered, refused, mcp):  # the server answered them: no "no match"
        assert "no match" not in line


def test_serve_cors_with_a_path_for_an_origin_says_how_to_write_it(tmp_path: Path) -> None:
    """A path after ``--cors`` is taken as an origin: the error says where paths go."""
    done = run("serve", "--cors", "mocks.yaml")
    assert done.returncode == 1
    assert "cors origin 'mocks.yaml' must be scheme://host[:port]" in done.stderr
    assert "(paths go before --cors, or end its origins with --)" in done.stderr
