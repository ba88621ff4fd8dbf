"""Property tests: any mock with a file form is written and read back unchanged."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

import mockhttp
from mockhttp import Event, match
from mockhttp._mockfile._load import dump, loads, to_dict

TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
JSON: st.SearchStrategy[Any] = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
TOKEN = st.from_regex(r"\A[A-Za-z][A-Za-z0-9-]{0,12}\Z")
DELAYS: list[float | str] = [0, 0.001, 0.02, 1.5, "250ms", "20ms"]
LINE = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\r\n\0"), max_size=15)
# a reply's header block is latin-1
LATIN1_LINE = st.text(
    st.characters(max_codepoint=0xFF, exclude_categories=["Cs"], exclude_characters="\r\n\0"),
    max_size=15,
)


@st.composite
def events(draw: st.DrawFn) -> Event:
    return Event(
        draw(st.none() | JSON),
        event=draw(st.none() | LINE),
        id=draw(st.none() | LINE),
        retry=draw(st.none() | st.integers(0, 10**6)),
        comment=draw(st.none() | TEXT),
        delay=draw(st.none() | st.sampled_from(DELAYS)),
    )


@st.composite
def mocks(draw: st.DrawFn) -> mockhttp.Mock:
    mock = mockhttp.request(
        draw(st.none() | st.sampled_from(["GET", "POST", "DELETE"])),
        draw(st.none() | st.sampled_from(["/", "/v1/x", "/v1/{id}", "*"])),
        name=draw(st.none() | TEXT),
        priority=draw(st.integers(-5, 5)),
        times=draw(st.none() | st.integers(1, 9)),
    )
    for name in draw(st.lists(TOKEN, max_size=3, unique_by=str.lower)):
        mock = mock.header(name, draw(LINE | st.builds(match.regex, st.just("^a"))))
    for name in draw(st.lists(TOKEN, max_size=2, unique=True)):
        mock = mock.query(name, draw(LINE))
    if draw(st.booleans()):
        mock = mock.body(
            draw(
                st.builds(match.json_equal, JSON)
                | st.builds(
                    match.json_path, st.just("$.a"), JSON.filter(lambda v: not isinstance(v, list))
                )
            )
        )
    reply = mockhttp.status(draw(st.integers(100, 599)))
    # A repeated header is written as a list under one name, so repeats are kept together.
    for name in draw(st.lists(TOKEN, max_size=3, unique=True)):
        for _ in range(draw(st.integers(1, 2))):
            value = draw(LATIN1_LINE.map(str.strip).filter(bool) | st.integers(0, 99))
            reply = reply.header(name, value)
    kind = draw(st.sampled_from(["none", "body", "json", "stream"]))
    if kind == "body":
        reply = reply.body(draw(TEXT))
    elif kind == "json":
        reply = reply.json(draw(JSON))
    elif kind == "stream":
        reply = reply.event_stream(
            *draw(st.lists(events(), max_size=4)),
            event_delay=draw(st.sampled_from(DELAYS)),
            repeat=draw(st.sampled_from([1, 2, True])),
            line_ending=draw(st.sampled_from(["\n", "\r\n", "\r"])),
            space=draw(st.booleans()),
        )
    return mock.reply(reply)


@settings(max_examples=300, deadline=None)
@given(mocks())
@example(mockhttp.get("/").reply(mockhttp.ok().body("yes")))
@example(mockhttp.get("/").reply(mockhttp.ok().event_stream(Event("null"), Event("2023-06-01"))))
def test_dump_then_loads_gives_the_same_mock(mock: mockhttp.Mock) -> None:
    """For any mock, ``loads(dump(mock)) == [mock]``, and the JSON form loads as well."""
    assert loads(dump(mock)) == [mock]
    assert loads(json.dumps(to_dict(mock))) == [mock]
