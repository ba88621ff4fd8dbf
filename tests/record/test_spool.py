"""The spool: writes redacted as they arrive exactly as the whole-body rule does, capped,
and written to a mock file line by line that loads back to the same bytes."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import mockhttp
from mockhttp._core._request import Headers, Request
from mockhttp.record import Recording, Write
from mockhttp.record._exchange import _scrub_writes, redactor_of
from mockhttp.record._spool import Spool, write_line, write_mock

SECRET = "sk-spool-Zq9secret42"


def _request() -> Request:
    return Request("GET", "/x", Headers((("Authorization", f"Bearer {SECRET}"),)), b"")


def _spooled(writes: list[Write], folder: Path | None, cap: int = 1 << 30) -> list[Write]:
    spool = Spool(folder, redactor_of(_request()), cap)
    for w in writes:
        spool.add(w.at, w.data)
    spool.finish()
    try:
        return list(spool.writes())
    finally:
        spool.discard()


@pytest.mark.parametrize("seed", range(20))
def test_writes_are_redacted_as_they_arrive_as_the_whole_body_is(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    pieces = [
        rng.choice([SECRET, "a", " ", "x" * rng.randint(1, 30), "-", "\n"]) for _ in range(60)
    ]
    body = "".join(pieces).encode()
    cuts = sorted(rng.sample(range(1, len(body)), min(len(body) - 1, rng.randint(1, 25))))
    writes = [
        Write(i / 100, body[a:b])
        for i, (a, b) in enumerate(zip([0, *cuts], [*cuts, len(body)], strict=True))
    ]
    redactor = redactor_of(_request())
    joined = [w.at for w in _scrub_writes(writes, redactor)]  # where writes are joined
    for got in (_spooled(writes, tmp_path), _spooled(writes, None)):
        assert b"".join(w.data for w in got) == redactor.data(body)  # whole tokens, as one
        assert [w.at for w in got] == joined


def test_a_secret_cut_across_three_writes_goes_out_joined_and_redacted(tmp_path: Path) -> None:
    writes = [
        Write(0.0, b"key: sk-spool-"),
        Write(0.1, b"Zq9sec"),
        Write(0.2, b"ret42!"),
        Write(0.3, b"end"),
    ]
    assert _spooled(writes, tmp_path) == [Write(0.2, b"key: REDACTED!"), Write(0.3, b"end")]


def test_the_cap_keeps_the_first_bytes(tmp_path: Path) -> None:
    writes = [Write(0.0, b"0123"), Write(0.1, b"4567"), Write(0.2, b"89")]
    assert _spooled(writes, tmp_path, cap=6) == [Write(0.0, b"0123"), Write(0.1, b"45")]


TEXTS = [
    'data: {"a": "q\\"uote"}\n\n',
    "tab\there\r\nnul\x00 del\x7f c1\x85\x9f ls\u2028 ps\u2029 bom\ufeff",
    "emoji 😀 and é, 'single' and \\backslash\\",
    "x" * 70000,  # longer than the dumper's line width
    "",
    " leading and trailing ",
]


def test_each_write_line_loads_back_to_its_bytes(tmp_path: Path) -> None:
    writes = [Write(i * 0.0215, t.encode()) for i, t in enumerate(TEXTS)]
    writes.append(Write(1.5, b"\xf0\x9f\x98"))  # not UTF-8 on its own: base64
    spool = Spool(tmp_path, redactor_of(Request("GET", "/", Headers(), b"")), 1 << 30)
    for w in writes:
        spool.add(w.at, w.data)
    spool.finish()
    reply = Recording(status_code=200, headers=(("Content-Type", "text/plain"),))
    mock = mockhttp.get("/x").reply(reply)
    write_mock(tmp_path / "m.yaml", mock, spool)
    spool.discard()
    (loaded,) = mockhttp.load(tmp_path / "m.yaml")
    assert isinstance(loaded.response, Recording)
    assert [w.data for w in loaded.response.writes] == [w.data for w in writes]
    assert [round(w.at, 6) for w in loaded.response.writes] == [round(w.at, 6) for w in writes]
    assert write_line(Write(0.02, b"hi")) == '{at: 20ms, data: "hi"}'
    assert [p.name for p in tmp_path.iterdir()] == ["m.yaml"]  # no spool or partial left
