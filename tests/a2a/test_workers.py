"""``mockhttp serve --workers 2`` with an A2A agent: its tasks and push configs are kept
by the supervisor (``_core/_kept.py``), so a task made through one worker is read through
the other, on its schedule, and a push config set through one is listed through the other
(wire: real processes, a fresh connection per request: the kernel hands each to one
worker or the other; the journal says which)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers.cli_process import Serving

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT spreading: Linux"
)

FILE = textwrap.dedent(
    """\
    request: {path: /}
    response:
      a2a:
        push_notifications: true
        tasks:
          - - {status: working, text: Looking it up}
            - {artifact: Sunny}
            - {status: completed, delay: 600}
    """
)
TRIES = 40  # fresh connections: both workers take one of them but 1 time in 2**39


def rpc(method: str, id_: int, **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def post(url: str, message: dict[str, Any]) -> Any:
    """One JSON-RPC call on a connection of its own: its result."""
    answer = httpx.post(url + "/", json=message, timeout=30)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert "result" in body, body
    return body["result"]


def workers_of(url: str, method: str) -> list[int]:
    """Which worker answered each call of ``method``, in order (the journal)."""
    calls = httpx.get(url + "/__mockhttp/journal", timeout=30).json()["calls"]
    return [
        c["worker"]
        for c in calls
        if c["request"]["method"] == "POST"
        and c["request"]["body"]
        and json.loads(c["request"]["body"]).get("method") == method
    ]


def test_a_task_and_its_push_configs_are_every_workers(tmp_path: Path) -> None:
    mocks = tmp_path / "a2a.yaml"
    mocks.write_text(FILE)
    with Serving(str(mocks), "--workers", "2", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        url = serving.url
        part = {"kind": "text", "text": "weather?"}
        message = {"kind": "message", "messageId": "m1", "role": "user", "parts": [part]}
        now = {"blocking": False}  # (its run stops in 600 s)
        made = post(url, rpc("message/send", 1, message=message, configuration=now))
        assert (made["id"], made["status"]["state"]) == ("task-1", "working")
        config = {"taskId": "task-1", "pushNotificationConfig": {"url": "http://127.0.0.1:9/"}}
        post(url, rpc("tasks/pushNotificationConfig/set", 2, **config))
        (maker,) = workers_of(url, "message/send")

        for n in range(TRIES):  # until the other worker read the task
            found = post(url, rpc("tasks/get", 10 + n, id="task-1"))
            assert found["status"]["state"] == "working"  # its completion is 600 s away
            assert found["artifacts"][0]["parts"][0]["text"] == "Sunny"
            listed = post(url, rpc("tasks/pushNotificationConfig/list", 100 + n, id="task-1"))
            assert [c["pushNotificationConfig"]["id"] for c in listed] == ["push-1"]
            if set(workers_of(url, "tasks/get")) == {0, 1}:
                break
        assert set(workers_of(url, "tasks/get")) == {0, 1}
        assert maker in (0, 1)

        canceled = post(url, rpc("tasks/cancel", 200, id="task-1"))
        assert canceled["status"]["state"] == "canceled"
        for n in range(4):  # canceled for every worker
            assert post(url, rpc("tasks/get", 300 + n, id="task-1"))["status"]["state"] == (
                "canceled"
            )
        again = post(url, rpc("message/send", 400, message=message, configuration=now))
        assert again["id"] == "task-2"  # ids counted once for both workers

        cleared = httpx.delete(url + "/__mockhttp/journal", timeout=30)
        assert cleared.status_code < 300, cleared.text
        fresh = post(url, rpc("message/send", 500, message=message, configuration=now))
        assert fresh["id"] == "task-1"  # a cleared journal: the agent starts over (every worker)
        for n in range(TRIES):  # and both workers still read the same tasks
            assert post(url, rpc("tasks/get", 600 + n, id="task-1"))["status"]["state"] == (
                "working"
            )
            if set(workers_of(url, "tasks/get")) == {0, 1}:
                break
        assert set(workers_of(url, "tasks/get")) == {0, 1}
