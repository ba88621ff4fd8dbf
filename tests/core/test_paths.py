"""The index of mocks by literal path (``_core/_paths.py``): routing a request among the
candidates for its path gives the same answer as routing it among every mock; and on the
wire, unmatched requests among 20,000 mocks no longer hold the loop while each tries them
all."""

from __future__ import annotations

import itertools
import random
import socket
import threading
import time

import mockhttp
from mockhttp import match
from mockhttp._core._paths import FEW, PathIndex
from mockhttp._core._request import Headers, Request
from mockhttp._core._route import Answer, Miss, route

from .test_route import Entry


def mixed_mocks(n: int, seed: int) -> list[Entry]:
    """``n`` mocks of every kind of path, on a few paths, some with header matchers."""
    rng = random.Random(seed)
    entries = []
    for i in range(n):
        kind = rng.randrange(6)
        path = f"/p{rng.randrange(8)}"
        if kind == 0:
            mock = mockhttp.get(path)
        elif kind == 1:
            mock = mockhttp.get(path).header("x-a", str(rng.randrange(2)))
        elif kind == 2:
            mock = mockhttp.request(None, "/p{n}")
        elif kind == 3:
            mock = mockhttp.get(match.starts_with(f"/p{rng.randrange(8)}"))
        elif kind == 4:
            mock = mockhttp.post(path)
        else:
            mock = mockhttp.request(None, "*").header("x-any", "1")
        entries.append(Entry(mock.reply(mockhttp.ok().body(str(i)))))
    rng.shuffle(entries)
    return entries


def test_the_candidates_route_as_every_mock_would() -> None:
    for seed in range(20):
        entries = mixed_mocks(200, seed)
        index = PathIndex(entries)
        for path in [f"/p{k}" for k in range(9)] + ["/q", "/p1/x"]:
            for method in ("GET", "POST", "HEAD", "PUT"):
                for headers in ((), (("x-a", "1"),), (("x-a", "0"), ("x-any", "1"))):
                    request = Request(method, path, Headers(headers))
                    everything = route(request, entries, {})
                    narrowed = route(request, index.candidates(path), {}, entries)
                    if isinstance(everything, Miss):
                        assert isinstance(narrowed, Miss)
                        assert len(narrowed.entries) == len(entries)  # explained against all
                    else:
                        assert isinstance(narrowed, Answer)
                        assert narrowed.entry is everything.entry, (seed, method, path)


def test_few_mocks_are_not_indexed() -> None:
    entries = mixed_mocks(FEW, 1)
    assert PathIndex(entries).candidates("/p1") is entries
    many = mixed_mocks(FEW + 1, 1)
    assert len(PathIndex(many).candidates("/nowhere")) < len(many)


def longest_gap_during_misses(server: mockhttp.Server, misses: int) -> float:
    """Read a stream of an event every 50 ms while ``misses`` unmatched requests come at
    once, each on its own connection; the longest gap between two reads of the stream."""
    stream = socket.create_connection(("127.0.0.1", server.port))
    stream.sendall(b"GET /ticks HTTP/1.1\r\nHost: x\r\n\r\n")
    stream.settimeout(10)
    stream.recv(65536)  # the head and the first event
    arrivals: list[float] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            try:
                if not stream.recv(65536):
                    return
            except OSError:  # shut down by the test
                return
            arrivals.append(time.monotonic())

    reader = threading.Thread(target=read)
    reader.start()
    time.sleep(0.3)
    clients = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(misses)]
    start = time.monotonic()
    for client in clients:
        client.sendall(b"GET /nothing-here HTTP/1.1\r\nHost: x\r\n\r\n")
    for client in clients:
        client.settimeout(30)
        assert client.recv(65536).startswith(b"HTTP/1.1 404 ")
        client.close()
    time.sleep(0.3)
    done.set()
    stream.shutdown(socket.SHUT_RDWR)
    reader.join(5)
    stream.close()
    during = [t for t in arrivals if t >= start - 0.06]
    return max(b - a for a, b in itertools.pairwise(during))


def test_misses_among_20000_mocks_leave_a_stream_flowing() -> None:
    """Ten misses on ten connections stopped the stream 0.9 to 2.4 s (each tried all 20,000
    mocks on the loop); with the index each tries the few that could match its path."""
    ticks = mockhttp.ok().event_stream(
        *[mockhttp.Event(data=str(i)) for i in range(200)], event_delay=0.05
    )
    with mockhttp.Server() as server:
        server.mock([mockhttp.get(f"/items/{i}").reply(mockhttp.ok()) for i in range(20_000)])
        server.mock(mockhttp.get("/ticks").reply(ticks))
        gap = longest_gap_during_misses(server, 20)
        assert len(server.journal) == 21  # the stream and the twenty misses
    # (twenty misses: 1.4 s on the code before the index; the margin is a loaded machine's)
    assert gap < 0.9, gap
