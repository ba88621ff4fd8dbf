"""docs/ci.md's shell recipe runs as written: a real ``mockhttp serve``, its printed URL,
the health probe, a real Node (node:test and fetch) test against it, the log kept, the
server stopped."""

from __future__ import annotations

import os
import re
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "ci.md").read_text()


def block(lang: str, first_line: str) -> str:
    """The page's ```lang block that starts with ``first_line`` (or holds it first)."""
    for code in re.findall(rf"^```{lang}\n(.*?)^```$", PAGE, re.S | re.M):
        if first_line in code.splitlines()[:2]:
            return str(code)
    raise AssertionError(f"docs/ci.md has no {lang} block starting {first_line!r}")


def project(tmp_path: Path) -> Path:
    """A Node project as the page lays it out, with ``mockhttp`` on PATH (this tree's)."""
    (tmp_path / "mocks").mkdir()
    (tmp_path / "test").mkdir()
    (tmp_path / "scripts").mkdir()
    (tmp_path / "bin").mkdir()
    (tmp_path / "mocks" / "chat.yaml").write_text(block("yaml", "name: chat"))
    (tmp_path / "mocks" / "stream.yaml").write_text(block("yaml", "name: stream"))
    (tmp_path / "test" / "chat.test.mjs").write_text(
        block("js", 'import { test } from "node:test";')
    )
    (tmp_path / "scripts" / "ci-mockhttp.sh").write_text(block("sh", "#!/bin/sh"))
    wrapper = tmp_path / "bin" / "mockhttp"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m mockhttp "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return tmp_path


def run_recipe(where: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PATH": f"{where / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT / "src"),
    }
    env.pop("NODE_OPTIONS", None)
    return subprocess.run(
        ["sh", "scripts/ci-mockhttp.sh"],
        cwd=where, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed here")
@pytest.mark.skipif(shutil.which("curl") is None, reason="the recipe polls with curl")
def test_the_node_recipe_runs_its_tests_against_the_printed_url(tmp_path: Path) -> None:
    where = project(tmp_path)
    done = run_recipe(where)
    assert done.returncode == 0, done.stdout + done.stderr
    url = (where / "logs" / "mockhttp.url").read_text().strip()
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", url)
    assert f"mockhttp ready at {url}" in done.stdout
    assert "# pass 2" in done.stdout  # the JSON mock, and the streamed one read as SSE
    assert "# fail 0" in done.stdout
    log = (where / "logs" / "mockhttp.log").read_text()
    assert "POST /v1/chat/completions" in log  # the request log, kept as the artifact
    assert "GET /__mockhttp/health → admin 200" in log  # the probe, polled until ready
    port = int(url.rsplit(":", 1)[1])
    with pytest.raises(ConnectionRefusedError):  # the server was stopped: nothing listens
        socket.create_connection(("127.0.0.1", port), timeout=1)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed here")
def test_the_node_recipe_fails_with_a_failing_test_and_still_stops(tmp_path: Path) -> None:
    where = project(tmp_path)
    test = where / "test" / "chat.test.mjs"
    test.write_text(test.read_text().replace('"hello"', '"goodbye"'))
    done = run_recipe(where)
    assert done.returncode != 0
    assert "# fail 1" in done.stdout


def test_the_node_recipe_reports_a_server_that_cannot_start(tmp_path: Path) -> None:
    where = project(tmp_path)
    (where / "mocks" / "chat.yaml").write_text("request: {pth: /x}\n")
    done = run_recipe(where)
    assert done.returncode == 1
    assert "mockhttp did not start:" in done.stderr
    assert "chat.yaml:1:11 at request.pth: unknown key 'pth'" in done.stderr


# -- the Go project ------------------------------------------------------------------------


def go_project(tmp_path: Path) -> Path:
    """The Go project as the page lays it out: the chat mock, the streamed one, the test."""
    where = project(tmp_path)
    (where / "test").rename(where / "node-test")  # `go test ./...` reads Go packages only
    (where / "go.mod").write_text("module example.com/chat\n\ngo 1.19\n")
    (where / "chat_test.go").write_text(block("go", "package chat_test"))
    return where


def run_go_recipe(where: Path) -> subprocess.CompletedProcess[str]:
    """The script with ``go test``; Go's own build cache (``go env GOCACHE``) is kept, so
    only a machine's first run compiles the standard library's test packages (~40 s)."""
    env = {
        **os.environ,
        "PATH": f"{where / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(ROOT / "src"),
        "GOPATH": str(where / "gopath"),
        "GOFLAGS": "-count=1",  # run the tests every time, never "(cached)"
        "GOPROXY": "off",  # the standard library only: nothing to download
    }
    return subprocess.run(
        ["sh", "scripts/ci-mockhttp.sh", "go", "test", "-v", "./..."],
        cwd=where, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip


needs_go = pytest.mark.skipif(
    shutil.which("go") is None, reason="go is not installed here (apt-get install golang-go)"
)


@needs_go
@pytest.mark.skipif(shutil.which("curl") is None, reason="the recipe polls with curl")
def test_the_go_recipe_runs_go_test_against_the_printed_url(tmp_path: Path) -> None:
    """A real ``go test``: the JSON mock and its journal, and the SSE stream read with bufio."""
    where = go_project(tmp_path)
    done = run_go_recipe(where)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--- PASS: TestChatMock" in done.stdout
    assert "--- PASS: TestChatStream" in done.stdout
    assert re.search(r"^ok\s+example\.com/chat\s", done.stdout, re.M)
    log = (where / "logs" / "mockhttp.log").read_text()
    assert "POST /v1/chat/completions → mock 'stream' 200, 5 events, complete" in log
    url = (where / "logs" / "mockhttp.url").read_text().strip()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=1)


@needs_go
def test_the_go_recipe_fails_when_the_stream_breaks(tmp_path: Path) -> None:
    """The stream mock sends other text: TestChatStream fails, go test and the script exit 1."""
    where = go_project(tmp_path)
    stream = where / "mocks" / "stream.yaml"
    stream.write_text(stream.read_text().replace("Hello, world", "Goodbye"))
    done = run_go_recipe(where)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "--- FAIL: TestChatStream" in done.stdout
    assert 'text "Goodbye"' in done.stdout
    assert "--- PASS: TestChatMock" in done.stdout


def test_every_python_job_that_runs_pytest_installs_it() -> None:
    """The Python steps installed mockhttp and the project, not pytest (mockhttp does not
    depend on it): ``pytest`` was not found."""
    jobs = [code for code in re.findall(r"^```yaml\n(.*?)^```$", PAGE, re.S | re.M)]
    running = [job for job in jobs if re.search(r"run: pytest\b", job)]
    assert running
    for job in running:
        installs = re.findall(r"run: pip install (.*)", job)
        assert any(re.search(r"(^|\s)pytest(\s|$)", line) for line in installs), job
