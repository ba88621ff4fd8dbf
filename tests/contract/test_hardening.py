"""``mockhttp check`` against hostile endpoints (issue 12): a small server that streams
forever, sends one endless line, drips a byte at a time, or says nothing; or drips the
response head itself (its status line, a header), before or after reading the request.
Each run ends within its deadline, with bounded memory, exit status 1 and a finding,
never a traceback.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mockhttp.contract import Limits, Transcript, record
from tests.helpers.cli_process import ROOT

HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
EVENT = b'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[]}\n\n'


def endless(conn: socket.socket) -> None:
    conn.sendall(HEAD)
    block = EVENT * 1000
    while True:
        conn.sendall(block)


def huge_line(conn: socket.socket) -> None:
    conn.sendall(HEAD + b"data: ")
    block = b"x" * 65536
    while True:
        conn.sendall(block)


def tiny(conn: socket.socket) -> None:
    """Endless tiny events: 64 MiB of them took 9 min and 5.76 GB to decode and check."""
    conn.sendall(HEAD)
    block = b"data:1\n\n" * 10000
    while True:
        conn.sendall(block)


def blank(conn: socket.socket) -> None:
    """Endless blank lines: each resets the event count, so --max-event-bytes never trips."""
    conn.sendall(HEAD)
    block = b"\n" * 65536
    while True:
        conn.sendall(block)


def drip(conn: socket.socket) -> None:
    conn.sendall(HEAD)
    for byte in EVENT * 100:
        conn.sendall(bytes([byte]))
        time.sleep(0.3)


def silent(conn: socket.socket) -> None:
    time.sleep(60)


def head_drip(conn: socket.socket) -> None:
    """The status line, then one header's value a byte at a time: the head never ends."""
    conn.sendall(b"HTTP/1.1 200 OK\r\nX-Drip: ")
    for _ in range(600):
        conn.sendall(b"a")
        time.sleep(0.2)


def status_drip(conn: socket.socket) -> None:
    """The status line's reason phrase, a byte at a time: the status line never ends."""
    conn.sendall(b"HTTP/1.1 200 ")
    for _ in range(600):
        conn.sendall(b"O")
        time.sleep(0.2)


def early_head_drip(conn: socket.socket) -> None:
    """Drips the head as soon as the connection is accepted, without reading the request."""
    head_drip(conn)


early_head_drip.reads = False  # type: ignore[attr-defined]


class Hostile:
    """A raw TCP server answering every request the same hostile way."""

    def __init__(self, behave: object) -> None:
        self.behave = behave
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.answering = threading.Event()  # set once a request is being answered
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                if getattr(self.behave, "reads", True):
                    conn.recv(65536)  # the request (small: it fits one read)
                self.answering.set()
                self.behave(conn)  # type: ignore[operator]
            except OSError:
                pass


HOSTILE = [endless, huge_line, tiny, blank, drip, silent, head_drip, status_drip, early_head_drip]


@pytest.fixture(params=HOSTILE, ids=lambda f: f.__name__)
def hostile(request: pytest.FixtureRequest) -> Iterator[Hostile]:
    server = Hostile(request.param)
    yield server
    server.listener.close()


MEASURED = (
    "import resource, sys, time\n"
    "from mockhttp.contract.__main__ import main\n"
    "def queued():\n"
    "    try:\n"
    "        return int(open('/proc/thread-self/schedstat').read().split()[1]) / 1e9\n"
    "    except (OSError, IndexError, ValueError):\n"
    "        return 0.0\n"
    "start, queued_before = time.monotonic(), queued()\n"
    "code = main(sys.argv[1:])\n"
    "print('took', time.monotonic() - start, file=sys.stderr)\n"
    "print('queued', queued() - queued_before, file=sys.stderr)\n"
    # VmHWM is this process's own peak: ru_maxrss would carry the parent's over exec
    "peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
    "usage = resource.getrusage(resource.RUSAGE_SELF)\n"
    "kib = int(peak[0].split()[1]) if peak else usage.ru_maxrss\n"
    "print('maxrss', kib, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def own_time(err: str) -> float:
    """The check's own time (``MEASURED``): from its arguments to its report, less the time its
    thread (the one that reads and checks) was ready to run but waited for a CPU (Linux's
    ``schedstat``; 0 where there is none).  The interpreter's start-up (its imports: seconds on
    a loaded machine) is not the check's, and a CPU taken by other processes is not either;
    time spent waiting on the endpoint is, and that is what ``--deadline`` bounds."""
    took = float(err.split("took ")[1].split()[0])
    return took - float(err.split("queued ")[1].split()[0])


def check(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", MEASURED, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def finish(proc: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    """The process's output; killed (and the test failed) if it runs past ``timeout``."""
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"mockhttp check still running after {timeout} s")


def test_check_ends_within_its_deadline_with_bounded_memory(hostile: Hostile) -> None:
    """An endless stream reached 6 GB, a 1 GiB line 5.3 GB, a drip never finished; a head
    dripped a byte every 0.2 s (the read timeout is per read) kept it running past 25 s."""
    # tiny and blank: the default --max-bytes (64 MiB) is too much of them; --max-lines bounds them
    caps = () if hostile.behave in (tiny, blank) else ("--max-bytes", "1MiB")
    proc = check(
        hostile.url, "--model", "m", "--json", "--deadline", "2",
        *caps, "--max-event-bytes", "256KiB",
    )  # fmt: skip
    out, err = finish(proc, timeout=30)
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    took = own_time(err)
    # the deadline, and the end of the check (its report); without the deadline it is 60 s
    # (the --timeout per read), or never for a drip
    assert took < 2 + 3, err
    maxrss_kib = int(err.split("maxrss ")[1].split()[0])
    assert maxrss_kib < 300 * 1024  # 6 GB before, for the endless stream
    report = json.loads(out)
    transport = [
        f["message"] for e in report["exchanges"] for f in e["findings"]
        if f["rule"] == "http.transport"
    ]  # fmt: skip
    assert transport
    expected = {
        "endless": "--max-bytes",
        "huge_line": "--max-event-bytes",
        "tiny": "--max-lines",
        "blank": "--max-lines",
        "drip": "--deadline",
        "silent": "--deadline",
        "head_drip": "--deadline",
        "status_drip": "--deadline",
        "early_head_drip": "--deadline",
    }[hostile.behave.__name__]  # type: ignore[attr-defined]
    assert any(expected in message for message in transport), transport


@pytest.mark.parametrize("behave", [head_drip, status_drip, early_head_drip, silent])
def test_record_bounds_the_wait_for_the_head(behave: object) -> None:
    """The deadline covers the head too: httpx's timeout is per read, and a head dripped a
    byte every 0.2 s never ended the exchange."""
    server = Hostile(behave)
    got: list[Transcript] = []
    try:
        start = time.monotonic()
        limits = Limits(deadline=start + 1)
        reader = threading.Thread(
            target=lambda: got.append(record(server.url, {}, timeout=10, limits=limits)),
            daemon=True,
        )
        reader.start()
        reader.join(timeout=10)
        took = time.monotonic() - start
    finally:
        server.listener.close()
    assert got, "record() still running 10 s after its 1 s deadline"
    assert took < 1 + 4  # the deadline and a loaded machine's margin; without it: 10 s or never
    assert got[0].status is None
    assert got[0].error == (
        "the check's deadline passed (--deadline) while waiting for the response"
    )


def test_no_response_means_status_and_content_type_are_not_checked() -> None:
    """They were reported as "pass" when no response arrived."""
    server = Hostile(silent)
    try:
        proc = check(server.url, "--model", "m", "--deadline", "1", "--verbose")
        out, _ = proc.communicate(timeout=30)
    finally:
        server.listener.close()
    assert proc.returncode == 1
    lines = [" ".join(line.split()) for line in out.splitlines()]
    assert "http.status skipped not checked: no response arrived" in lines
    assert "http.content-type skipped not checked: no response arrived" in lines
    assert not any(line.startswith("http.status pass") for line in lines)


def test_ctrl_c_is_a_finding_not_a_traceback() -> None:
    server = Hostile(drip)
    try:
        proc = check(server.url, "--model", "m", "--deadline", "60")
        assert server.answering.wait(30), "the check sent no request"  # it is up, reading the drip
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        server.listener.close()
    assert proc.returncode == 1
    assert "Traceback" not in err
    assert "interrupted (Ctrl-C)" in out


def test_an_unwritable_junit_path_is_a_clear_error(tmp_path: Path) -> None:
    body = tmp_path / "body.sse"
    body.write_bytes(EVENT + b"data: [DONE]\n\n")
    target = tmp_path / "missing" / "report.xml"
    proc = check("--body", str(body), "--junit", str(target))
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 2
    assert "Traceback" not in err
    assert f"cannot write --junit {target}: No such file or directory" in err
