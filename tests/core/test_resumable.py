"""Resumable event streams as data: numbering, the rest after an id, refusals."""

from __future__ import annotations

import pytest

import mockhttp
from mockhttp import ConfigError, Event


def test_events_without_ids_are_numbered_and_given_ids_kept() -> None:
    """Position ids ``"1"``, ``"2"``... for events without one."""
    reply = mockhttp.ok().event_stream(Event(data="a"), Event(data="b", id="x"), resumable=True)
    assert reply.stream is not None
    assert reply.stream.ids == ("1", "x")
    assert reply.stream.encoded == (b"id: 1\ndata: a\n\n", b"id: x\ndata: b\n\n")


def test_after_keeps_the_rest_and_its_first_delay() -> None:
    """The rest after an id starts with ``first_event_delay`` as the stream did."""
    reply = mockhttp.ok().event_stream(
        *(Event(data=str(i)) for i in range(3)),
        resumable=True,
        first_event_delay=0.5,
        event_delay=0.1,
    )
    assert reply.stream is not None
    rest = reply.stream.after("1")
    assert (rest.ids, rest.delays) == (("2", "3"), (0.5, 0.1))
    assert reply.stream.after("9") is reply.stream


def test_retry_leads_every_reply() -> None:
    """``retry=`` is a data-less block first (no event for the client)."""
    reply = mockhttp.ok().event_stream(Event(data="a"), resumable=True, retry=250)
    body = b"".join(getattr(s, "data", b"") for s in reply.plan())
    assert body == b"retry: 250\n\nid: 1\ndata: a\n\n"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"repeat": True}, "resumable=True with repeat=True"),
        ({"repeat": 2}, "resumable=True with repeat=2"),
        ({"retry": -1}, "retry=-1 must be a non-negative int"),
    ],
)
def test_bad_options_are_refused(kwargs: dict[str, object], message: str) -> None:
    """A resumable stream cannot repeat; retry is milliseconds."""
    with pytest.raises(ConfigError, match=message):
        mockhttp.ok().event_stream(Event(data="a"), resumable=True, **kwargs)  # type: ignore[arg-type]


def test_an_id_used_twice_is_refused() -> None:
    """Which event an id names must be known."""
    with pytest.raises(ConfigError, match=r"events\[1\] id='1' is used twice"):
        mockhttp.ok().event_stream(Event(data="a"), Event(data="b", id="1"), resumable=True)
