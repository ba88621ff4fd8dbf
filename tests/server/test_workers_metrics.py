"""``mockhttp serve --workers 2 --metrics``: one ``/metrics`` for the whole server (wire).

Requests spread over both workers (a new connection each: the kernel picks the worker);
every scrape, whichever worker answers it, covers both; a counter never goes down, even
when a worker is killed with SIGKILL and replaced.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.helpers.cli_process import Serving
from tests.server.test_workers import children

pytest.importorskip("prometheus_client")
from prometheus_client.parser import text_string_to_metric_families

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT spreading and /proc: Linux"
)

MOCKS = """\
- request: {method: POST, path: /v1/chat/completions}
  response:
    openai_chat:
      text: Hi
      capacity: {max_running: 64}
"""
SUCCESS = "vllm:request_success_total"
CHAT = {"model": "m", "messages": [{"role": "user", "content": "hello"}]}


def chat(url: str) -> None:
    """One request on a new connection (the kernel picks a worker per connection)."""
    with httpx.Client() as client:
        assert client.post(url + "/v1/chat/completions", json=CHAT).status_code == 200


def scrape(url: str, query: str = "") -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of ``/metrics`` (on a new connection), by name and labels."""
    with httpx.Client() as client:
        got = client.get(url + "/metrics" + query)
    assert got.status_code == 200, got.text
    assert got.headers["content-type"].startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(got.text)
        for s in family.samples
    }


def successes(url: str) -> float:
    return sum(v for (name, _), v in scrape(url).items() if name == SUCCESS)


def until(url: str, want: float, timeout: float = 30) -> float:
    """Scrape until the success count reaches ``want`` (a reply is counted at its end)."""
    deadline = time.monotonic() + timeout
    seen = successes(url)
    while seen < want and time.monotonic() < deadline:
        time.sleep(0.05)
        seen = successes(url)
    return seen


def test_one_metrics_for_every_worker_and_monotonic_across_a_kill(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(MOCKS)
    with Serving(str(tmp_path), "--workers", "2", "--metrics", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        url = serving.url
        sent, last = 0, 0.0
        for _ in range(40):
            chat(url)
            sent += 1
            now = successes(url)
            assert last <= now <= sent  # never a reset, whichever worker answered
            last = now
        assert until(url, sent) == sent
        scrapes = [successes(url) for _ in range(10)]
        assert scrapes == [float(sent)] * 10

        by_worker = scrape(url, "?per_worker=1")
        per = {
            dict(labels)["worker"]: value
            for (name, labels), value in by_worker.items()
            if name == SUCCESS
        }
        assert set(per) == {"0", "1"}
        assert all(v > 0 for v in per.values()), per  # both workers served some
        assert sum(per.values()) == sent
        merged = scrape(url)
        # a histogram merged bucket by bucket: +Inf holds every request, as _count does
        ttft = "vllm:time_to_first_token_seconds"
        inf = [v for (n, ls), v in merged.items() if n == ttft + "_bucket" and ("le", "+Inf") in ls]
        count = [v for (n, _), v in merged.items() if n == ttft + "_count"]
        assert inf == count == [float(sent)]
        assert all(dict(ls).get("worker") is None for (_, ls) in merged)

        victim = min(children(serving.proc.pid))
        os.kill(victim, signal.SIGKILL)
        serving.wait_for_log("restarted")
        assert successes(url) == sent  # the dead worker's totals are kept
        for _ in range(10):
            chat(url)
            sent += 1
            now = successes(url)
            assert last <= now <= sent
            last = now
        assert until(url, sent) == sent
        assert [successes(url) for _ in range(10)] == [float(sent)] * 10
        assert serving.stop(signal.SIGTERM) == 0


def test_metrics_merge_without_the_admin_api(tmp_path: Path) -> None:
    """--no-admin: the hub still merges /metrics, and refuses admin requests."""
    (tmp_path / "m.yaml").write_text(MOCKS)
    args = ("--workers", "2", "--metrics", "--no-admin", "--quiet")
    with Serving(str(tmp_path), *args) as serving:
        serving.wait_for_log("with 2 workers")
        for _ in range(12):
            chat(serving.url)
        assert until(serving.url, 12) == 12
        assert httpx.get(serving.url + "/__mockhttp/mocks").status_code == 404
        assert serving.stop(signal.SIGTERM) == 0
