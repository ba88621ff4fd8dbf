"""A big admin POST of small mocks does not pause the streams being served (issue 19,
"Admin work stalls the loop"), in one process and under ``--workers`` (wire)."""

from __future__ import annotations

import itertools
import sys
import threading
import time
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

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        time.sleep(0.5)
        start = time.monotonic()
        added = httpx.post(
            serving.url + "/__mockhttp/mocks",
            content=small_mocks(count),
            headers={"Content-Type": "application/yaml"},
            timeout=300,
        )
        took = time.monotonic() - start
        done.set()
        reader.join(10)
        assert added.status_code == 201, added.text[:300]
        assert [m["name"] for m in added.json()["mocks"]] == [f"m{n}" for n in range(count)]
        listed = httpx.get(serving.url + "/__mockhttp/mocks", timeout=60).json()["mocks"]
        assert len(listed) == count + 1
        during = [t for t in arrivals if start <= t <= start + took]
        gaps = [b - a for a, b in itertools.pairwise(during)]
        assert len(during) > took / 0.05 / 4, (took, len(during))  # the stream went on
        assert max(gaps) < 0.5, (took, sorted(gaps)[-5:])


def test_a_worker_waits_for_the_hub_longer_than_the_hub_waits_for_a_worker() -> None:
    """A fixed 30 s on both hops: a worker gave the client a 502 while the hub was still
    applying the change (and kept it), for a body that takes longer than that to read."""
    assert hop_timeout(0) == _TIMEOUT
    for size in (0, 1 << 10, 1 << 20, 16 << 20):
        assert forward_timeout(size) >= hop_timeout(size) + _TIMEOUT
    assert hop_timeout(16 << 20) > 82 * 3  # 16 MiB took 82 s on a quiet machine
