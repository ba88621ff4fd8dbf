"""Fault injection under ``serve --workers 2``: a worker killed (SIGKILL) while it holds a
``times: 1`` claim, or a capacity's places, leaks nothing and counts nothing twice
(issue 37's "Capacity survives hang-ups and dead workers"; wire: real processes, raw
loopback clients, ``/proc`` to find the worker that holds a connection).

Before: the claim stayed spent (the mock answered 404 while its count stayed 0), and
the killed worker's 2 places stayed taken for good (the next 40 requests over 20 s got
429, with nothing in the log)."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.cli_process import Serving
from tests.server.test_workers import children

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT spreading and /proc: Linux"
)

_MOCKS = """\
name: once
times: 1
request: {method: POST, path: /once/v1/chat/completions}
response:
  openai_chat:
    text: one two three four five six seven eight nine ten
    chunks_per_second: 2
---
name: busy
request: {method: POST, path: /busy/v1/chat/completions}
response:
  openai_chat:
    text: one two three four five six seven eight nine ten
    chunks_per_second: 2
    capacity: {max_running: 2, max_waiting: 0}
"""
_BODY = json.dumps(
    {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}
).encode()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Serving]:
    (tmp_path / "mocks.yaml").write_text(_MOCKS)
    with Serving(str(tmp_path), "--workers", "2") as serving:
        serving.wait_for_log("with 2 workers")
        yield serving


def ask(serving: Serving, path: str) -> socket.socket:
    port = int(serving.url.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(_BODY)}\r\n\r\n"
    ).encode()
    sock.sendall(head + _BODY)
    return sock


def status_of(sock: socket.socket) -> int:
    first = sock.recv(64)
    return int(first.split()[1])


def holder_of(serving: Serving, sock: socket.socket) -> int:
    """The worker process that holds the server's end of ``sock`` (by /proc)."""
    client_port = sock.getsockname()[1]
    ends = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if int(fields[2].rsplit(":", 1)[1], 16) == client_port:  # remote: the client
                ends.add(fields[9])
    for pid in children(serving.proc.pid):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                found = re.fullmatch(r"socket:\[(\d+)\]", os.readlink(fd))
            except OSError:
                continue
            if found and found.group(1) in ends:
                return pid
    raise AssertionError(f"no worker holds the connection from port {client_port}")


def kill(serving: Serving, pids: set[int]) -> None:
    """SIGKILL ``pids`` and wait until the supervisor has replaced each one."""
    restarted = sum("restarted" in line for line in serving.log)
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while sum("restarted" in line for line in serving.log) < restarted + len(pids):
        assert time.monotonic() < deadline, "".join(serving.log)
        time.sleep(0.02)


def test_a_times_1_claim_held_by_a_killed_worker_is_given_again_once(served: Serving) -> None:
    first = ask(served, "/once/v1/chat/completions")
    assert status_of(first) == 200  # the claim is held: its stream runs for 5 s
    kill(served, {holder_of(served, first)})
    first.close()
    statuses = []
    for _ in range(4):  # each on a new connection: either worker
        sock = ask(served, "/once/v1/chat/completions")
        statuses.append(status_of(sock))
        sock.close()
    assert statuses == [200, 404, 404, 404]  # given again, once


def test_capacity_places_held_by_killed_workers_come_back(served: Serving) -> None:
    held = [ask(served, "/busy/v1/chat/completions") for _ in range(2)]
    assert [status_of(s) for s in held] == [200, 200]
    full = ask(served, "/busy/v1/chat/completions")
    assert status_of(full) == 429  # max_running: 2, across the workers
    full.close()
    kill(served, {holder_of(served, s) for s in held})
    for sock in held:
        sock.close()
    again = [ask(served, "/busy/v1/chat/completions") for _ in range(3)]
    assert sorted(status_of(s) for s in again) == [200, 200, 429]  # 2 places, not 0 or 4
    for sock in again:
        sock.close()
