"""A recording's plan (``record/_recording.py``): the head, the pauses between writes as
they were apart (divided by ``speed``, none with ``timing="none"``), event-tagged data
and the end the upstream gave."""

from __future__ import annotations

import pytest

import mockhttp
from mockhttp._core._plan import Data, End, EndHow, Head, Pause
from mockhttp.record import Recording, Write

SSE = (("Content-Type", "text/event-stream"),)
WRITES = (
    Write(0.0, b"data: a\n\n"),
    Write(0.25, b"data: b\n\ndata: "),
    Write(0.25, b"c\n\n"),  # same time: no pause
    Write(1.0, b"data: [DONE]\n\n"),
)


def _stream(**fields: object) -> Recording:
    return Recording(headers=SSE, writes=WRITES, **fields)  # type: ignore[arg-type]


def test_the_plan_replays_the_head_delay_the_gaps_and_the_events() -> None:
    assert list(_stream(head_delay=0.05).plan()) == [
        Pause(0.05),
        Head(200, "OK", SSE, None),
        Data(b"data: a\n\n", 0),
        Pause(0.25),
        Data(b"data: b\n\n", 1),
        Data(b"data: ", 2),
        Data(b"c\n\n", 2),
        Pause(0.75),
        Data(b"data: [DONE]\n\n", 3),
        End("complete"),
    ]


def test_speed_divides_every_pause() -> None:
    pauses = [s.seconds for s in _stream(head_delay=0.5, speed=2).plan() if isinstance(s, Pause)]
    assert pauses == [0.25, 0.125, 0.375]


def test_timing_none_sends_everything_without_a_pause() -> None:
    steps = list(_stream(head_delay=0.5, timing="none").plan())
    assert not any(isinstance(s, Pause) for s in steps)
    assert b"".join(s.data for s in steps if isinstance(s, Data)) == b"".join(
        w.data for w in WRITES
    )


def test_a_write_earlier_than_the_one_before_adds_no_pause_and_no_negative_one() -> None:
    writes = (Write(0.5, b"a"), Write(0.2, b"b"), Write(0.7, b"c"))
    steps = list(Recording(writes=writes).plan())
    assert [s.seconds for s in steps if isinstance(s, Pause)] == pytest.approx([0.5, 0.2])


def test_a_plain_body_has_no_event_indexes_and_keeps_its_length() -> None:
    reply = Recording(
        status_code=201,
        reason="Created",
        headers=(("Content-Type", "application/json"),),
        writes=(Write(0, b'{"id":'), Write(0.1, b"1}\n\n")),
        length=11,
    )
    steps = list(reply.plan())
    assert steps[0] == Head(201, "Created", (("Content-Type", "application/json"),), 11)
    assert [s for s in steps if isinstance(s, Data)] == [Data(b'{"id":'), Data(b"1}\n\n")]


@pytest.mark.parametrize("end", ["close", "reset"])
def test_the_plan_ends_as_the_upstream_did(end: EndHow) -> None:
    assert list(_stream(end=end).plan())[-1] == End(end)


def test_a_variant_plays_its_own_writes_and_keeps_the_recorded_ones() -> None:
    crlf = _stream().with_(variant="crlf")
    sent = b"".join(s.data for s in crlf.plan() if isinstance(s, Data))
    assert sent == crlf.body_bytes.replace(b"\n", b"\r\n")
    assert crlf.writes == WRITES
    assert crlf.body_bytes == b"".join(w.data for w in WRITES)
    assert crlf.describe() == "200 recording (4 writes, variant crlf)"
    assert _stream().describe() == "200 recording (4 writes)"


def test_the_content_type_says_whether_it_is_an_event_stream() -> None:
    assert _stream().is_event_stream
    upper = Recording(headers=(("CONTENT-TYPE", "Text/Event-Stream; charset=utf-8"),))
    assert upper.is_event_stream
    assert not Recording(headers=(("Content-Type", "application/json"),)).is_event_stream
    assert not Recording(headers=(("X-Note", "text/event-stream"),)).is_event_stream


def test_with_checks_the_changes_like_the_constructor() -> None:
    assert _stream().with_(speed=3).speed == 3.0
    with pytest.raises(mockhttp.ConfigError, match="speed=0 must be a number above 0"):
        _stream().with_(speed=0)
    with pytest.raises(mockhttp.ConfigError, match="timing='fast' must be one of original, none"):
        _stream().with_(timing="fast")


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"length": -1}, "length=-1 must be a non-negative int or None"),
        ({"length": True}, "length=True must be a non-negative int"),
        ({"length": 2.0}, "length=2.0 must be"),
        ({"speed": True}, "speed=True must be a number above 0"),
        ({"speed": "2"}, "speed='2' must be"),
    ],
)
def test_a_bad_field_is_a_config_error(fields: dict[str, object], error: str) -> None:
    with pytest.raises(mockhttp.ConfigError, match=error):
        Recording(**fields)  # type: ignore[arg-type]


def test_recordings_compare_by_their_fields_not_by_what_they_derived() -> None:
    assert _stream() == _stream()
    assert _stream() != _stream(speed=2)
    assert _stream().with_(variant="crlf") != _stream()
