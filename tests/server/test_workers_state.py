"""``serve --workers``: one state for every worker, private ports kept private, admin
writes all or nothing (wire: real processes, loopback clients)."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from mockhttp._server._admin import MAX_ADMIN_BODY
from mockhttp._server._workers import SECRET_ENV, SECRET_HEADER
from tests.helpers.cli_process import Serving
from tests.helpers.clients import read_all
from tests.server.test_workers import children

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT spreading and /proc: Linux"
)

_YAML = {"Content-Type": "application/yaml"}
_ADMIN = "/__mockhttp"


# -- the processes, as /proc shows them ---------------------------------------------------


def listening_ports(pids: set[int]) -> set[int]:
    """The TCP ports these processes listen on (their sockets' inodes in /proc/net/tcp)."""
    inodes = set()
    for pid in pids:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            found = re.fullmatch(r"socket:\[(\d+)\]", target)
            if found:
                inodes.add(found.group(1))
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def worker_pid(serving: Serving, number: int) -> int:
    for pid in children(serving.proc.pid):
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if any(arg.startswith(f"{number}:".encode()) for arg in argv):
            return pid
    raise AssertionError(f"no worker {number}")


def cpu_ticks(pid: int) -> int:
    """The CPU time ``pid`` has used, in clock ticks (utime + stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def the_secret(serving: Serving) -> str:
    """The run's secret, from a worker's initial environment (the test may read it)."""
    environ = Path(f"/proc/{worker_pid(serving, 0)}/environ").read_bytes().split(b"\0")
    return next(e.split(b"=", 1)[1].decode() for e in environ if e.startswith(SECRET_ENV.encode()))


@dataclass
class Got:
    status_code: int
    text: str

    def json(self) -> Any:
        return json.loads(self.text)


def fresh(method: str, url: str, headers: dict[str, str] | None = None, content: str = "") -> Got:
    """One request on a new connection (the kernel picks a worker per connection); with
    http.client, as an httpx.Client takes ~0.1 s to make on a busy machine."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=30)
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        conn.request(method, target, body=content.encode() or None, headers=headers or {})
        response = conn.getresponse()
        return Got(response.status, response.read().decode())
    finally:
        conn.close()


def add(serving: Serving, text: str) -> None:
    added = httpx.post(serving.url + _ADMIN + "/mocks", headers=_YAML, content=text)
    assert added.status_code == 201, added.text


def concurrently(n: int, call: Callable[[], Got]) -> list[Got]:
    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(lambda _: call(), range(n)))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    folder = tmp_path_factory.mktemp("mocks")
    (folder / "m.yaml").write_text("name: hello\nrequest: {path: /hello}\nresponse: {body: hi}\n")
    with Serving(str(folder), "--workers", "2", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        yield serving
        assert serving.stop(signal.SIGTERM) == 0


# -- private ports ------------------------------------------------------------------------


def test_private_ports_refuse_a_local_client_without_the_secret(served: Serving) -> None:
    """The hub and both control ports (found from /proc) answer 403 to a client without the
    run's secret (reads, writes, reloads, a wrong secret, a web page's simple POST); with
    it they answer, so the 403 is the secret's doing; the secret is in no log line."""
    shared = int(served.url.rsplit(":", 1)[1])
    pids = {served.proc.pid, *children(served.proc.pid)}
    private = listening_ports(pids) - {shared}
    assert len(private) == 3  # the hub, and one control port per worker
    secret = the_secret(served)
    page = {"Origin": "http://evil.example", "Content-Type": "text/plain"}
    mock = "name: planted\nrequest: {path: /planted}\n"
    for port in private:
        base = f"http://127.0.0.1:{port}{_ADMIN}"
        assert fresh("GET", base + "/mocks").status_code == 403
        assert fresh("POST", base + "/_reload").status_code == 403
        assert fresh("POST", base + "/mocks", headers=page, content=mock).status_code == 403
        wrong = {**_YAML, SECRET_HEADER: secret[:-1] + ("A" if secret[-1] != "A" else "B")}
        assert fresh("POST", base + "/mocks", headers=wrong, content=mock).status_code == 403
        assert fresh("GET", base + "/mocks", headers={SECRET_HEADER: secret}).status_code == 200
    assert fresh("GET", served.url + "/planted").status_code == 404  # nothing planted
    assert not any(secret in line for line in served.log)


def test_no_admin_leaves_no_reachable_reload(tmp_path: Path) -> None:
    """--no-admin: no hub at all; each control port refuses a reload without the secret,
    and on the shared port /__mockhttp/ is an unmatched path."""
    (tmp_path / "m.yaml").write_text("request: {path: /x}\nresponse: {body: v1}\n")
    with Serving(str(tmp_path), "--workers", "2", "--quiet", "--no-admin") as serving:
        serving.wait_for_log("with 2 workers")
        shared = int(serving.url.rsplit(":", 1)[1])
        private = listening_ports(children(serving.proc.pid)) - {shared}
        assert len(private) == 2  # the control ports
        assert listening_ports({serving.proc.pid}) <= {shared}  # no hub
        for port in private:
            reload = fresh("POST", f"http://127.0.0.1:{port}{_ADMIN}/_reload")
            assert reload.status_code == 403
        assert fresh("POST", serving.url + _ADMIN + "/_reload").status_code == 404
        assert not any("reloaded" in line for line in serving.log)
        assert serving.stop(signal.SIGTERM) == 0


# -- one state ----------------------------------------------------------------------------


def test_replies_are_one_sequence_across_workers(served: Serving) -> None:
    """replies: [503, 200] under 20 concurrent clients spread over both workers: exactly
    one 503, then 200s; sequential calls after it get 200 (the last reply repeats)."""
    add(served, "name: flaky\nrequest: {path: /flaky}\nreplies: [{status: 503}, {status: 200}]")
    url = served.url + "/flaky"
    codes = [r.status_code for r in concurrently(20, lambda: fresh("GET", url))]
    assert sorted(codes) == [200] * 19 + [503]
    assert [fresh("GET", url).status_code for _ in range(5)] == [200] * 5
    calls = httpx.get(served.url + _ADMIN + "/journal?mock=flaky").json()["calls"]
    assert len(calls) == 25
    assert {c["worker"] for c in calls} == {0, 1}  # 2**-24 odds of one worker only


def test_sequence_order_is_exact_across_workers(served: Serving) -> None:
    """Sequential calls alternate between workers yet walk one sequence in order."""
    add(served, "name: steps\nrequest: {path: /steps}\nreplies: [{body: a}, {body: b}, {body: c}]")
    url = served.url + "/steps"
    assert [fresh("GET", url).text for _ in range(6)] == ["a", "b", "c", "c", "c", "c"]


def test_fifty_clients_each_get_a_distinct_entry_exactly_once(served: Serving) -> None:
    """50 replies, 50 concurrent clients: each reply exactly once; a 51st finds the mock
    used up (exhausted: unmatched, so a 404)."""
    replies = ", ".join(f"{{body: r{i}}}" for i in range(50))
    add(served, f"name: fifty\nrequest: {{path: /fifty}}\nreplies: [{replies}]\n"
        "exhausted: unmatched")  # fmt: skip
    url = served.url + "/fifty"
    answers = concurrently(50, lambda: fresh("GET", url))
    assert sorted(r.text for r in answers) == sorted(f"r{i}" for i in range(50))
    assert fresh("GET", url).status_code == 404
    counted = httpx.get(served.url + _ADMIN + "/mocks/fifty").json()["call_count"]
    assert counted == 50


def test_times_is_one_count_across_workers(served: Serving) -> None:
    """times: 3 under 20 concurrent clients: three answers in all, not three per worker."""
    add(served, "name: thrice\nrequest: {path: /thrice}\ntimes: 3\nresponse: {body: ok}")
    url = served.url + "/thrice"
    codes = [r.status_code for r in concurrently(20, lambda: fresh("GET", url))]
    assert sorted(codes) == [200] * 3 + [404] * 17


def test_a_scenario_moves_once_and_the_admin_api_shows_the_one_state(served: Serving) -> None:
    """A scenario moved by its first call stays moved on every worker; GET scenarios shows
    that state; POST scenarios/reset puts it back for all."""
    add(
        served,
        "name: before\nrequest: {path: /door}\nscenario: {name: door, state: Started, "
        "next_state: open}\nresponse: {body: opening}\n---\n"
        "name: after\nrequest: {path: /door}\nscenario: {name: door, state: open}\n"
        "response: {body: open}\n",
    )
    url = served.url + "/door"
    admin = served.url + _ADMIN
    assert httpx.get(admin + "/scenarios").json()["scenarios"]["door"] == "Started"
    bodies = [r.text for r in concurrently(20, lambda: fresh("GET", url))]
    assert sorted(bodies) == ["open"] * 19 + ["opening"]
    assert {fresh("GET", url).text for _ in range(10)} == {"open"}
    for _ in range(4):  # whichever worker answers the admin call, the one state
        assert fresh("GET", admin + "/scenarios").json()["scenarios"]["door"] == "open"
    assert httpx.post(admin + "/scenarios/reset").status_code == 200
    assert fresh("GET", admin + "/scenarios").json()["scenarios"]["door"] == "Started"
    assert [fresh("GET", url).text for _ in range(3)] == ["opening", "open", "open"]


def test_a_fixed_reply_takes_no_round_trip(served: Serving) -> None:
    """A mock that keeps no state answers even with the keeper of the state stopped
    (SIGSTOP on the supervisor); a stateful one answers once it runs again."""
    add(served, "name: once\nrequest: {path: /once}\ntimes: 1\nresponse: {body: ok}")
    os.kill(served.proc.pid, signal.SIGSTOP)
    try:
        assert fresh("GET", served.url + "/hello").text == "hi"
    finally:
        os.kill(served.proc.pid, signal.SIGCONT)
    assert fresh("GET", served.url + "/once").text == "ok"


# -- all or nothing -----------------------------------------------------------------------


def test_a_worker_killed_mid_write_leaves_no_split_brain(tmp_path: Path) -> None:
    """SIGKILL the first worker while it parses a big admin write: the write is kept (201
    from the other), the replacement starts from the kept changes, every worker serves the
    new mocks with the same ids, and a retry is a plain 409 (not "differently")."""
    (tmp_path / "m.yaml").write_text("name: hello\nrequest: {path: /hello}\n")
    with Serving(str(tmp_path), "--workers", "2", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        victim = worker_pid(serving, 0)
        many = "".join(
            f"---\nname: m{i}\nrequest: {{path: /m{i}}}\nresponse: {{body: '{i}'}}\n"
            for i in range(500)
        )
        # to the hub itself, as a worker forwards it: a client connected to the shared
        # port may be on the victim, and would lose its connection with it
        shared = int(serving.url.rsplit(":", 1)[1])
        (hub,) = listening_ports({serving.proc.pid}) - {shared}
        headers = {**_YAML, SECRET_HEADER: the_secret(serving)}
        answer: list[httpx.Response] = []
        writer = threading.Thread(
            target=lambda: answer.append(
                httpx.post(
                    f"http://127.0.0.1:{hub}{_ADMIN}/mocks",
                    headers=headers,
                    content=many,
                    timeout=60,
                )
            )
        )
        busy = cpu_ticks(victim) + 10  # 0.1 s of CPU: it is parsing the write
        writer.start()
        deadline = time.monotonic() + 30
        while cpu_ticks(victim) < busy and time.monotonic() < deadline:
            time.sleep(0.01)
        os.kill(victim, signal.SIGKILL)
        writer.join(60)
        assert answer[0].status_code == 201, answer[0].text
        serving.wait_for_log("restarted")
        assert "worker 0 did not answer" in serving.wait_for_log("did not answer")
        assert victim not in children(serving.proc.pid)
        for i in (0, 249, 499):
            assert {fresh("GET", f"{serving.url}/m{i}").text for _ in range(10)} == {str(i)}
        for _ in range(4):
            listed = fresh("GET", serving.url + _ADMIN + "/mocks/m499").json()
            assert listed["id"] == 501
        retry = httpx.post(
            serving.url + _ADMIN + "/mocks", headers=_YAML, content="name: m0\nrequest: {}"
        )
        assert retry.status_code == 409, retry.text
        assert serving.stop(signal.SIGTERM) == 0


# -- the channel and the keeper, in this process -------------------------------------------


def test_two_channels_to_one_keeper_get_distinct_indices() -> None:
    """Two workers' channels asking one keeper from 8 threads: each index once, in all."""
    import socket as sockets

    from mockhttp._core._route import Claim
    from mockhttp._server._shared import Keeper, StateChannel

    keeper = Keeper()
    channels = []
    for _ in range(2):
        ours, theirs = sockets.socketpair()
        threading.Thread(target=keeper.serve, args=(ours,), daemon=True).start()
        channels.append(StateChannel(theirs))
    claims = [Claim(5, limit=400)]
    with ThreadPoolExecutor(8) as pool:
        choices = list(pool.map(lambda i: channels[i % 2](claims), range(420)))
    taken = sorted(c.index for c in choices if c.position is not None)
    assert taken == list(range(400))
    assert sum(c.position is None for c in choices) == 20
    for channel in channels:
        channel.sock.close()


def test_a_channel_that_timed_out_never_takes_a_late_answer() -> None:
    """No answer in time: a ConnectionError, and the channel stays closed (a late answer
    would otherwise be read as the answer to the next question)."""
    import socket as sockets

    from mockhttp._core._route import Claim
    from mockhttp._server._shared import StateChannel

    supervisor, worker = sockets.socketpair()
    channel = StateChannel(worker)
    channel.sock.settimeout(0.05)
    with pytest.raises(ConnectionError, match="the supervisor did not answer"):
        channel([Claim(1)])
    supervisor.sendall(b'{"position":0,"index":0,"states":{}}\n')  # too late
    with pytest.raises(ConnectionError, match="did not answer"):
        channel([Claim(1)])
    supervisor.close()


def test_a_leave_is_told_without_an_answer_and_the_next_admit_sees_it() -> None:
    """A capacity's ``leave`` is sent without waiting for an answer (one round trip a
    request instead of two); the keeper answers nothing to it, so the questions after it
    still read their own answers, and it takes the worker's messages in order: the
    ``admit`` right after a ``leave`` finds the place free."""
    import socket as sockets

    from mockhttp._server._shared import Keeper, SharedGate, StateChannel

    keeper = Keeper()
    ours, theirs = sockets.socketpair()
    serving = threading.Thread(target=keeper.serve, args=(ours,), daemon=True)
    serving.start()
    channel = StateChannel(theirs)
    gate = SharedGate(channel.ask, channel.tell)
    one = (1, 0, 60.0)  # one running, no queue
    for _ in range(50):
        first = gate.admit("pool", one, "key", [], time.time())
        assert first.place == "running"
        assert gate.admit("pool", one, "key", [], time.time()).place is None  # full
        gate.leave("pool", first.ticket)
    assert keeper.admissions.answer({"pool": "pool", "granted": []}) == {"granted": []}
    assert gate.admit("pool", one, "key", [], time.time()).place == "running"
    channel.lines.close()
    channel.sock.close()
    serving.join(5)  # the keeper read the end of its worker's messages
    assert not serving.is_alive()


def test_the_hub_refuses_a_body_over_the_admin_limit_unread(served: Serving) -> None:
    """The hub read whatever Content-Length it was sent; now it answers 413 at once (the
    admin API's 16 MiB), and 400 to a length that is no number, without reading on."""
    shared = int(served.url.rsplit(":", 1)[1])
    (hub,) = listening_ports({served.proc.pid}) - {shared}
    secret = the_secret(served)
    lengths = (("17000000000", b"413"), (str(MAX_ADMIN_BODY + 1), b"413"), ("-5", b"400"))
    for length, code in lengths:
        with socket.create_connection(("127.0.0.1", hub), timeout=10) as sock:
            sock.sendall(
                f"POST {_ADMIN}/mocks HTTP/1.1\r\nHost: x\r\n{SECRET_HEADER}: {secret}\r\n"
                f"Content-Type: application/yaml\r\nContent-Length: {length}\r\n\r\n".encode()
                + b"name: x\n"
            )
            started = time.monotonic()
            answer = read_all(sock, reset_ok=True)
            assert time.monotonic() - started < 5  # answered, not waiting for the body
        assert answer.startswith(b"HTTP/1.1 " + code), answer
        if code == b"413":
            assert f"larger than {MAX_ADMIN_BODY} bytes".encode() in answer
