"""``mockhttp check`` against hostile endpoints (issue 12): a small server that streams
forever, sends one endless line, drips a byte at a time, or says nothing.  Each run ends
within its deadline, with bounded memory, exit status 1 and a finding, never a traceback.
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

from .cli_process import ROOT

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


def drip(conn: socket.socket) -> None:
    conn.sendall(HEAD)
    for byte in EVENT * 100:
        conn.sendall(bytes([byte]))
        time.sleep(0.3)


def silent(conn: socket.socket) -> None:
    time.sleep(60)


class Hostile:
    """A raw TCP server answering every request the same hostile way."""

    def __init__(self, behave: object) -> None:
        self.behave = behave
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
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
                conn.recv(65536)  # the request (small: it fits one read)
                self.behave(conn)  # type: ignore[operator]
            except OSError:
                pass


@pytest.fixture(params=[endless, huge_line, drip, silent], ids=lambda f: f.__name__)
def hostile(request: pytest.FixtureRequest) -> Iterator[Hostile]:
    server = Hostile(request.param)
    yield server
    server.listener.close()


MEASURED = (
    "import resource, sys\n"
    "from mockhttp.contract.__main__ import main\n"
    "code = main(sys.argv[1:])\n"
    # VmHWM is this process's own peak: ru_maxrss would carry the parent's over exec
    "peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
    "usage = resource.getrusage(resource.RUSAGE_SELF)\n"
    "kib = int(peak[0].split()[1]) if peak else usage.ru_maxrss\n"
    "print('maxrss', kib, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def check(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", MEASURED, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


def test_check_ends_within_its_deadline_with_bounded_memory(hostile: Hostile) -> None:
    """An endless stream reached 6 GB, a 1 GiB line 5.3 GB, a drip never finished."""
    start = time.monotonic()
    proc = check(
        hostile.url, "--model", "m", "--json", "--deadline", "2",
        "--max-bytes", "1MiB", "--max-event-bytes", "256KiB",
    )  # fmt: skip
    out, err = proc.communicate(timeout=30)
    took = time.monotonic() - start
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    assert took < 2 + 4  # the deadline, and the interpreter's start-up on a slow machine
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
        "drip": "--deadline",
        "silent": "--deadline",
    }[hostile.behave.__name__]  # type: ignore[attr-defined]
    assert any(expected in message for message in transport), transport


def test_no_response_means_status_and_content_type_are_not_checked() -> None:
    """They were reported as "pass" when no response arrived."""
    server = Hostile(silent)
    try:
        proc = check(server.url, "--model", "m", "--deadline", "1")
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
        time.sleep(2)  # the interpreter is up and the first request drips
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
