"""Property tests: the server's encoder and the raw reader round-trip (R13)."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from mockhttp.sse import Comment, Decoder, Event, LineEnding, Message, decode, encode_event

_LINES = re.compile(r"\r\n|\r|\n")
_TEXT = st.text(st.characters(codec="utf-8"), max_size=20)
_SINGLE = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)


@st.composite
def events(draw: st.DrawFn) -> Event:
    """Any Event the encoder accepts."""
    return Event(
        data=draw(st.none() | _TEXT | _JSON),
        event=draw(st.none() | _SINGLE),
        id=draw(st.none() | _SINGLE.filter(lambda s: "\0" not in s)),
        retry=draw(st.none() | st.integers(min_value=0, max_value=10**9)),
        comment=draw(st.none() | _TEXT),
    )


def normalised(text: str) -> str:
    """Multi-line text as the client sees it: every CR, LF or CRLF becomes LF."""
    return "\n".join(_LINES.split(text))


def check_round_trip(event: Event, line_ending: LineEnding) -> None:
    """Decoding the encoded event gives back its comment lines and its fields."""
    items = decode(encode_event(event, line_ending, space=True))
    comments = [item.text for item in items if isinstance(item, Comment)]
    messages = [item for item in items if isinstance(item, Message)]
    expected_comments = [] if event.comment is None else _LINES.split(event.comment)
    assert expected_comments == comments
    if event.data_text is None:
        assert messages == []
        return
    (message,) = messages
    assert normalised(event.data_text) == message.data
    assert (event.event or "message", event.id or "", event.retry) == (
        message.event,
        message.id,
        message.retry,
    )
    assert {line_ending.encode()} == message.endings


@given(events(), st.sampled_from(["\n", "\r\n", "\r"]))
@example(Event(data="a\r\nb\rc", comment=" x"), "\r")
@example(Event(data="", event=""), "\n")
@example(Event(data={"k": "\u2028"}, id=""), "\r\n")
def test_encode_then_decode_round_trips(event: Event, line_ending: LineEnding) -> None:
    """Any Event, encoded with any line ending, decodes to the same fields."""
    check_round_trip(event, line_ending)


@given(st.lists(events(), max_size=5), st.sampled_from(["\n", "\r\n", "\r"]), st.data())
def test_a_stream_of_events_decodes_the_same_at_any_split(
    stream: list[Event], line_ending: LineEnding, data: st.DataObject
) -> None:
    """A stream of encoded events decodes to the same items whatever the read boundaries."""
    body = b"".join(encode_event(e, line_ending) for e in stream)
    cut = data.draw(st.integers(min_value=0, max_value=len(body)))
    decoder = Decoder()
    split = [*decoder.feed(body[:cut]), *decoder.feed(body[cut:]), *decoder.close()]
    assert decode(body) == split
    assert sum(e.data is not None for e in stream) == sum(isinstance(i, Message) for i in split)


def test_no_space_framing_round_trips_values_without_a_leading_space() -> None:
    """``space=False`` (``data:x``) decodes back too when no value starts with a space."""
    event = Event(data="x y", event="e", id="1", comment="c")
    items = decode(encode_event(event, "\n", space=False))
    assert isinstance(items[0], Comment)
    assert isinstance(items[1], Message)
    assert (items[0].text, items[1].data, items[1].event, items[1].id) == ("c", "x y", "e", "1")
    assert not items[1].data_space
