"""``serve --workers 2``: one capacity for every worker (the supervisor's pools; wire:
real processes, loopback clients on fresh connections, which the kernel spreads)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import httpx
import pytest

from mockhttp._server._shared import Admissions
from tests.helpers.cli_process import Serving

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT spreading: Linux"
)

_MOCKS = """\
name: busy
request: {method: POST, path: /busy/v1/chat/completions}
response:
  openai_chat:
    text: one two three four five six seven eight nine ten
    chunks_per_second: 20
    capacity: {max_running: 2, max_waiting: 0}
---
name: queued
request: {method: POST, path: /queued/v1/chat/completions}
response:
  openai_chat:
    text: one two three four five six
    chunks_per_second: 20
    capacity: {max_running: 1, max_waiting: 1}
---
name: limited
request: {method: POST, path: /limited/v1/chat/completions}
response:
  openai_chat:
    text: Hi
    capacity: {rpm: 3, limit_by: model}
"""
T = TypeVar("T")
_CHAT = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    folder: Path = tmp_path_factory.mktemp("capacity-workers")
    (folder / "backend.yaml").write_text(_MOCKS)
    with Serving(str(folder), "--workers", "2", "--quiet") as serving:
        yield serving


def at_once(n: int, ask: Callable[[httpx.Client], T]) -> list[T]:
    """``ask`` in ``n`` threads at once, each with a client of its own (a connection of
    its own, which the kernel gives to either worker); their results."""
    barrier = threading.Barrier(n)

    def one() -> T:
        with httpx.Client(timeout=10) as client:
            barrier.wait()
            return ask(client)

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(lambda _: one(), range(n), timeout=20))


def workers_of(served: Serving, mock: str) -> list[int]:
    calls = httpx.get(served.url + f"/__mockhttp/journal?mock={mock}").json()["calls"]
    return [c["worker"] for c in calls]


def test_max_running_holds_across_workers(served: Serving) -> None:
    """max_running: 2, max_waiting: 0, and 6 concurrent slow streams (0.5 s each), each on
    its own connection: exactly 2 stream to their end, 4 get OpenAI's 429, whichever
    worker answered them (per worker it would be up to 4 streams)."""
    url = served.url + "/busy/v1/chat/completions"

    def one(client: httpx.Client) -> tuple[int, str]:
        with client.stream("POST", url, json=_CHAT) as response:
            return response.status_code, response.read().decode()

    results = at_once(6, one)
    assert sorted(code for code, _ in results) == [200, 200, 429, 429, 429, 429]
    streamed = [body for code, body in results if code == 200]
    assert all(body.endswith("data: [DONE]\n\n") and "ten" in body for body in streamed)
    refused = [body for code, body in results if code == 429]
    assert all('"code":"rate_limit_exceeded"' in body.replace(" ", "") for body in refused)
    # the slots are free again: 2 more stream (the pool's count went back to 0)
    codes = []
    for _ in range(2):
        with httpx.Client(timeout=10) as client:
            codes.append(client.post(url, json={**_CHAT, "stream": False}).status_code)
    assert codes == [200, 200]
    assert sorted(set(workers_of(served, "busy"))) == [0, 1]  # 2**-7 odds of one only


def test_the_queue_is_one_across_workers(served: Serving) -> None:
    """max_running: 1, max_waiting: 1, 3 concurrent streams (0.3 s each): one streams, one
    waits for it (whichever worker holds either) and then streams, one gets 429; the
    one that waited ends a stream's length after the first."""
    url = served.url + "/queued/v1/chat/completions"

    def one(client: httpx.Client) -> tuple[int, float]:
        return client.post(url, json=_CHAT).status_code, time.monotonic()

    ended = at_once(3, one)
    assert sorted(code for code, _ in ended) == [200, 200, 429]
    first, second = sorted(at for code, at in ended if code == 200)
    assert second - first >= 0.2  # it streamed after the first ended (0.25 s of gaps)


def test_rpm_is_counted_across_workers(served: Serving) -> None:
    """rpm: 3 per model, 12 requests on fresh connections (spread over both workers): the
    first 3 pass with x-ratelimit-remaining-requests 2, 1, 0; the other 9 get 429."""
    url = served.url + "/limited/v1/chat/completions"
    answers = []
    for _ in range(12):
        with httpx.Client(timeout=10) as client:
            answers.append(client.post(url, json={**_CHAT, "stream": False}))
    assert [a.status_code for a in answers] == [200] * 3 + [429] * 9
    remaining = [a.headers["x-ratelimit-remaining-requests"] for a in answers[:3]]
    assert remaining == ["2", "1", "0"]
    assert all(a.headers["x-ratelimit-limit-requests"] == "3" for a in answers)
    assert all(int(a.headers["retry-after"]) >= 1 for a in answers[3:])
    assert sorted(set(workers_of(served, "limited"))) == [0, 1]  # 2**-11 odds of one only


def test_the_supervisors_queue_hands_places_on_in_order() -> None:
    """The pool itself: 1 running, 2 waiting, the next refused; each end grants the
    oldest waiting ticket, once; a waiting ticket that leaves is forgotten."""
    pools = Admissions()

    def admit() -> dict[str, object]:
        asked = {"max_running": 1, "max_waiting": 2, "minute": 60.0, "name": "", "charges": []}
        return pools.answer({"pool": "p", "admit": {**asked, "now": 0.0}})

    first, second, third, fourth = admit(), admit(), admit(), admit()
    assert [a["place"] for a in (first, second, third, fourth)] == [
        "running",
        "waiting",
        "waiting",
        None,
    ]
    waiting = [second["ticket"], third["ticket"]]
    assert pools.answer({"pool": "p", "granted": waiting}) == {"granted": []}
    pools.answer({"pool": "p", "leave": first["ticket"]})
    assert pools.answer({"pool": "p", "granted": waiting}) == {"granted": [second["ticket"]]}
    assert pools.answer({"pool": "p", "granted": waiting}) == {"granted": []}
    pools.answer({"pool": "p", "leave": third["ticket"]})  # gave up waiting
    pools.answer({"pool": "p", "leave": second["ticket"]})
    assert pools.pools["p"].running == 0
    assert admit()["place"] == "running"
