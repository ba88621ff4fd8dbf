"""``mockhttp record`` stopped by SIGTERM: every exchange the client finished is on disk,
whole; one still streaming past ``--stop-timeout`` is named, not half-written."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

import mockhttp
from mockhttp.record import Recording
from tests.helpers.cli_process import ROOT, mockhttp_command

CHAT = "/v1/chat/completions"
N = 10
PIECE = b"x" * 8000


def _record(out: Path, *more: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        mockhttp_command("record", "--upstream", UPSTREAM[0], "--out", str(out), *more),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


UPSTREAM: list[str] = [""]


def test_sigterm_leaves_every_finished_exchange_on_disk_whole(tmp_path: Path) -> None:
    events = [mockhttp.Event(data=PIECE.decode()) for _ in range(10)]  # ~80 KB each
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post(CHAT).reply(mockhttp.ok().event_stream(*events)))
        UPSTREAM[0] = upstream.url
        proc = _record(tmp_path / "rec")
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()

        def one(i: int) -> int:
            body = {"model": "m", "messages": [{"role": "user", "content": f"q{i}"}]}
            reply = httpx.post(url + CHAT, json=body, timeout=30)
            return len(reply.content)

        with ThreadPoolExecutor(6) as pool:
            sizes = list(pool.map(one, range(N)))
        proc.send_signal(signal.SIGTERM)  # the client has read all N replies
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert len(set(sizes)) == 1
    files = sorted((tmp_path / "rec").iterdir())
    assert [p.suffix for p in files] == [".yaml"] * N  # no partial file left behind
    prompts = set()
    for path in files:
        (mock,) = mockhttp.load(path)
        assert isinstance(mock.response, Recording)
        assert mock.response.body_bytes.count(PIECE) == 10, path
        prompts.update(re.findall(r"\bq\d+\b", path.read_text()))
    assert prompts == {f"q{i}" for i in range(N)}
    assert f"recorded {N} exchanges" in err


def test_an_exchange_unfinished_at_the_deadline_is_named(tmp_path: Path) -> None:
    slow = mockhttp.ok().event_stream(mockhttp.Event(data="a"), mockhttp.Event(data="b", delay=30))
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post(CHAT).reply(slow))
        UPSTREAM[0] = upstream.url
        proc = _record(tmp_path / "rec", "--stop-timeout", "0.5")
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        with httpx.stream("POST", url + CHAT + "?key=AIzaStop99", json={}, timeout=30) as reply:
            next(reply.iter_bytes())  # the first event: the exchange is in flight
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=20)
    assert proc.returncode == 1, err
    assert "not finished within 0.5 s, not written: POST /v1/chat/completions?key=[redacted]" in err
    assert "AIzaStop99" not in err
    assert list((tmp_path / "rec").iterdir()) == []
