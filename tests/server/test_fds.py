"""The descriptor table grown before the loop thread exists (``_server/_fds.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import mockhttp

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads the table's size from /proc"
)
SRC = str(Path(mockhttp.__file__).resolve().parent.parent)


def run(code: str) -> str:
    """``code`` in a fresh interpreter (one thread, a table of its own); its stdout."""
    env = {**os.environ, "PYTHONPATH": SRC}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


TABLE = """
def table():
    for line in open("/proc/self/status"):
        if line.startswith("FDSize:"):
            return int(line.split()[1])
"""


def test_a_started_server_has_grown_the_table_to_the_limit_or_the_room() -> None:
    out = run(
        TABLE
        + """
import resource, mockhttp
before = table()
soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
with mockhttp.Server() as server:
    print(before, table(), min(soft, 65536))
"""
    )
    before, after, wanted = map(int, out.split())
    assert before < wanted <= after, (before, after, wanted)


@pytest.mark.parametrize(
    ("soft", "grown"),
    [(2000, 1999), (200, 0)],  # the limit's room; under 256 the table is left as it is
)
def test_the_room_follows_the_limit(soft: int, grown: int) -> None:
    out = run(
        TABLE
        + f"""
import resource
from mockhttp._server._fds import make_room
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, ({soft}, hard))
before = table()
print(make_room(), before, table())
"""
    )
    made, before, after = map(int, out.split())
    assert made == grown
    if grown == 0:
        assert after == before
    else:
        assert before < soft <= after  # the kernel rounds the size up to a power of two


def test_growing_touches_no_descriptor_in_use_and_leaves_none_open() -> None:
    out = run(
        TABLE
        + """
import os, resource
from mockhttp._server._fds import make_room
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (4096, hard))
r, w = os.pipe()
high = os.dup2(w, 4095)  # the top itself in use: the growth must not close it
before = sorted(os.listdir("/proc/self/fd"))
print(make_room(), os.write(high, b"x"), os.read(r, 1).decode())
print(before == sorted(os.listdir("/proc/self/fd")))
"""
    )
    first, second = out.splitlines()
    assert first == "4095 1 x"
    assert second == "True"


def test_a_server_serves_after_growing_and_a_second_one_grows_nothing_more() -> None:
    out = run(
        TABLE
        + """
import httpx, mockhttp
with mockhttp.Server() as server:
    server.mock(mockhttp.get("/").reply(mockhttp.ok().body("hi")))
    first = table()
    with mockhttp.Server() as second:
        second.mock(mockhttp.get("/").reply(mockhttp.ok().body("hi")))
        print(httpx.get(server.url + "/").text, httpx.get(second.url + "/").text)
        print(first, table())
"""
    )
    answers, sizes = out.splitlines()
    assert answers == "hi hi"
    first, then = map(int, sizes.split())
    assert first == then
    assert first > 64  # grown: a new process's table holds 64
