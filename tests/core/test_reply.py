"""Replies and events compile to exact bytes and pauses (pure, no sockets)."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest

import mockhttp
from mockhttp import ConfigError, Event
from mockhttp._core._plan import Data, End, Head, Pause


def test_dict_data_is_one_line_of_compact_json() -> None:
    """data as a dict goes on one data: line as compact JSON, keys in the given order."""
    event = Event(data={"object": "chat.completion.chunk", "choices": [{"index": 0}]})
    assert event.encode() == b'data: {"object":"chat.completion.chunk","choices":[{"index":0}]}\n\n'


def test_text_data_with_newlines_becomes_several_data_lines() -> None:
    """Text is sent as it is, one data: line per line."""
    assert Event(data="a\nb\r\nc").encode() == b"data: a\ndata: b\ndata: c\n\n"
    assert Event(data="[DONE]").encode() == b"data: [DONE]\n\n"
    assert Event(data="").encode() == b"data: \n\n"


def test_all_fields_and_comment_in_order() -> None:
    """A comment, event, id, retry and data come out in that order, ended by a blank line."""
    event = Event(data={"type": "ping"}, event="ping", id="7", retry=1500, comment="hi")
    assert event.encode() == b': hi\nevent: ping\nid: 7\nretry: 1500\ndata: {"type":"ping"}\n\n'
    assert Event(comment="keep-alive").encode() == b": keep-alive\n\n"


def test_line_endings_and_no_space_variants() -> None:
    """CRLF, CR and data:x (no space) framings are byte-exact."""
    event = Event(data="x", event="e")
    assert event.encode("\r\n") == b"event: e\r\ndata: x\r\n\r\n"
    assert event.encode("\r") == b"event: e\rdata: x\r\r"
    assert event.encode(space=False) == b"event:e\ndata:x\n\n"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"event": "a\nb"}, "event='a\\nb' must be a single line"),
        ({"id": "1\r"}, "id='1\\r' must be a single line"),
        ({"id": "a\0"}, "must not contain NUL"),
        ({"retry": -1}, "retry=-1 must be a non-negative int"),
        ({"data": {1, 2}}, "data={1, 2} cannot be sent as JSON"),
        ({"delay": -0.5}, "delay=-0.5 must be a finite, non-negative duration"),
        ({"delay": "soon"}, "delay='soon' is not a duration"),
    ],
)
def test_bad_event_fields_raise(kwargs, message) -> None:
    """An event that cannot be sent as given is refused when built."""
    with pytest.raises(ConfigError) as info:
        Event(**kwargs)
    assert message in str(info.value)


def test_json_reply_plan() -> None:
    """A JSON reply is a head with Content-Length, one Data step and a complete End."""
    reply = mockhttp.status(429).header("Retry-After", "1").json({"error": {"type": "rate"}})
    steps = list(reply.plan())
    assert steps[0] == Head(
        429, "Too Many Requests", (("Retry-After", "1"), ("Content-Type", "application/json")), 25
    )
    assert steps[1:] == [Data(b'{"error":{"type":"rate"}}'), End("complete")]


def test_event_stream_plan_has_delays_between_events() -> None:
    """Delays: before the head, before the first event, between events, per event."""
    reply = (
        mockhttp.ok()
        .delay("5ms")
        .event_stream(
            Event(data="a"),
            Event(data="b"),
            Event(data="c", delay=timedelta(milliseconds=100)),
            event_delay=0.02,
            first_event_delay=0.01,
        )
    )
    steps = list(reply.plan())
    assert steps[0] == Pause(0.005)
    assert steps[1] == Head(
        200, "OK", (("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")), None
    )
    assert steps[2:] == [
        Pause(0.01),
        Data(b"data: a\n\n", 0),
        Pause(0.02),
        Data(b"data: b\n\n", 1),
        Pause(0.1),
        Data(b"data: c\n\n", 2),
        End("complete"),
    ]


def test_user_content_type_replaces_the_event_stream_default() -> None:
    """A Content-Type set by the user is kept, and the default is not added."""
    reply = mockhttp.ok().header("content-type", "text/event-stream; charset=utf-8")
    head = reply.event_stream(Event(data="x")).head()
    assert head.headers == (
        ("Cache-Control", "no-cache"),
        ("content-type", "text/event-stream; charset=utf-8"),
    )


def test_endless_stream_is_lazy() -> None:
    """repeat=True yields events forever, one pause apart, without building a list."""
    reply = mockhttp.ok().event_stream(Event(comment="ping"), event_delay=1, repeat=True)
    steps = list(itertools.islice(reply.plan(), 1, 8))
    assert steps == [
        Data(b": ping\n\n", 0),
        Pause(1.0),
        Data(b": ping\n\n", 1),
        Pause(1.0),
        Data(b": ping\n\n", 2),
        Pause(1.0),
        Data(b": ping\n\n", 3),
    ]


def test_replies_are_immutable_builders() -> None:
    """Each method returns a new reply, so a base reply can be shared."""
    base = mockhttp.ok().header("X-A", "1")
    one = base.header("X-B", "2")
    assert base.headers == (("X-A", "1"),)
    assert one.headers == (("X-A", "1"), ("X-B", "2"))


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mockhttp.status(42), "status code=42 must be an int from 100 to 999"),
        (lambda: mockhttp.ok().header("Bad Name", "x"), "header name='Bad Name' must be"),
        (lambda: mockhttp.ok().header("X", "a\r\nb"), "must not contain CR, LF or NUL"),
        (lambda: mockhttp.ok().json(object()), "is not JSON-serialisable"),
        (
            lambda: mockhttp.ok().event_stream("data: x"),  # type: ignore[arg-type]
            "events[0]='data: x' must be an Event",
        ),
        (lambda: mockhttp.ok().event_stream(repeat=0), "repeat=0 must be a positive int"),
        (
            lambda: mockhttp.ok().event_stream(line_ending="\n\n"),  # type: ignore[arg-type]
            "line_ending=",
        ),
        (lambda: mockhttp.ok().event_stream(event_delay=-1), "event_delay=-1 must be"),
        (lambda: mockhttp.post("v1/x"), "path='v1/x' must start with '/'"),
        (lambda: mockhttp.post("/x", times=0), "times=0 must be a positive int"),
        (lambda: mockhttp.request("GE T", "/"), "method='GE T' must be an HTTP method"),
        (
            lambda: mockhttp.post("/x").reply(200),  # type: ignore[arg-type]
            "reply=200 must be a Reply",
        ),
    ],
)
def test_bad_reply_and_mock_arguments_raise(call, message) -> None:
    """Bad arguments raise ConfigError at construction, naming the argument."""
    with pytest.raises(ConfigError) as info:
        call()
    assert message in str(info.value)


def test_header_values_and_reasons_must_be_latin1() -> None:
    """Text that cannot go in a header block is refused when the reply is built."""
    assert mockhttp.ok().header("X-Name", "café").headers == (("X-Name", "café"),)
    with pytest.raises(ConfigError, match="header bytes are latin-1"):
        mockhttp.ok().header("X-Price", "5 €")
    with pytest.raises(ConfigError, match="one line of latin-1 text"):
        mockhttp.status(200, "Ok ✓")
