"""``serve --watch`` keeps the last good mocks when a save does not load (issue 19).

A wrong-typed value, bad YAML, a folder nested too deep: the server logs why (file:line)
and goes on answering with the previous mocks, in one process and with ``--workers 2``;
the file fixed, the new mocks answer.

Each save is made in one step (written beside the watched folder, then renamed into it; the
deep folder built beside it and moved in), so the watcher sees every save whole, once: a save
it caught half written (a file truncated, a folder 70 levels into its 1,100) was a fourth
"not reloaded" line.  Waiting for "every worker serves the new mocks" is a condition on the
workers' answers, not a count of "reloaded" lines: a save that is fine on its own (the first
mocks written back, the deep folder removed) also reloads, so the lines do not say *what*
each worker loaded.  The new mock is named, and the journal (each call tagged with the worker
that answered it) shows it answering on every worker.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx
import pytest

from tests.helpers.cli_process import Serving
from tests.helpers.folders import deep_folder, remove_deep


def _get(url: str) -> httpx.Response:
    with httpx.Client() as client:  # a fresh connection: any worker may answer
        return client.get(url, headers={"Connection": "close"})


def _beside(path: Path) -> Path:
    """A path beside the watched folder (``path``'s), for a save made before it is moved in."""
    return path.parent.parent / f"{path.parent.name}-{path.name}.part"


def _save(path: Path, text: str) -> None:
    """Replace ``path``'s content in one step: the watcher never sees half a save."""
    part = _beside(path)
    part.write_text(text)
    os.replace(part, path)


def _wait_every_worker_answers_with(serving: Serving, name: str, workers: int) -> None:
    """Until every worker (one without ``--workers``) has answered ``/x`` with the mock
    named ``name``: the files do not change after, so each keeps serving it."""
    deadline = time.monotonic() + 60
    while True:
        _get(serving.url + "/x")
        calls = httpx.get(serving.url + "/__mockhttp/journal").json()["calls"]
        answered = {c.get("worker") for c in calls if c["mock_describe"] == repr(name)}
        if len(answered) == workers:
            return
        assert time.monotonic() < deadline, (answered, "".join(serving.log))
        assert serving.proc.poll() is None, "".join(serving.log)
        time.sleep(0.05)


def _wait_count(serving: Serving, text: str, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while sum(text in line for line in serving.log) < count:
        assert time.monotonic() < deadline, "".join(serving.log)
        assert serving.proc.poll() is None, "".join(serving.log)
        time.sleep(0.05)


@pytest.mark.parametrize("workers", [[], ["--workers", "2"]], ids=["one-process", "workers"])
def test_a_bad_save_keeps_the_previous_mocks(tmp_path: Path, workers: list[str]) -> None:
    mocks = tmp_path / "m.yaml"
    _save(mocks, "request: {path: /x}\nresponse: {body: v1}\n")
    with Serving(str(tmp_path), "--watch", "--quiet", *workers) as serving:
        if workers:
            serving.wait_for_log("with 2 workers")
        assert _get(serving.url + "/x").text == "v1"

        _save(mocks, "request: {path: /x}\nresponse:\n  openai_chat: {tool_calls: 5}\n")
        _wait_count(serving, f"{mocks}:3:29 at response.openai_chat.tool_calls: found an int 5", 1)
        assert "Traceback" not in "".join(serving.log)
        assert {_get(serving.url + "/x").text for _ in range(6)} == {"v1"}

        _save(mocks, "request: {path: /x\nresponse: {body: v2}\n")  # a brace left open
        _wait_count(serving, f"{mocks}:2:", 1)
        assert {_get(serving.url + "/x").text for _ in range(6)} == {"v1"}

        _save(mocks, "request: {path: /x}\nresponse: {body: v1}\n")
        deep, building = tmp_path / "deep", _beside(tmp_path / "deep")
        building.mkdir()
        (deep_folder(building, 1100) / "n.yaml").write_text("request: {path: /n}\n")
        os.replace(building, deep)
        _wait_count(serving, "a folder nested more than 64 levels deep", 1)
        assert {_get(serving.url + "/x").text for _ in range(6)} == {"v1"}
        os.replace(deep, building)
        remove_deep(building)

        _save(mocks, "name: v2\nrequest: {path: /x}\nresponse: {body: v2}\n")
        _wait_every_worker_answers_with(serving, "v2", 2 if workers else 1)
        assert {_get(serving.url + "/x").text for _ in range(6)} == {"v2"}
        assert sum("not reloaded" in line for line in serving.log) == 3, "".join(serving.log)
        assert serving.proc.poll() is None
        assert serving.stop() == 0
    assert not deep.exists()
    assert not building.exists()
