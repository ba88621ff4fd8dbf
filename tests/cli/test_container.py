"""The container image's entry point (``docker/entrypoint.sh``), run on this machine as the
image runs it: the mounted folder's mocks or the built-in ones, the admin API locked by a
token unless chosen, compose service names allowed, other commands passed through.

The image itself is built and run by ``scripts/container_smoke.py`` (buildah; ``.ci/run``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx

from tests.helpers.cli_process import ROOT

ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"

STREAM = """\
- name: streamed
  request: {method: POST, path: /v1/stream}
  response:
    event_stream:
      events:
        - {data: one}
        - {data: two}
"""


class Container:
    """``docker/entrypoint.sh ARGS`` with the image's environment, on a free port."""

    def __init__(self, mocks: Path, *args: str, **env: str) -> None:
        bin_dir = str(Path(sys.executable).parent)
        environ = {k: v for k, v in os.environ.items() if not k.startswith("MOCKHTTP_")}
        environ.update(
            PATH=bin_dir + os.pathsep + environ.get("PATH", ""),
            PYTHONUNBUFFERED="1",
            MOCKHTTP_HOST="127.0.0.1",
            MOCKHTTP_PORT="0",
            MOCKHTTP_MOCKS=str(mocks),
            **env,
        )
        self.proc = subprocess.Popen(
            ["sh", str(ENTRYPOINT), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env=environ,
        )  # fmt: skip
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()
        assert self.url.startswith("http://127.0.0.1:"), self.stop()

    def stop(self) -> str:
        """Stop with SIGTERM (as ``docker stop`` does); the log."""
        self.proc.terminate()
        _, err = self.proc.communicate(timeout=20)
        assert self.proc.returncode == 0, err
        return err


def test_serves_the_mounted_folder_with_the_admin_api_locked(tmp_path: Path) -> None:
    (tmp_path / "stream.yaml").write_text(STREAM)
    box = Container(tmp_path)
    try:
        assert httpx.get(box.url + "/__mockhttp/health").json() == {"status": "ok", "mocks": 1}
        streamed = httpx.post(box.url + "/v1/stream")
        assert streamed.content == b"data: one\n\ndata: two\n\n"
        assert httpx.get(box.url + "/__mockhttp/mocks").status_code == 401
    finally:
        log = box.stop()
    assert "the admin API is locked (set MOCKHTTP_ADMIN_TOKEN to use it)" in log
    assert f"serving 1 mock from {tmp_path}" in log


def test_an_empty_folder_serves_the_built_in_mocks(tmp_path: Path) -> None:
    box = Container(tmp_path)
    try:
        chat = httpx.post(box.url + "/v1/chat/completions", json={"model": "m", "messages": []})
        assert chat.json()["choices"][0]["message"]["content"] == "Hello, world"
    finally:
        box.stop()


def test_a_chosen_token_lets_a_compose_service_name_through(tmp_path: Path) -> None:
    """In a compose network the client says ``Host: mockhttp:8080``: with the token, the
    admin API takes any Host (the token, not the name, proves the caller)."""
    box = Container(tmp_path, MOCKHTTP_ADMIN_TOKEN="s3cret-token")
    try:
        as_service = {"Host": "mockhttp:8080", "Authorization": "Bearer s3cret-token"}
        assert httpx.get(box.url + "/__mockhttp/mocks", headers=as_service).status_code == 200
        no_token = {"Host": "mockhttp:8080"}
        assert httpx.get(box.url + "/__mockhttp/mocks", headers=no_token).status_code == 401
    finally:
        log = box.stop()
    assert "s3cret-token" not in log


def test_an_open_admin_api_takes_only_the_allowed_names(tmp_path: Path) -> None:
    """Opened on purpose (no token), the admin API refuses a Host it does not know (DNS
    rebinding), and takes the names of ``MOCKHTTP_ALLOW_HOSTS``."""
    box = Container(tmp_path, MOCKHTTP_ADMIN="open", MOCKHTTP_ALLOW_HOSTS="mockhttp other")
    try:
        for name in ("mockhttp", "other"):
            answer = httpx.get(box.url + "/__mockhttp/mocks", headers={"Host": name + ":8080"})
            assert "openai-chat" in [m["name"] for m in answer.json()["mocks"]]
        elsewhere = httpx.get(box.url + "/__mockhttp/mocks", headers={"Host": "evil.example"})
        assert elsewhere.status_code == 403
    finally:
        log = box.stop()
    assert "locked" not in log


def test_serve_flags_are_added_and_other_commands_run_as_given(tmp_path: Path) -> None:
    box = Container(tmp_path, "--cors", "http://localhost:3000")
    try:
        answer = httpx.get(box.url + "/v1/models", headers={"Origin": "http://localhost:3000"})
        assert answer.headers["access-control-allow-origin"] == "http://localhost:3000"
    finally:
        box.stop()
    bin_dir = str(Path(sys.executable).parent)
    environ = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ["PATH"]}
    done = subprocess.run(
        ["sh", str(ENTRYPOINT), "mockhttp", "--version"], capture_output=True, text=True,
        env=environ, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("mockhttp "), done.stdout
