"""A big admin POST of small mocks does not pause the streams being served (issue 19,
"Admin work stalls the loop"), in one process and under ``--workers`` (wire)."""

from __future__ import annotations

import itertools
import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from mockhttp._server._workers import _TIMEOUT, forward_timeout, hop_timeout
from tests.helpers.cli_process import Serving

TICKS = """\
request: {method: GET, path: /ticks}
response:
  event_stream:
    events: [{data: tick, delay: 50ms}]
    repeat: true
"""


def small_mocks(count: int) -> str:
    return "".join(
        f"- name: m{n}\n  request: {{method: GET, path: /items/{n}, header: {{x-test: a}}}}\n"
        f"  response: {{status: 200, json: {{id: {n}, ok: true}}}}\n"
        for n in range(count)
    )


def post_during(
    serving: Serving, watch: Callable[[], None], done: threading.Event, body: str, kind: str
) -> tuple[httpx.Response, float, float]:
    """POST ``body`` (of Content-Type ``kind``) to the admin API while ``watch`` runs on a
    thread, until ``done`` is set once the answer came: the answer, when it was sent and
    how long it took."""
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    time.sleep(0.5)
    start = time.monotonic()
    added = httpx.post(
        serving.url + "/__mockhttp/mocks",
        content=body,
        headers={"Content-Type": kind},
        timeout=300,
    )
    took = time.monotonic() - start
    done.set()
    watcher.join(10)
    return added, start, took


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="--workers: Linux")
@pytest.mark.parametrize("workers", [[], ["--workers", "2"]], ids=["one process", "workers"])
def test_a_big_admin_post_leaves_streams_flowing(tmp_path: Path, workers: list[str]) -> None:
    """4,000 mocks in one POST: the collector's passes over what the parse made, the
    freeing of its nodes and the encoding of the 201 each held the interpreter for
    seconds (events 50 ms apart arrived 3.5-6 s apart); the POST answers 201 with every
    mock, on every worker."""
    (tmp_path / "ticks.yaml").write_text(TICKS)
    count = 4000
    with Serving(str(tmp_path / "ticks.yaml"), "--quiet", *workers) as serving:
        if workers:
            serving.wait_for_log("with 2 workers")
        arrivals: list[float] = []
        done = threading.Event()

        def read() -> None:
            with httpx.stream("GET", serving.url + "/ticks", timeout=60) as answer:
                for line in answer.iter_lines():
                    if line.startswith("data:"):
                        arrivals.append(time.monotonic())
                    if done.is_set():
                        return

        added, start, took = post_during(
            serving, read, done, small_mocks(count), "application/yaml"
        )
        assert added.status_code == 201, added.text[:300]
        assert [m["name"] for m in added.json()["mocks"]] == [f"m{n}" for n in range(count)]
        listed = httpx.get(serving.url + "/__mockhttp/mocks", timeout=60).json()["mocks"]
        assert len(listed) == count + 1
        during = [t for t in arrivals if start <= t <= start + took]
        gaps = [b - a for a, b in itertools.pairwise(during)]
        assert len(during) > took / 0.05 / 4, (took, len(during))  # the stream went on
        assert max(gaps) < 1.5, (took, sorted(gaps)[-5:])  # the stall was 3.5-6 s


def test_a_worker_waits_for_the_hub_longer_than_the_hub_waits_for_a_worker() -> None:
    """A fixed 30 s on both hops: a worker gave the client a 502 while the hub was still
    applying the change (and kept it), for a body that takes longer than that to read."""
    assert hop_timeout(0) == _TIMEOUT
    for size in (0, 1 << 10, 1 << 20, 16 << 20):
        assert forward_timeout(size) >= hop_timeout(size) + _TIMEOUT
    assert hop_timeout(16 << 20) > 82 * 3  # 16 MiB took 82 s on a quiet machine


COUNTED = """\
- request: {method: GET, path: /counted}
  times: 100000000
  response: {status: 200}
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="--workers: Linux")
def test_the_hub_answers_the_state_while_it_merges_a_big_post(tmp_path: Path) -> None:
    """Under ``--workers`` a mock with ``times`` asks the supervisor on the worker's loop;
    the supervisor read each worker's 201 to 50,000 mocks (11 MiB of JSON) in one
    ``json.loads`` and wrote the merge in one ``json.dumps``, with its collector on: those
    requests waited 0.8-0.9 s (2-core machine).  Read and written a mock at a time, with
    the collector off: 0.26-0.37 s (what is left is the three processes sharing 2 cores)."""
    (tmp_path / "counted.yaml").write_text(COUNTED)
    count = 50_000
    body = json.dumps(
        [
            {
                "name": f"m{n}",
                "request": {"method": "GET", "path": f"/items/{n}", "header": {"x-test": "a"}},
                "response": {"status": 200, "json": {"id": n, "ok": True}},
            }
            for n in range(count)
        ]
    )
    with Serving(str(tmp_path / "counted.yaml"), "--quiet", "--workers", "2") as serving:
        serving.wait_for_log("with 2 workers")
        waits: list[tuple[float, float]] = []  # (when it was sent, how long it took)
        statuses: set[int] = set()
        done = threading.Event()

        def ask() -> None:
            with httpx.Client(timeout=60) as client:
                while not done.is_set():
                    sent = time.monotonic()
                    statuses.add(client.get(serving.url + "/counted").status_code)
                    waits.append((sent, time.monotonic() - sent))
                    time.sleep(0.01)

        added, start, took = post_during(serving, ask, done, body, "application/json")
        assert added.status_code == 201, added.text[:300]
        mocks = added.json()["mocks"]
        assert len(mocks) == count
        assert mocks[-1]["name"] == f"m{count - 1}"
        assert mocks[-1]["call_count"] == 0
        assert statuses == {200}
        during = [w for sent, w in waits if start <= sent <= start + took]
        assert len(during) > 10, (took, len(during))
        # the stall this guards against is the supervisor's one parse and one write of it
        # all (0.8-0.9 s on a quiet machine, where the rest takes 0.26-0.37 s); a loaded
        # machine stretches both, so the bound is that work timed here and now
        bound = max(0.6, 0.7 * _parse_and_write(body))
        assert max(during) < bound, (took, bound, sorted(during)[-5:])


def _parse_and_write(body: str) -> float:
    """Seconds this process takes to parse ``body`` and write it back (the slower of two:
    the load of the moment, not its lull)."""
    took = 0.0
    for _ in range(2):
        start = time.perf_counter()
        json.dumps(json.loads(body))
        took = max(took, time.perf_counter() - start)
    return took
