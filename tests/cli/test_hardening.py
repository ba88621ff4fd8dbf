"""``mockhttp serve`` and ``validate`` under odd input and signals (issue 12)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.helpers.cli_process import ROOT, Serving, mockhttp_command, run

YAML = {"Content-Type": "application/yaml"}


def test_serve_admin_token_from_the_option_or_the_environment() -> None:
    with Serving("--admin-token", "opt-token") as serving:
        url = serving.url + "/__mockhttp/mocks"
        assert httpx.get(url).status_code == 401
        ok = httpx.get(url, headers={"Authorization": "Bearer opt-token"})
        assert ok.status_code == 200
    os.environ["MOCKHTTP_ADMIN_TOKEN"] = "env-token"
    try:
        with Serving() as serving:
            url = serving.url + "/__mockhttp/mocks"
            assert httpx.get(url).status_code == 401
            assert httpx.get(url, headers={"Authorization": "Bearer env-token"}).is_success
    finally:
        del os.environ["MOCKHTTP_ADMIN_TOKEN"]


def test_serve_no_admin_leaves_the_prefix_to_the_mocks() -> None:
    with Serving("--no-admin", "--journal-bytes", "1MiB") as serving:
        answer = httpx.post(serving.url + "/__mockhttp/reset", headers=YAML)
        assert answer.status_code == 404  # no mock there: the admin API is off
        assert "no mock matched POST /__mockhttp/reset" in answer.text


def test_serve_refuses_a_fifo_instead_of_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "mocks.yaml"
    os.mkfifo(fifo)
    done = run("serve", "--port", "0", str(fifo), timeout=20)
    assert done.returncode == 1
    assert "not a regular file" in done.stderr


def test_validate_a_folder_of_symlink_loops_fails(tmp_path: Path) -> None:
    """A folder whose files were all symlink loops validated silently, exit 0."""
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    done = run("validate", str(tmp_path))
    assert done.returncode == 1
    assert "a broken or looping symbolic link" in done.stderr
    lock = tmp_path / "editing"
    lock.mkdir()
    (lock / "ok.yaml").write_text("request: {path: /x}\n")
    (lock / ".#ok.yaml").symlink_to("someone@host.1234")  # an editor's lock file
    assert run("validate", str(lock)).returncode == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    done = run("validate", str(empty))
    assert done.returncode == 1
    assert "no mock files" in done.stderr


def test_validate_unknown_tags_and_huge_ints_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "tag.yaml").write_text("request:\n  path: !foo /x\n")
    (tmp_path / "int.yaml").write_text("response: {status: " + "7" * 5000 + "}\n")
    done = run("validate", str(tmp_path))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert f"{tmp_path / 'int.yaml'}:1:20 at response.status: found a number of 5,000" in (
        done.stderr
    )
    assert f"{tmp_path / 'tag.yaml'}:2:9 at request.path: could not determine" in done.stderr


def test_sigterm_stops_serve_within_a_second_even_with_a_blocked_loop(tmp_path: Path) -> None:
    """A loop stuck in a slow matcher made SIGTERM wait for its thread (5 s, or the match).

    Measured in CPU seconds, which a loaded machine does not stretch: the match below costs
    ~26 s of CPU, so a serve that waits for its loop burns most of them after the signal; one
    that leaves at once burns its half-second wait at most.  The wall-clock bound is only a
    backstop (the waiting serve took the whole match, a minute on a loaded machine)."""
    (tmp_path / "slow.yaml").write_text(
        "request: {method: POST, path: /slow, body: [json_path, '$..z', 5]}\n"
    )
    body = json.dumps([{"x": i, "y": [i, {"z": i}]} for i in range(400_000)]).encode()
    with Serving(str(tmp_path), "--quiet") as serving:
        idle = _cpu_seconds(serving.proc.pid)
        sender = threading.Thread(
            target=lambda: _quietly(httpx.post, serving.url + "/slow", content=body, timeout=90),
            daemon=True,
        )
        sender.start()
        # the body is in and parsed (~0.2 s of CPU) once the process has burnt 1.5 s more:
        # its loop is in the match
        _wait_until(lambda: _cpu_seconds(serving.proc.pid) > idle + 1.5, timeout=120)
        at_signal = _cpu_seconds(serving.proc.pid)
        start = time.monotonic()
        serving.proc.send_signal(signal.SIGTERM)
        last = at_signal
        while serving.proc.poll() is None and time.monotonic() - start < 60:
            last = max(last, _cpu_seconds(serving.proc.pid, default=last))
            time.sleep(0.01)
        status = serving.stop()
        took = time.monotonic() - start
    # the sender's request fails with the server gone: its client is closed before the test
    # ends (a loaded machine could leave it open past the teardown, socket and all)
    sender.join(timeout=60)
    assert not sender.is_alive()
    assert status == 0
    assert last - at_signal < 3.0, (last - at_signal, took)  # the waiting serve: ~20 s
    assert took < 20.0, took


def _cpu_seconds(pid: int, default: float = 0.0) -> float:
    """User and system CPU seconds process ``pid`` has used (``default`` once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return default
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_until(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.02)


def _quietly(call: object, *args: object, **kwargs: object) -> None:
    with contextlib.suppress(httpx.HTTPError):
        call(*args, **kwargs)  # type: ignore[operator]


@pytest.mark.parametrize("option", ["--journal-bytes", "--header-timeout"])
def test_serve_refuses_bad_limits(option: str) -> None:
    done = subprocess.run(
        mockhttp_command("serve", option, "-3"), capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 2
    assert option in done.stderr


def test_verbose_logs_redact_secret_headers_unless_told_not_to() -> None:
    secret = {"Authorization": "Bearer sk-live-1", "X-Api-Key": "k-2"}
    with Serving("--verbose", "--no-admin") as serving:
        httpx.get(serving.url + "/v1/models", headers=secret)
        assert "Authorization: Bearer [redacted]" in serving.wait_for_log("Authorization")
        assert "X-Api-Key: [redacted]" in serving.wait_for_log("X-Api-Key")
    with Serving("--verbose", "--no-redact") as serving:
        httpx.get(serving.url + "/v1/models", headers=secret)
        assert "Authorization: Bearer sk-live-1" in serving.wait_for_log("Authorization")


SECRET_MOCK = """\
request:
  method: POST
  path: /v1/chat
  header: {authorization: "Bearer good", x-api-key: [regex, "^k-"]}
response: {body: hello}
"""
SENT = {"Authorization": "Bearer sk-live-123", "x-api-key": "zz-key-456"}


def test_unmatched_explanations_redact_secret_headers_in_the_journal_and_the_log(
    tmp_path: Path,
) -> None:
    """The closest mock's explanation repeated the secret (journal and default log line)."""
    (tmp_path / "chat.yaml").write_text(SECRET_MOCK)
    with Serving(str(tmp_path)) as serving:
        miss = httpx.post(serving.url + "/v1/chat", headers=SENT)
        assert miss.status_code == 404
        assert "sk-live-123" not in miss.text  # redacted: an SDK prints it in CI logs
        line = serving.wait_for_log("no match")
        journal = httpx.get(serving.url + "/__mockhttp/journal?mock=none").json()
    assert "sk-live-123" not in line
    assert "header 'authorization': got 'Bearer [redacted]', expected 'Bearer [redacted]'" in line
    [call] = journal["calls"]
    shown = json.dumps(call)
    assert "sk-live-123" not in shown
    assert "zz-key-456" not in shown
    explanation = call["explanation"]
    assert "got 'Bearer [redacted]', expected 'Bearer [redacted]'" in explanation["message"]
    assert "got '[redacted]', expected regex('^k-')" in explanation["message"]
    auth, key = explanation["closest"][0]["differences"]
    assert auth["actual"] == "Bearer [redacted]"
    assert auth["reason"] == "got 'Bearer [redacted]', expected 'Bearer [redacted]'"
    assert key["actual"] == "[redacted]"
    with Serving(str(tmp_path), "--no-redact") as serving:
        httpx.post(serving.url + "/v1/chat", headers=SENT)
        line = serving.wait_for_log("no match")
        journal = httpx.get(serving.url + "/__mockhttp/journal").json()
    assert "got 'Bearer sk-live-123'" in line
    assert "sk-live-123" in journal["calls"][0]["explanation"]["message"]
    assert "[redacted]" not in json.dumps(journal)


def test_verbose_logs_of_a_miss_redact_the_explanation_too(tmp_path: Path) -> None:
    (tmp_path / "chat.yaml").write_text(SECRET_MOCK)
    with Serving(str(tmp_path), "--verbose", "--no-admin") as serving:
        httpx.post(serving.url + "/v1/chat", headers=SENT)
        serving.wait_for_log("x-api-key: [redacted]")
        log = "".join(serving.log)
    assert "sk-live-123" not in log
    assert "zz-key-456" not in log
    assert "got 'Bearer [redacted]'" in log


def test_validate_reports_deeply_nested_files_and_goes_on(tmp_path: Path) -> None:
    """A mock file nested 100,000 levels deep crashed validate with a RecursionError and
    hid the other files of the folder."""
    deep = tmp_path / "deep"
    deep.mkdir()
    (deep / "a.json").write_text("[" * 100_000 + "]" * 100_000)
    (deep / "b.yaml").write_text("[" * 100_000 + "]" * 100_000)
    (deep / "c.yaml").write_text(
        "request: {path: /d}\nresponse:\n  json: " + "[" * 100_000 + "]" * 100_000 + "\n"
    )
    (deep / "d.json").write_text('{"a": ' * 100_000 + "1" + "}" * 100_000)
    (deep / "ok.yaml").write_text("request: {path: /x}\n")
    done = run("validate", str(deep))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "RecursionError" not in done.stderr
    assert (
        f"{deep / 'a.json'}:1:100000: not valid JSON: nested too deep to parse (100,000 levels)"
        in done.stderr
    )
    assert f"{deep / 'b.yaml'}:1:1001: not valid YAML: exceeded maximum nesting depth" in (
        done.stderr
    )
    assert f"{deep / 'c.yaml'}:3:" in done.stderr
    assert f"{deep / 'd.json'}:1:599995: not valid JSON: nested too deep" in done.stderr
    assert f"{deep / 'ok.yaml'}: ok, 1 mock" in done.stdout
    for one in ("a.json", "b.yaml"):
        alone = run("validate", str(deep / one))
        assert alone.returncode == 1
        assert "Traceback" not in alone.stderr
        assert f"{deep / one}:1:" in alone.stderr
