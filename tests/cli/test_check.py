"""``_cli/_check.py``: ``mockhttp check``'s command line, in process.

Its parts first (the header parser, the JSON readers, the redactor, the choice of mode),
then whole runs through ``mockhttp check``: offline files, and live against a real server
on loopback.  The contract rules themselves are ``tests/contract/``'s."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

import mockhttp
from mockhttp import llm
from mockhttp._cli._check import (
    UsageError,
    _headers,
    _read,
    _read_json,
    _read_request,
    _redactor,
    configure_parser,
)
from mockhttp._cli._main import main
from tests.helpers.contract_streams import BUFFERED, OPENAI_REFERENCE, REQUEST

KEY_ENVS = ("MOCKHTTP_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY")


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """No API key from the environment running the tests."""
    for name in KEY_ENVS:
        monkeypatch.delenv(name, raising=False)


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="mockhttp check")
    configure_parser(parser)
    return parser.parse_args(argv)


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["check", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# -- --header --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "parsed"),
    [
        ([], {}),
        (["X-Trace: 1"], {"X-Trace": "1"}),
        (["  a :  b c  "], {"a": "b c"}),
        (["url: http://h:1/p"], {"url": "http://h:1/p"}),  # only the first colon splits
        (["empty:"], {"empty": ""}),
        (["a: 1", "a: 2"], {"a": "2"}),  # the last one given wins
    ],
)
def test_headers_parse_name_colon_value(given: list[str], parsed: dict[str, str]) -> None:
    assert _headers(given) == parsed


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("no colon", "--header 'no colon' is not 'Name: value'"),
        (": value", "--header ': value' is not 'Name: value'"),
        ("   : value", "is not 'Name: value'"),
        ("x: café", "--header 'x: café': names and values must be ASCII"),
        ("ñame: v", "names and values must be ASCII"),
    ],
)
def test_a_bad_header_is_a_usage_error_quoting_it(given: str, said: str) -> None:
    with pytest.raises(UsageError) as raised:
        _headers(["ok: 1", given])
    assert said in str(raised.value)


# -- the readers -----------------------------------------------------------------------------


def test_read_names_the_option_and_the_reason(tmp_path: Path) -> None:
    gone = tmp_path / "gone.sse"
    with pytest.raises(UsageError, match=rf"^cannot read --body {gone}: No such file"):
        _read(gone, "--body")
    with pytest.raises(UsageError, match=rf"^cannot read {gone}: No such file"):
        _read(gone)
    with pytest.raises(UsageError, match="Is a directory"):
        _read(tmp_path, "--head")


def test_read_json_none_is_none_and_a_file_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"a": [1, 2]}')
    assert _read_json(None, "--request") is None
    assert _read_json(path, "--request") == {"a": [1, 2]}


@pytest.mark.parametrize("text", ["{nope", "", "[1,", "\ufeff{}x"])
def test_read_json_not_json_is_a_usage_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(text)
    with pytest.raises(UsageError, match=rf"^--buffered {path} is not JSON: "):
        _read_json(path, "--buffered")


def test_read_json_nested_too_deep_is_a_usage_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(UsageError, match=rf"^--request {path} is nested too deep"):
        _read_json(path, "--request")


def test_read_json_uses_the_parser_given(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(b"abc")
    assert _read_json(path, "--x", lambda data: data[::-1]) == b"cba"


def test_read_request_takes_an_object_only(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    assert _read_request(None) is None
    path.write_text('{"model": "m"}')
    assert _read_request(path) == {"model": "m"}
    for text in ("[1, 2]", '"model"', "3", "null"):
        path.write_text(text)
        with pytest.raises(UsageError, match=rf"^--request {path} must be a JSON object"):
            _read_request(path)


# -- the redactor ----------------------------------------------------------------------------


def test_the_redactor_hides_the_key_given_and_those_of_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-the-env-1")
    monkeypatch.setenv("MOCKHTTP_API_KEY", "mock-key-from-the-env-2")
    redactor = _redactor(
        _args("http://h", "--api-key", "sk-given-3456789", "--header", "X-Api-Key: hdr-secret-4")
    )
    text = "a sk-given-3456789 b sk-ant-from-the-env-1 c mock-key-from-the-env-2 d hdr-secret-4"
    shown = redactor.text(text)
    for secret in ("sk-given-3456789", "sk-ant-from-the-env-1", "mock-key", "hdr-secret-4"):
        assert secret not in shown
    assert shown.startswith("a ")
    assert shown.endswith(" d [redacted]")


def test_the_redactor_leaves_plain_headers_and_survives_a_bad_one() -> None:
    redactor = _redactor(_args("http://h", "--header", "X-Trace: trace-value-1"))
    assert redactor.text("trace-value-1") == "trace-value-1"  # not a secret header
    broken = _redactor(_args("http://h", "--header", "nocolon", "--api-key", "sk-still-hidden"))
    assert broken.text("sk-still-hidden") == "[redacted]"  # the key is hidden all the same


# -- the choice of mode: usage errors before any I/O -----------------------------------------


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--body", "b.sse", "--as", "openia"], "--as: "),
        (["http://127.0.0.1:9", "--capture", "c.json"], "--capture is checked with --profile mcp"),
        (["--capture", "c.json", "--profile", "openai-chat"], "--capture is checked with"),
        (["--body", "b.sse", "--profile", "sse-resume"], "sse-resume is live only"),
        (
            ["http://127.0.0.1:9", "--profile", "sse-resume", "--profile", "openai-chat"],
            "sse-resume runs on its own (no other --profile, no --save)",
        ),
        (
            ["http://127.0.0.1:9", "--profile", "sse-resume", "--save", "s.yaml"],
            "sse-resume runs on its own",
        ),
        (
            ["http://127.0.0.1:9", "--profile", "sse-resume", "--api-key", "ké"],
            "the API key (--api-key or its environment variable) is not ASCII",
        ),
        (["http://[::1", "--profile", "sse-resume"], "the URL 'http://[::1' is not valid"),
        (
            ["http://127.0.0.1:9", "--profile", "ag-ui", "--profile", "openai-chat"],
            "live mode checks ag-ui on its own",
        ),
        (
            ["http://127.0.0.1:9", "--profile", "a2a", "--profile", "mcp"],
            "live mode checks a2a on its own",
        ),
        (
            ["http://127.0.0.1:9", "--profile", "mcp", "--profile", "openai-chat"],
            "live mode checks mcp on its own",
        ),
        (["http://127.0.0.1:9", "--model", "m", "--request", "r.json"], "cannot read --request"),
    ],
)
def test_usage_errors_exit_2_before_any_request(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)  # the files named do not exist there
    status, out, err = _check(capsys, *argv)
    assert status == 2
    assert out == ""
    assert err.startswith("mockhttp check: error: ")
    assert said in err


def test_an_unknown_provider_for_as_suggests_the_known_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = tmp_path / "b.sse"
    body.write_bytes(OPENAI_REFERENCE.body)
    status, _, err = _check(capsys, "--body", str(body), "--as", "openia")
    assert status == 2
    assert "openai" in err.removeprefix("mockhttp check: error: --as: ")


def test_a_capture_that_cannot_be_read_or_parsed_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = tmp_path / "gone.json"
    status, _, err = _check(capsys, "--capture", str(gone))
    assert status == 2
    assert f"cannot read --capture {gone}: No such file or directory" in err
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    status, out, err = _check(capsys, "--capture", str(bad), "--profile", "mcp")
    assert status == 2
    assert out == ""
    assert str(bad) in err


# -- offline ---------------------------------------------------------------------------------


def test_offline_says_which_profile_it_recognised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = tmp_path / "b.sse"
    body.write_bytes(OPENAI_REFERENCE.body)
    status, out, err = _check(capsys, "--body", str(body))
    assert status == 0
    assert err == (
        "mockhttp check: profile openai-chat (recognised from the exchange; --profile to choose)\n"
    )
    assert "0 violations" in out


def test_offline_nothing_recognised_falls_back_to_openai_chat_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = tmp_path / "b.sse"
    body.write_bytes(b"data: hello\n\n")
    status, _, err = _check(capsys, "--body", str(body))
    assert "profile openai-chat (nothing recognised: the default; --profile to choose)" in err
    assert status == 1  # "hello" is no Chat Completions chunk


def test_offline_a_buffered_answer_adds_the_stream_equals_buffered_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body, buffered = tmp_path / "b.sse", tmp_path / "buffered.json"
    body.write_bytes(OPENAI_REFERENCE.body)
    buffered.write_text(json.dumps(BUFFERED))
    status, out, _ = _check(capsys, "--body", str(body), "--json")
    without = set(json.loads(out)["exchanges"][0]["rules"])
    status, out, _ = _check(capsys, "--body", str(body), "--buffered", str(buffered), "--json")
    with_buffered = set(json.loads(out)["exchanges"][0]["rules"])
    added = with_buffered - without
    assert added
    assert all(rule.startswith("buffered.") for rule in added)
    assert status == 0


def test_offline_a_bad_head_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body, head = tmp_path / "b.sse", tmp_path / "h.txt"
    body.write_bytes(OPENAI_REFERENCE.body)
    head.write_text("not a head\n")
    status, out, err = _check(capsys, "--body", str(body), "--head", str(head))
    assert status == 2
    assert out == ""
    assert f"mockhttp check: error: --head {head}: " in err


@pytest.mark.parametrize("option", ["--junit", "--html"])
def test_a_report_file_that_cannot_be_written_exits_2_after_the_report(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = tmp_path / "b.sse"
    body.write_bytes(OPENAI_REFERENCE.body)
    target = tmp_path / "no" / "such" / "report"
    status, out, err = _check(capsys, "--body", str(body), option, str(target))
    assert status == 2
    assert "0 violations" in out  # the report was printed first
    assert f"mockhttp check: error: cannot write {option} {target}: No such file" in err


@pytest.mark.parametrize("option", ["--junit", "--html"])
def test_report_files_are_written(
    option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body, target = tmp_path / "b.sse", tmp_path / "report"
    body.write_bytes(OPENAI_REFERENCE.body)
    status, _, _ = _check(capsys, "--body", str(body), option, str(target))
    assert status == 0
    assert "openai.done" in target.read_text(encoding="utf-8")


# -- live, against a server on loopback ------------------------------------------------------


def test_live_save_writes_a_mock_file_that_replays_the_exchanges(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved, request = tmp_path / "saved.yaml", tmp_path / "request.json"
    request.write_text(json.dumps({"logprobs": False}))
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hi there")))
        status, out, err = _check(
            capsys, upstream.url, "--model", "gpt-test", "--request", str(request),
            "--api-key", "sk-live-key-0123456789", "--save", str(saved),
        )  # fmt: skip
        sent = len(upstream.journal)
    assert status == 0, out
    assert f"mockhttp check: saved {sent} exchanges to {saved}" in err
    text = saved.read_text(encoding="utf-8")
    assert "sk-live-key-0123456789" not in text
    with mockhttp.Server() as replay:
        replay.mock(mockhttp.load(saved))
        status, out, _ = _check(
            capsys, replay.url, "--model", "gpt-test", "--request", str(request)
        )
        assert status == 0, out
        assert [call.status for call in replay.journal] == [200] * sent


def test_live_save_to_a_folder_that_is_not_there_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "no" / "saved.yaml"
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hi")))
        status, out, err = _check(capsys, upstream.url, "--model", "m", "--save", str(target))
    assert status == 2
    assert out == ""
    assert f"mockhttp check: error: --save {target}: No such file or directory" in err


def test_live_a_key_the_endpoint_echoes_is_not_in_the_report(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-echoed-back-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    wrong = {"error": {"message": f"Incorrect API key provided: {key}", "type": "auth"}}
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post("/v1/chat/completions").reply(mockhttp.status(401).json(wrong)))
        status, out, err = _check(capsys, upstream.url, "--model", "m", "--verbose", "--json")
        sent = [call.request.headers.get("authorization") for call in upstream.journal]
    assert sent
    assert all(value == f"Bearer {key}" for value in sent)  # the key of the environment went
    assert status == 1
    assert key not in out
    assert key not in err
    assert "Incorrect API key provided: [redacted]" in out


def test_live_without_a_model_or_with_a_bad_url_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, err = _check(capsys, "http://127.0.0.1:9")
    assert status == 2
    assert "live mode needs --model" in err
    status, _, err = _check(capsys, "http://[::1", "--model", "m")
    assert status == 2
    assert "the URL 'http://[::1' is not valid" in err


def test_the_reference_request_is_a_valid_request_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--request in live mode: the base of every request sent, with its model."""
    request = tmp_path / "request.json"
    request.write_text(json.dumps({**REQUEST, "model": "from-the-file", "logprobs": False}))
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hi")))
        status, out, _ = _check(capsys, upstream.url, "--request", str(request))
        models = {json.loads(call.request.body)["model"] for call in upstream.journal}
    assert status == 0, out
    assert models == {"from-the-file"}
