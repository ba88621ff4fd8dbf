"""Kept state on a server (``_core/_kept.py``): a kind's sessions live in the server (one
process, on the wire, reset with the server), and in the supervisor under ``--workers``
(``_server/_shared.SharedKept``: two workers' channels to one keeper, concurrent updates
each taken once)."""

from __future__ import annotations

import socket
import threading
from concurrent.futures import ThreadPoolExecutor

import httpx

import mockhttp
from mockhttp._server._shared import Keeper, SharedKept, StateChannel
from tests.helpers.kept_kind import Sessions


def test_sessions_live_in_the_server_and_go_with_a_reset() -> None:
    with mockhttp.Server() as server:
        server.mock(mockhttp.post("/s").reply(Sessions()))
        server.mock(mockhttp.request(None, "/s/{id}").reply(Sessions()))
        with httpx.Client(base_url=server.url) as client:
            assert client.post("/s").json() == {"session": 1}
            assert client.post("/s").json() == {"session": 2}
            assert client.get("/s/1").status_code == 200
            assert client.delete("/s/1").status_code == 204
            assert client.get("/s/1").status_code == 404
            server.reset()
            server.mock(mockhttp.post("/s").reply(Sessions()))
            assert client.post("/s").json() == {"session": 1}  # the state went too
        server.check()


def test_workers_share_the_supervisors_kept_state_and_lose_no_update() -> None:
    keeper = Keeper()
    channels = []
    for _ in range(2):
        ours, theirs = socket.socketpair()
        threading.Thread(target=keeper.serve, args=(ours,), daemon=True).start()
        channels.append(StateChannel(theirs))
    kept = [SharedKept(channel) for channel in channels]

    def add(i: int) -> int:
        result: int = kept[i % 2].update("n", lambda n: ((n or 0) + 1, (n or 0) + 1))
        return result

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(add, range(200)))
    assert sorted(results) == list(range(1, 201))  # each update taken once
    assert kept[0].get("n") == kept[1].get("n") == 200
    keeper.after("POST", "/__mockhttp/reset")
    assert kept[1].get("n") is None
    for channel in channels:
        channel.sock.close()
