"""A capacity's queue survives clients that hang up while they wait (issue 37, one
process; wire: raw loopback sockets, so each client's hang-up is exactly a close).

Before: four waiters in a row, each hanging up after a short wait, got
``[wait, 429, 429, 429]`` (the first kept its place for good), and once the running
request ended, the abandoned waiter was granted the slot and held it."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator

import pytest

import mockhttp
from mockhttp import llm

CHAT = "/v1/chat/completions"
_BODY = json.dumps(
    {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}
).encode()


def ask(server: mockhttp.Server, path: str = CHAT) -> socket.socket:
    """A client that sent one streamed chat request (and reads nothing yet)."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(_BODY)}\r\n\r\n"
    ).encode()
    sock.sendall(head + _BODY)
    return sock


def status_within(sock: socket.socket, seconds: float) -> int | None:
    """The reply's status if its head came within ``seconds``, else None (it waits)."""
    sock.settimeout(seconds)
    try:
        first = sock.recv(64)
    except TimeoutError:
        return None
    return int(first.split()[1]) if first else None


def wait_for(predicate: object, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


@pytest.fixture
def served() -> Iterator[tuple[mockhttp.Server, llm.Capacity]]:
    pool = llm.capacity(max_running=1, max_waiting=1)
    with mockhttp.Server() as server:
        server.mock(
            mockhttp.post("/hold" + CHAT).reply(
                llm.openai_chat("one two three", ttft="30s", capacity=pool)
            ),
            mockhttp.post(CHAT).reply(llm.openai_chat("Hi", capacity=pool)),
        )
        yield server, pool


def test_waiters_that_hang_up_leave_the_queue(
    served: tuple[mockhttp.Server, llm.Capacity],
) -> None:
    server, pool = served
    holder = ask(server, "/hold" + CHAT)
    wait_for(lambda: pool.running == 1)
    seen = []
    for _ in range(4):
        waiter = ask(server)
        seen.append("wait" if status_within(waiter, 0.3) is None else "refused")
        waiter.close()  # hangs up while queued
        wait_for(lambda: pool.waiting == 0)  # it left the queue at its EOF
    assert seen == ["wait", "wait", "wait", "wait"]
    holder.close()  # the running one hangs up too: the slot is free at its next write
    server.mock(mockhttp.post("/hold" + CHAT).reply(mockhttp.ok()))  # (no more holders)
    outcomes = [c.outcome for c in server.journal if c.request.path == CHAT]
    assert outcomes == ["client hung up"] * 4


def test_an_abandoned_waiter_never_takes_the_slot(
    served: tuple[mockhttp.Server, llm.Capacity],
) -> None:
    """The running request ends after a waiter hung up: the next request runs at once,
    and nothing is left running or waiting."""
    server, pool = served
    server.mock(
        mockhttp.post("/short" + CHAT).reply(
            llm.openai_chat("a b c d e f", chunks_per_second=2, capacity=pool)
        )
    )
    runner = ask(server, "/short" + CHAT)
    assert status_within(runner, 5) == 200
    waiter = ask(server)
    assert status_within(waiter, 0.2) is None
    waiter.close()
    wait_for(lambda: pool.waiting == 0, timeout=2.0)  # at its EOF, not when the slot frees
    assert pool.running == 1  # (the short stream runs for 3 s)
    runner.settimeout(10)
    got = b""
    while not got.endswith(b"0\r\n\r\n"):  # the short stream ends: its slot goes to no one
        got += runner.recv(65536)
    runner.close()
    wait_for(lambda: pool.running == 0)
    late = ask(server)
    assert status_within(late, 5) == 200  # runs at once
    late.close()
    wait_for(lambda: (pool.running, pool.waiting) == (0, 0))
