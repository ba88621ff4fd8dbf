"""HTTP/2 stays bounded under attack (issue 37, N1 and N2), on the wire: a raw ``h2``
client driven frame by frame over loopback against a real ``mockhttp serve --http2``
process, whose resident memory is read from ``/proc``.

- N1: connections advertising a zero receive window open many streams of a large reply;
  the server holds views of the one cached reply (no copy per stream), resets each stream
  that cannot move for ``--idle-timeout`` (``RST_STREAM CANCEL``), and gives the memory
  back.  Smaller than bench/h2_attack.py (which gives the full figures, docs/limits.md).
- N2: a PING or SETTINGS flood gets ``GOAWAY ENHANCE_YOUR_CALM`` and is closed, while a
  parallel client is answered in time.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

pytest.importorskip("h2")
if not Path("/proc/self/status").exists():
    pytest.skip("reads resident memory from /proc (Linux)", allow_module_level=True)

from tests.helpers.cli_process import Serving
from tests.helpers.h2_attack import (
    CANCEL,
    ENHANCE_YOUR_CALM,
    Starved,
    flood_frames,
    goaway_code,
    rss_mib,
)

BODY_MIB = 1
CONNECTIONS = 2
STREAMS = 100  # the server's SETTINGS_MAX_CONCURRENT_STREAMS
IDLE = 2.0  # --idle-timeout: a stream that cannot move for this long is reset


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Serving]:
    """``mockhttp serve --http2`` with a 1 MiB reply at /big and a small one at /small."""
    body = "x" * (BODY_MIB << 20)
    mocks = tmp_path / "mocks.yaml"
    mocks.write_text(
        "- request: {method: GET, path: /big}\n"
        f"  response: {{status: 200, body: {body}}}\n"
        "- request: {method: GET, path: /small}\n"
        "  response: {status: 200, body: small}\n"
    )
    with Serving("--http2", "--idle-timeout", str(IDLE), str(mocks)) as serving:
        yield serving


def _address(serving: Serving) -> tuple[str, int]:
    url = httpx.URL(serving.url)
    assert url.port is not None
    return url.host, url.port


def _warm(serving: Serving) -> None:
    """One whole /big over HTTP/2 (its plan cached, h2 imported), then settle."""
    with httpx.Client(http1=False, http2=True, timeout=10) as client:
        assert len(client.get(serving.url + "/big").content) == BODY_MIB << 20


def test_starved_streams_share_the_reply_are_reset_and_give_memory_back(
    served: Serving,
) -> None:
    host, port = _address(served)
    _warm(served)
    before = rss_mib(served.proc.pid)
    attackers = [Starved(host, port, "/big", STREAMS) for _ in range(CONNECTIONS)]
    try:
        for attacker in attackers:
            assert attacker.wait("heads", 30), len(attacker.heads)
        during = rss_mib(served.proc.pid) - before
        # every stream is running its reply (the whole body handed to the stream) ...
        for attacker in attackers:
            assert attacker.data == 0  # ... and nothing passed the shut window
        # before the bound, each stream copied the MiB (twice: the pending bytes and the
        # journal's): 2 x 100 x 2 MiB = 400 MiB
        assert during < 48, f"grew {during:.0f} MiB holding {CONNECTIONS * STREAMS} streams"
        started = time.monotonic()
        for attacker in attackers:
            assert attacker.wait("resets", IDLE * 10), len(attacker.resets)
            assert set(attacker.resets.values()) == {CANCEL}
        assert time.monotonic() - started >= IDLE * 0.5  # reset for being stuck, not at once
    finally:
        for attacker in attackers:
            attacker.close()
    with httpx.Client(http1=False, http2=True, timeout=10) as client:
        answer = client.get(served.url + "/small")
    assert answer.status_code == 200
    assert answer.text == "small"
    after = rss_mib(served.proc.pid) - before
    assert after < 32, f"kept {after:.0f} MiB after the streams ended"


def _parallel_answers(url: str, stop: threading.Event, times: list[float]) -> None:
    """Ask /small over and over on fresh connections, recording each answer's time."""
    while not stop.is_set():
        started = time.monotonic()
        try:
            with httpx.Client(timeout=30) as client:
                assert client.get(url).status_code == 200
        except httpx.HTTPError:
            times.append(float("inf"))
            return
        times.append(time.monotonic() - started)
        time.sleep(0.05)


@pytest.mark.parametrize("kind", ["ping", "settings"])
def test_a_control_frame_flood_is_calmed_and_others_are_answered(
    served: Serving, kind: str
) -> None:
    host, port = _address(served)
    flood = flood_frames(kind, 400_000)
    stop = threading.Event()
    times: list[float] = []
    parallel = threading.Thread(
        target=_parallel_answers, args=(served.url + "/small", stop, times), daemon=True
    )
    received = bytearray()
    with socket.create_connection((host, port), timeout=10) as sock:
        parallel.start()
        with contextlib.suppress(OSError):  # the server closes it long before the end
            sock.sendall(flood)  # without reading
        sock.settimeout(10)
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except OSError:
            pass
        while len(times) < 3 and parallel.is_alive():  # a few answers after the flood
            time.sleep(0.05)
        stop.set()
        parallel.join(30)
    assert goaway_code(bytes(received)) == ENHANCE_YOUR_CALM, bytes(received[:64])
    assert times, "the parallel client was never answered"
    assert max(times) < 2.0, times  # 5.6-10 s before the budget (1 s on a quiet machine)
    assert "Traceback" not in "".join(served.log)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-v"]))
