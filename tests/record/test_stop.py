"""``mockhttp record`` stopped by SIGTERM: every exchange the client finished is on disk,
whole; one still streaming past ``--stop-timeout`` is named, not half-written."""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

import mockhttp
from mockhttp._cli._main import main
from mockhttp.record import Recording
from tests.helpers.cli_process import ROOT, mockhttp_command

CHAT = "/v1/chat/completions"
N = 10
PIECE = b"x" * 8000


STARTED: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def _no_recorder_left() -> Iterator[None]:
    """A test that failed midway leaves no recorder running (nor its pipes open)."""
    yield
    while STARTED:
        proc = STARTED.pop()
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)


def _record(out: Path, *more: str, **env: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        mockhttp_command("record", "--upstream", UPSTREAM[0], "--out", str(out), *more),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **env},
    )
    STARTED.append(proc)
    return proc


UPSTREAM: list[str] = [""]


def _finished_exchanges(url: str, n: int, workers: int = 6) -> list[int]:
    """Send ``n`` chat requests (prompts q0..q{n-1}) and read every reply whole."""

    def one(i: int) -> int:
        body = {"model": "m", "messages": [{"role": "user", "content": f"q{i}"}]}
        with httpx.Client(timeout=60) as client:
            return len(client.post(url + CHAT, json=body).content)

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(one, range(n)))


def _assert_whole_on_disk(folder: Path, n: int, events: int) -> None:
    """``n`` numbered mock files, each loading whole (every event's bytes), one per prompt,
    and nothing else: no temporary (``.partial``) file, no spool."""
    files = sorted(folder.iterdir())
    assert [p.name for p in files if not re.match(r"^\d{3}-[a-z0-9-]+\.yaml$", p.name)] == []
    assert len(files) == n, f"{len(files)} of {n} finished exchanges on disk"
    prompts = set()
    for path in files:
        (mock,) = mockhttp.load(path)
        assert isinstance(mock.response, Recording)
        assert mock.response.body_bytes.count(PIECE) == events, path
        prompts.update(re.findall(r"\bq\d+\b", path.read_text()))
    assert prompts == {f"q{i}" for i in range(n)}


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_sigterm_leaves_every_finished_exchange_on_disk_whole(tmp_path: Path, loop: str) -> None:
    events = [mockhttp.Event(data=PIECE.decode()) for _ in range(10)]  # ~80 KB each
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post(CHAT).reply(mockhttp.ok().event_stream(*events)))
        UPSTREAM[0] = upstream.url
        proc = _record(tmp_path / "rec", "--loop", loop)
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        sizes = _finished_exchanges(url, N)
        proc.send_signal(signal.SIGTERM)  # the client has read all N replies
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert len(set(sizes)) == 1
    _assert_whole_on_disk(tmp_path / "rec", N, len(events))
    assert f"recorded {N} exchanges" in err
    assert f"through {url} ({loop})" in err


BIG_N = 24
BIG_EVENTS = 256  # 256 x 8 KB: ~2 MiB a reply
GRACE = 45.0  # seconds between SIGTERM and SIGKILL (a container runtime's stop)


def test_big_exchanges_finished_just_before_sigterm_are_all_whole_within_a_grace(
    tmp_path: Path,
) -> None:
    """The issue's shape, scaled down: many ~2 MiB replies the client has all read the
    moment SIGTERM comes.  Writing their files must not lag behind the client: within the
    grace a supervisor gives before SIGKILL, every one is on disk whole and the process
    has exited by itself.  (Before the fix, each file was a YAML dump of the whole body
    under one lock: at SIGKILL most of them were missing.)"""
    events = [mockhttp.Event(data=PIECE.decode()) for _ in range(BIG_EVENTS)]
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post(CHAT).reply(mockhttp.ok().event_stream(*events)))
        UPSTREAM[0] = upstream.url
        proc = _record(tmp_path / "rec")
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        sizes = _finished_exchanges(url, BIG_N)
        proc.send_signal(signal.SIGTERM)  # right after the last reply was read whole
        try:
            _, err = proc.communicate(timeout=GRACE)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate(timeout=10)
    assert len(set(sizes)) == 1
    assert sizes[0] > BIG_EVENTS * len(PIECE)
    _assert_whole_on_disk(tmp_path / "rec", BIG_N, BIG_EVENTS)
    assert proc.returncode == 0, err  # exited by itself, not killed
    assert f"recorded {BIG_N} exchanges" in err


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


def test_a_recording_over_the_mock_file_limit_stops_cleanly_and_says_how_to_replay_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A recording larger than a mock file may be (the limit lowered here, as a 67 MB one
    is over the default): ``record`` stops with status 0 and no traceback (it counts what it
    recorded, it does not read the files back), its log line warns, and ``serve``'s error
    names the setting that replays it; with it set, the recording loads."""
    limit = 200_000
    body = b"y" * 400_000
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.get("/big").reply(mockhttp.ok().body(body)))
        UPSTREAM[0] = upstream.url
        proc = _record(tmp_path / "rec", MOCKHTTP_MAX_FILE_BYTES=str(limit))
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert httpx.get(url + "/big", timeout=30).content == body
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert "Traceback" not in err
    assert proc.returncode == 0, err
    assert "recorded 1 exchanges" in err
    (path,) = (tmp_path / "rec").iterdir()
    size = path.stat().st_size
    assert f"over the {limit:,}-byte limit of a mock file" in err
    assert f"MOCKHTTP_MAX_FILE_BYTES={size} in the environment" in err
    monkeypatch.setenv("MOCKHTTP_MAX_FILE_BYTES", str(limit))
    assert main(["validate", str(path)]) == 1
    said = capsys.readouterr()
    assert f"raise the limit: MOCKHTTP_MAX_FILE_BYTES={size} in the environment" in said.err
    monkeypatch.setenv("MOCKHTTP_MAX_FILE_BYTES", str(size))
    (mock,) = mockhttp.load(path)
    assert isinstance(mock.response, Recording)
    assert mock.response.body_bytes == body
