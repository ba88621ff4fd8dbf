"""The ``recording`` reply kind of mock files (record/_file.py): reading writes, and the
errors a bad recording gets."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp._core._errors import ConfigError
from mockhttp._core._reply import Reply
from mockhttp.record._file import recording
from mockhttp.record._pieces import Write

HEAD = Reply(status_code=201, reason="Created", headers=(("Content-Type", "text/plain"),))


def test_writes_become_timed_pieces_under_the_reply_head() -> None:
    rec = recording(
        HEAD,
        writes=[{"at": "0ms", "data": "data: 1\n\n"}, {"at": "21.5ms", "base64": "8J+Ygg=="}],
    )
    assert rec.status_code == 201
    assert rec.reason == "Created"
    assert rec.headers == HEAD.headers
    assert rec.writes == (Write(0.0, b"data: 1\n\n"), Write(0.0215, "😂".encode()))


def test_at_defaults_to_zero_and_accepts_numbers_of_seconds() -> None:
    rec = recording(HEAD, writes=[{"data": "a"}, {"at": 1.5, "data": "b"}])
    assert [w.at for w in rec.writes] == [0.0, 1.5]


def test_options_are_kept() -> None:
    head = Reply(headers=(("Content-Type", "text/event-stream"),))
    writes = [{"data": "data: 1\n\n"}]
    rec = recording(head, writes=writes, speed=2, timing="none", variant="comment", truncated=9)
    assert (rec.speed, rec.timing, rec.variant, rec.truncated) == (2, "none", "comment", 9)
    assert rec.describe() == "200 recording (1 writes, variant comment, truncated: 9 bytes sent)"


def test_a_variant_needs_an_event_stream() -> None:
    with pytest.raises(ConfigError, match="variants need an event stream"):
        recording(HEAD, writes=[{"data": "data: 1\n\n"}], variant="comment")


def test_missing_writes_says_what_a_recording_needs() -> None:
    with pytest.raises(ConfigError, match="a recording needs writes"):
        recording(HEAD)


def test_writes_not_a_list_is_named() -> None:
    with pytest.raises(ConfigError, match=r"writes: found 'abc', expected a list"):
        recording(HEAD, writes="abc")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ("text", r"writes\[1\]: a write is \{at: 20ms, data: text\}"),
        ({"at": "1ms", "date": "x"}, r"writes\[1\]: a write is"),
        ({"at": "1ms"}, r"writes\[1\]: a write needs one of data \(text\) or base64"),
        ({"data": "x", "base64": "eA=="}, r"writes\[1\]: a write needs one of"),
        ({"at": "soon", "data": "x"}, r"^writes\[1\]\.at: "),
        ({"at": -1, "data": "x"}, r"^writes\[1\]\.at: "),
        ({"data": 5}, r"writes\[1\]\.data: found 5, expected text"),
        ({"base64": "not base64!"}, r"writes\[1\]\.base64: found 'not base64!', expected base64"),
        ({"base64": 7}, r"writes\[1\]\.base64: found 7, expected base64"),
    ],
)
def test_a_bad_write_is_named_by_its_place(item: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        recording(HEAD, writes=[{"data": "ok"}, item])


def test_a_bad_option_is_refused() -> None:
    with pytest.raises(ConfigError):
        recording(HEAD, writes=[], timing="sometimes")


@given(st.lists(st.tuples(st.integers(0, 10_000), st.binary(max_size=40)), max_size=8))
def test_to_args_reads_back_to_the_same_writes(pieces: list[tuple[int, bytes]]) -> None:
    rec = recording(
        HEAD, writes=[{"at": f"{ms}ms", "base64": base64.b64encode(b).decode()} for ms, b in pieces]
    )
    args = rec.to_args()
    again = recording(HEAD, **args)
    assert again.writes == rec.writes
    assert [w.data for w in again.writes] == [b for _, b in pieces]
