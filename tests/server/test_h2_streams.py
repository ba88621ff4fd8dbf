"""The HTTP/2 bounds piece by piece (issue 37): the control-frame budget (``Calm``) with
its own clock, and, over a loopback socket with a raw ``h2`` client in this process, a
starved stream's bookkeeping: its reply held as views of the one cached body, the call
recorded by reference, the reset after ``idle_timeout``.  The attacks at size are in
test_h2_bounds.py (a real ``serve`` process) and bench/h2_attack.py."""

from __future__ import annotations

import contextlib
import time

import pytest

import mockhttp

pytest.importorskip("h2")
from mockhttp._server._h2 import CONTROL_BURST, CONTROL_RATE, Calm
from mockhttp._server._journal import BODY_KEPT, SHARED
from tests.helpers.h2_attack import CANCEL, ENHANCE_YOUR_CALM, Starved, goaway_code


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_calm_allows_a_burst_then_refuses() -> None:
    clock = Clock()
    calm = Calm(burst=10, rate=5.0, clock=clock)
    assert calm.spend(10)
    assert not calm.spend(1)


def test_calm_earns_back_at_its_rate_up_to_the_burst() -> None:
    clock = Clock()
    calm = Calm(burst=10, rate=5.0, clock=clock)
    assert calm.spend(10)
    clock.now += 1.0  # five back
    assert calm.spend(5)
    assert not calm.spend(1)
    clock.now += 100.0  # never more than the burst
    assert calm.spend(10)
    assert not calm.spend(1)


def test_calm_an_empty_bucket_still_allows_frames_that_are_not_control_frames() -> None:
    calm = Calm(burst=1, rate=0.0, clock=Clock())
    assert calm.spend(1)
    assert calm.spend(0)  # a read of DATA or HEADERS only: exactly empty is not a flood
    assert not calm.spend(1)


def test_the_defaults_are_the_documented_ones() -> None:
    assert (CONTROL_BURST, CONTROL_RATE) == (1000, 100.0)


def test_a_starved_stream_shares_the_body_and_is_reset_when_stuck() -> None:
    body = b"y" * (256 * 1024)
    with mockhttp.Server(http2=True, idle_timeout=0.5) as server:
        server.mock(mockhttp.get("/big").reply(mockhttp.ok().body(body)))
        attacker = Starved(server.host, server.port, "/big", 3)
        try:
            assert attacker.wait("heads", 10)
            assert attacker.wait("resets", 10)
        finally:
            attacker.close()
        assert attacker.data == 0
        assert set(attacker.resets.values()) == {CANCEL}
        calls = list(server.journal)
        assert [c.outcome for c in calls] == ["closed"] * 3
        kept = [c.body_sent for c in calls]
        assert all(k == body for k in kept)
        assert kept[0] is kept[1] is kept[2]  # one body, not three copies
        assert SHARED <= len(body) <= BODY_KEPT


def test_a_stream_the_client_reads_is_never_reset() -> None:
    """The stuck timer only resets streams that cannot move: a slow but reading client
    gets the whole body, even past ``idle_timeout`` in all."""
    body = bytes(range(256)) * 1024
    with mockhttp.Server(http2=True, idle_timeout=0.5) as server:
        server.mock(mockhttp.get("/big").reply(mockhttp.ok().body(body)))
        attacker = Starved(server.host, server.port, "/big", 1)
        try:
            assert attacker.wait("heads", 10)
            got = 0
            started = time.monotonic()
            while got < len(body) and time.monotonic() - started < 20:
                attacker.client.increment_flow_control_window(16384, stream_id=1)
                attacker.client.increment_flow_control_window(16384)
                attacker.sock.sendall(attacker.client.data_to_send())
                attacker.read(0.1)
                got = attacker.data
            assert got == len(body)
            assert time.monotonic() - started > 0.5  # longer than the idle timeout in all
            assert not attacker.resets
        finally:
            attacker.close()


def test_a_ping_flood_in_process_gets_goaway_enhance_your_calm() -> None:
    pings = b"\x00\x00\x08\x06\x00\x00\x00\x00\x00" + b"flood!!!"
    with mockhttp.Server(http2=True) as server:
        attacker = Starved(server.host, server.port, "/none", 0)
        with attacker.sock as sock:
            with contextlib.suppress(OSError):
                sock.sendall(pings * (CONTROL_BURST + 2000))
            sock.settimeout(10)
            received = bytearray()
            with contextlib.suppress(OSError):
                while chunk := sock.recv(65536):
                    received += chunk
        assert goaway_code(bytes(received)) == ENHANCE_YOUR_CALM
