"""``_cli/_main.py`` in process: the argument types, the pure helpers behind ``serve``,
``validate``, ``defaults``, and every way ``serve`` refuses to start before it listens.

The served path (a real process on a real port, signals) is ``test_cli.py``'s."""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path

import pytest

from mockhttp._cli._main import (
    TOKEN_ENV,
    _allowing,
    _ca_line,
    _empty_folders,
    _expander,
    _port,
    _positive,
    _stopper,
    _with_defaults,
    _workers_arg,
    admin_warning,
    main,
)
from mockhttp._cli._serve import DEFAULTS
from mockhttp._mockfile._load import files, load
from mockhttp.mcp import McpServer

PING = "name: ping\nrequest: {path: /ping}\nresponse: {body: pong}\n"
PONG = "name: pong\nrequest: {path: /pong}\nresponse: {body: ping}\n"


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _built_in_names() -> set[str]:
    return {m.name for m in load(DEFAULTS) if m.name is not None}


# -- argument types --------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["0", "1", "8080", "65535"])
def test_port_takes_every_port_number(text: str) -> None:
    assert _port(text) == int(text)


@pytest.mark.parametrize("text", ["65536", "-1", "", "80x", "1e3", " 80", "99999999"])
def test_port_refuses_what_is_not_a_port(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="is not a port number from 0 to 65535"):
        _port(text)


@pytest.mark.parametrize("text", ["1", "10000", "007"])
def test_positive_takes_whole_numbers_from_one(text: str) -> None:
    assert _positive(text) == int(text)


@pytest.mark.parametrize("text", ["0", "-1", "1.5", "", "ten"])
def test_positive_refuses_zero_and_what_is_not_whole(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=r"is not a positive whole number"):
        _positive(text)


def test_workers_takes_a_count_or_auto() -> None:
    assert _workers_arg("3") == 3
    assert _workers_arg("auto") >= 1


@pytest.mark.parametrize("text", ["0", "-2", "many", ""])
def test_workers_refuses_the_rest_as_an_argument_error(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="or 'auto'"):
        _workers_arg(text)


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["serve", "--port", "70000"], "argument --port: '70000' is not a port number"),
        (["serve", "--journal-limit", "0"], "argument --journal-limit: '0' is not a positive"),
        (["serve", "--workers", "none"], "argument --workers: 'none' is not a positive"),
        (["serve", "--quiet", "--verbose"], "not allowed with argument --quiet"),
        (["serve", "--loop", "trio"], "argument --loop: invalid choice: 'trio'"),
        (["validate"], "the following arguments are required: PATH"),
        (["launch"], "invalid choice: 'launch'"),
    ],
)
def test_a_bad_command_line_is_a_usage_error_that_names_the_argument(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: mockhttp")
    assert said in err


def test_no_command_prints_the_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    err = capsys.readouterr().err
    for command in ("serve", "validate", "defaults", "record", "ui", "check"):
        assert command in err


@pytest.mark.parametrize(
    ("command", "prog"),
    [("check", "mockhttp check"), ("record", "mockhttp record"), ("ui", "mockhttp ui")],
)
def test_check_and_record_have_parsers_of_their_own(
    command: str, prog: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([command, "--help"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: {prog} ")


# -- the pure helpers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "localhost", "LocalHost", "::1", "[::1]", "127.9.9.9"]
)
def test_no_warning_for_an_admin_api_on_loopback(host: str) -> None:
    assert admin_warning(host, None, admin=True) is None


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.4", "example.com"])
def test_an_admin_api_the_network_reaches_without_a_token_is_warned_of(host: str) -> None:
    warning = admin_warning(host, None, admin=True)
    assert warning is not None
    assert f"the admin API on {host} is open to the network without a token" in warning
    assert f"${TOKEN_ENV}" in warning
    assert "--no-admin" in warning
    assert admin_warning(host, "s3cret", admin=True) is None  # a token: nothing to say
    assert admin_warning(host, None, admin=False) is None  # no admin API: nothing to say


def test_the_ca_line_says_where_the_pem_is_and_whether_it_is_kept() -> None:
    thrown = _ca_line("/tmp/x/ca.pem")
    kept = _ca_line(Path("/keep/ca.pem"), kept=True)
    assert "a throwaway CA: /tmp/x/ca.pem " in thrown
    assert "the CA kept in --ca-dir: /keep/ca.pem " in kept
    for line in (thrown, kept):
        assert line.startswith("mockhttp: https with ")
        assert "SSL_CERT_FILE" in line
        assert "NODE_EXTRA_CA_CERTS" in line


def test_the_stopper_sets_its_event_whatever_the_signal() -> None:
    stop = threading.Event()
    handle = _stopper(stop)
    assert not stop.is_set()
    handle(signal.SIGTERM, None)
    assert stop.is_set()


def test_empty_folders_are_the_folders_without_a_mock_file(tmp_path: Path) -> None:
    empty, full, other = tmp_path / "empty", tmp_path / "full", tmp_path / "other"
    for folder in (empty, full, other):
        folder.mkdir()
    _write(full, "a.yaml", PING)
    _write(other, "notes.txt", "not a mock")
    given = _write(tmp_path, "b.yaml", PONG)
    assert _empty_folders([empty, full, other, given]) == [empty, other]


def test_without_defaults_the_mocks_are_left_as_they_are(tmp_path: Path) -> None:
    mocks = load(_write(tmp_path, "a.yaml", PING))
    assert _with_defaults(mocks, False) is mocks


def test_defaults_come_first_ranked_below_yours(tmp_path: Path) -> None:
    mocks = load(_write(tmp_path, "a.yaml", PING))
    served = _with_defaults(mocks, True)
    assert served[-1:] == mocks
    built_in = served[:-1]
    assert {m.name for m in built_in} == _built_in_names()
    assert max(m.priority for m in built_in) < min(m.priority for m in mocks)


def test_defaults_rank_below_your_lowest_priority(tmp_path: Path) -> None:
    low = "name: low\npriority: -7\nrequest: {path: /low}\nresponse: {body: low}\n"
    mocks = load(_write(tmp_path, "a.yaml", low)) + load(_write(tmp_path, "b.yaml", PING))
    built_in = _with_defaults(mocks, True)[: -len(mocks)]
    assert max(m.priority for m in built_in) < -7


def test_a_mock_of_yours_with_a_built_in_name_replaces_it(tmp_path: Path) -> None:
    taken = sorted(_built_in_names())[0]
    mine = load(
        _write(tmp_path, "a.yaml", f"name: {taken}\nrequest: {{path: /x}}\nresponse: {{body: x}}\n")
    )
    served = _with_defaults(mine, True)
    assert [m for m in served if m.name == taken] == mine
    assert len(served) == len(_built_in_names())


def test_the_expander_adds_the_defaults_at_each_reload(tmp_path: Path) -> None:
    mocks = load(_write(tmp_path, "a.yaml", PING))
    assert _expander(False, False)(mocks) == mocks
    expanded = _expander(True, False)(mocks)
    assert {m.name for m in expanded} == _built_in_names() | {"ping"}


def test_allowing_widens_every_mcp_server_after_the_expansion(tmp_path: Path) -> None:
    mocks = load(_write(tmp_path, "a.yaml", PING))
    widened = _allowing(_expander(True, False), ["dev.example"], ["http://app.example:3000"])(mocks)
    servers = [m.kind for m in widened if isinstance(m.kind, McpServer)]
    assert servers, "the built-in mocks hold an MCP server"
    for kind in servers:
        assert "dev.example" in kind.allow_hosts
        assert "http://app.example:3000" in kind.allow_origins
    plain = next(m for m in widened if m.name == "ping")
    assert plain == mocks[0]


# -- validate --------------------------------------------------------------------------------


def test_validate_says_ok_for_each_good_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _write(tmp_path, "a.yaml", PING)
    b = _write(tmp_path, "b.yaml", PING.replace("ping", "one") + "---\n" + PONG)
    assert main(["validate", str(a), str(b)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"{a}: ok, 1 mock", f"{b}: ok, 2 mocks"]


def test_validate_prints_each_error_with_its_place_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = _write(tmp_path, "a.yaml", PING)
    bad = _write(tmp_path, "b.yaml", "name: bad\nrequest: {path: /b}\nresponse: {statuss: 200}\n")
    assert main(["validate", str(good), str(bad)]) == 1
    captured = capsys.readouterr()
    assert f"{good}: ok, 1 mock" in captured.out
    assert str(bad) not in captured.out
    assert f"{bad}:3" in captured.err  # the file and the line of the bad field
    assert "statuss" in captured.err


def test_validate_checks_names_across_every_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """serve loads the paths together, so a name given in two files is an error."""
    a = _write(tmp_path, "a.yaml", PING)
    b = _write(tmp_path, "b.yaml", PING.replace("/ping", "/other"))
    assert main(["validate", str(a), str(b)]) == 1
    err = capsys.readouterr().err
    assert f"{b}:1" in err
    assert "a mock named 'ping' is already defined at" in err
    assert str(a) in err


def test_validate_an_empty_folder_or_a_missing_path_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    good = _write(tmp_path, "a.yaml", PING)
    assert main(["validate", str(empty), str(tmp_path / "gone.yaml"), str(good)]) == 1
    captured = capsys.readouterr()
    assert f"{empty}: no mock files (*.yaml, *.yml, *.json) in it" in captured.err
    assert "gone.yaml" in captured.err
    assert f"{good}: ok, 1 mock" in captured.out  # the others are still checked


def test_validate_warns_of_a_mock_another_hides_but_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _write(tmp_path, "a.yaml", PING)
    b = _write(tmp_path, "b.yaml", PING.replace("name: ping", "name: again"))
    assert main(["validate", str(a), str(b)]) == 0
    err = capsys.readouterr().err
    assert "warning:" in err
    assert "'ping'" in err
    assert "'again'" in err


# -- defaults --------------------------------------------------------------------------------


def test_defaults_lists_every_built_in_mock(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["defaults"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(load(DEFAULTS))
    listed = {line.split()[0] for line in out}
    assert listed == _built_in_names()
    for path in files([DEFAULTS]):
        assert any(line.endswith(f"({path.name})") for line in out)


def test_defaults_out_writes_the_files_once_and_keeps_edits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "new" / "mocks"
    assert main(["defaults", "--out", str(out)]) == 0
    built_in = files([DEFAULTS])
    written = capsys.readouterr().out.splitlines()
    assert written == [str(out / p.name) for p in built_in]
    for path in built_in:
        assert (out / path.name).read_bytes() == path.read_bytes()
    edited = out / built_in[0].name
    edited.write_text("# mine\n", encoding="utf-8")
    assert main(["defaults", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{edited}: exists, left as it is" in err
    assert edited.read_text(encoding="utf-8") == "# mine\n"


def test_defaults_out_on_a_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = _write(tmp_path, "file", "")
    assert main(["defaults", "--out", str(blocker / "sub")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"mockhttp defaults: cannot create {blocker / 'sub'}: ")
    assert "Traceback" not in err


# -- serve: what stops it before it listens --------------------------------------------------


def test_serve_a_bad_file_exits_1_with_its_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = _write(tmp_path, "a.yaml", "request: {path: /a}\nresponse: {bodyy: x}\n")
    assert main(["serve", str(bad), "--port", "0"]) == 1
    captured = capsys.readouterr()
    assert f"{bad}:2" in captured.err
    assert "bodyy" in captured.err
    assert captured.out == ""  # no URL: it never listened


def test_serve_an_empty_folder_exits_2_and_names_allow_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", str(tmp_path), "--port", "0"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"{tmp_path}: no mock files (*.yaml, *.yml, *.json) in it",
        "mockhttp: nothing to serve; --allow-empty starts anyway",
    ]


def test_serve_ca_dir_without_tls_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ping = _write(tmp_path, "a.yaml", PING)
    assert main(["serve", str(ping), "--port", "0", "--ca-dir", str(tmp_path / "ca")]) == 1
    err = capsys.readouterr().err
    assert err == "mockhttp: --ca-dir DIR keeps the certificates of --tls: add --tls\n"
    assert not (tmp_path / "ca").exists()


def test_serve_a_bad_cors_origin_hints_at_paths_after_cors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--cors`` takes several values, so a path after it is read as an origin."""
    ping = _write(tmp_path, "a.yaml", PING)
    assert main(["serve", "--port", "0", "--cors", str(ping)]) == 1
    err = capsys.readouterr().err
    assert "cors origin" in err
    assert "must be scheme://host[:port]" in err
    assert err.endswith("(paths go before --cors, or end its origins with --)\n")


def test_serve_a_missing_path_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", str(tmp_path / "gone.yaml"), "--port", "0"]) == 1
    assert "gone.yaml" in capsys.readouterr().err
