"""``mockhttp serve --workers N``: processes sharing a port, one admin API over all (wire)."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import httpx
import pytest

from mockhttp._server._workers import merge, replayed, worker_count
from tests.helpers.cli_process import Serving

_YAML = {"Content-Type": "application/yaml"}

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT spreading and /proc: Linux"
)

MOCKS = "name: hello\nrequest: {method: GET, path: /hello}\nresponse: {body: hi}\n"


def children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(p) for p in (task / "children").read_text().split()}
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"


def fresh_get(url: str) -> httpx.Response:
    """One request on a new connection (the kernel picks a worker per connection)."""
    with httpx.Client() as client:
        return client.get(url)


def test_workers_share_the_port_and_the_admin_api_covers_them_all(tmp_path: Path) -> None:
    """Two workers answer; an admin change is on both before the call returns; the journal
    and counts cover both; a killed worker is replaced (and logged) with the same mocks;
    SIGTERM stops every worker."""
    (tmp_path / "m.yaml").write_text(MOCKS)
    with Serving(str(tmp_path), "--workers", "2", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        workers = children(serving.proc.pid)
        assert len(workers) == 2
        admin = serving.url + "/__mockhttp"
        added = httpx.post(
            admin + "/mocks",
            headers=_YAML,
            content="name: added\nrequest: {path: /added}\nresponse: {body: 'yes'}",
        )
        assert added.status_code == 201, added.text
        assert added.json()["mocks"][0]["id"] == 2
        bad = httpx.post(admin + "/mocks", headers=_YAML, content="request: {path: 3}")
        assert bad.status_code == 400
        assert bad.json()["error"]["type"] == "mockfile_error"
        # every new connection, whichever worker takes it, already has the new mock
        assert [fresh_get(serving.url + "/added").text for _ in range(30)] == ["yes"] * 30
        journal = httpx.get(admin + "/journal").json()["calls"]
        assert len(journal) == 30
        assert {c["worker"] for c in journal} == {0, 1}  # 2**-29 odds of one worker only
        assert httpx.get(admin + "/mocks/added").json()["call_count"] == 30
        assert httpx.get(admin + "/mocks/added/calls").json()["call_count"] == 30

        removed = httpx.delete(admin + "/mocks/added")
        assert removed.json()["removed"]["call_count"] == 30
        assert {fresh_get(serving.url + "/added").status_code for _ in range(10)} == {404}

        httpx.post(
            admin + "/mocks", headers=_YAML, content="name: again\nrequest: {path: /again}\n"
        )
        victim = min(workers)
        os.kill(victim, signal.SIGKILL)
        serving.wait_for_log("restarted")
        died = serving.wait_for_log("died")
        assert f"(pid {victim}) died (signal 9); starting a new one" in died
        new = children(serving.proc.pid)
        assert len(new) == 2
        assert victim not in new
        # the new worker has the file mocks and the admin API's, with the same ids
        for _ in range(20):
            assert fresh_get(serving.url + "/again").status_code == 200
            assert fresh_get(serving.url + "/hello").text == "hi"
        listed = httpx.get(admin + "/mocks").json()["mocks"]
        assert [(m["id"], m["name"]) for m in listed] == [(3, "again"), (1, "hello")]

        assert serving.stop(signal.SIGTERM) == 0
        deadline = time.monotonic() + 5
        while any(alive(pid) for pid in new) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(alive(pid) for pid in new)


def test_a_port_in_use_is_an_error_even_when_shareable() -> None:
    """--workers does not join a port another process listens on with SO_REUSEPORT."""
    import socket

    from tests.helpers.cli_process import run

    with socket.socket() as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        done = run("serve", "--workers", "2", "--port", str(port), timeout=30)
    assert done.returncode == 1
    assert f"mockhttp: cannot listen on 127.0.0.1:{port}" in done.stderr


def test_merge_adds_counts_and_joins_calls() -> None:
    """The workers' answers: counts summed, calls joined and tagged, the rest the first's."""
    answers = [
        {"mocks": [{"id": 1, "call_count": 2}], "calls": [{"n": "a"}], "removed": 1},
        {"mocks": [{"id": 1, "call_count": 3}], "calls": [{"n": "b"}], "removed": 1},
    ]
    assert merge(answers) == {
        "mocks": [{"id": 1, "call_count": 5}],
        "calls": [{"n": "a", "worker": 0}, {"n": "b", "worker": 1}],
        "removed": 1,
    }
    assert json.dumps(merge([{"error": "x"}, {"error": "x"}])) == '{"error": "x"}'


def test_worker_count() -> None:
    """--workers takes a positive number or auto (one per CPU)."""
    assert worker_count("3") == 3
    assert worker_count("auto") >= 1
    with pytest.raises(ValueError, match="'0' is not a positive whole number or 'auto'"):
        worker_count("0")


def test_watch_reloads_every_worker(tmp_path: Path) -> None:
    """--watch with --workers: a changed file reaches every worker (each logs its reload)."""
    mocks = tmp_path / "m.yaml"
    mocks.write_text("request: {path: /x}\nresponse: {body: v1}\n")
    with Serving(str(tmp_path), "--workers", "2", "--watch", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        assert fresh_get(serving.url + "/x").text == "v1"
        mocks.write_text("request: {path: /x}\nresponse: {body: v2}\n")
        deadline = time.monotonic() + 20
        while sum("reloaded 1 mock" in line for line in serving.log) < 2:
            assert time.monotonic() < deadline, "".join(serving.log)
            time.sleep(0.05)
        assert {fresh_get(serving.url + "/x").text for _ in range(20)} == {"v2"}


def test_each_worker_guards_the_admin_api_before_forwarding(tmp_path: Path) -> None:
    """With --workers, the admin API still wants its token and refuses web pages; the
    token reaches the workers (through their environment) and the hub's own calls."""
    (tmp_path / "hello.yaml").write_text(MOCKS)
    with Serving(str(tmp_path), "--workers", "2", "--quiet", "--admin-token", "s3cret") as serving:
        serving.wait_for_log("with 2 workers")
        admin = serving.url + "/__mockhttp/mocks"
        mock = "name: added\nrequest: {path: /added}\n"
        assert httpx.post(admin, headers=_YAML, content=mock).status_code == 401
        cross = {**_YAML, "Origin": "http://evil.example", "Authorization": "Bearer s3cret"}
        assert httpx.post(admin, headers=cross, content=mock).status_code == 403
        allowed = {**_YAML, "Authorization": "Bearer s3cret"}
        added = httpx.post(admin, headers=allowed, content=mock)
        assert added.status_code == 201, added.text
        assert [fresh_get(serving.url + "/added").status_code for _ in range(10)] == [200] * 10
        assert serving.stop(signal.SIGTERM) == 0


def test_a_scenario_moved_by_hand_is_not_replayed() -> None:
    """The hub keeps every write for a worker started later but a scenario moved by hand:
    its state is the supervisor's, and playing it again would undo the moves since."""
    assert not replayed("PUT", "/__mockhttp/scenarios/auth/state")
    assert not replayed("PUT", "/__mockhttp/scenarios/auth/state/?test=a")
    assert replayed("POST", "/__mockhttp/mocks?test=a")
    assert replayed("POST", "/__mockhttp/scenarios/reset")
    assert replayed("PUT", "/__mockhttp/mocks/state")
