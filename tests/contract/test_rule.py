"""How rules quote wire data in their messages (``contract._rule``): in JSON terms, the
wire's language, cut short without copying a big body; and a hit placed at its event."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mockhttp._core._sse_decode import Message, decode
from mockhttp.contract._rule import hit, json_terms, short


def test_values_are_quoted_as_json_shows_them() -> None:
    assert json_terms("text") == '"text"'
    assert json_terms(None) == "null"
    assert json_terms(True) == "true"
    assert json_terms({"a": 1}) == '{"a": 1}'
    assert json_terms("héllo") == '"héllo"'  # not \\u00e9
    assert json_terms(b"data: x") == '"data: x"'
    assert json_terms(b"\xff") == '"\\\\xff"'  # an undecodable byte, shown escaped
    assert json_terms({1, 2}) in ('"{1, 2}"', '"{2, 1}"')  # not JSON data: its text, quoted


def test_short_cuts_long_quotes_with_an_ellipsis() -> None:
    assert short("x" * 10) == '"xxxxxxxxxx"'
    long = short("x" * 1000)
    assert len(long) == 60
    assert long.startswith('"xxx')
    assert long.endswith("...")


@given(st.text(max_size=300) | st.binary(max_size=1200), st.integers(min_value=5, max_value=80))
def test_a_quote_is_never_longer_than_its_limit_and_starts_as_the_whole(value, limit: int) -> None:
    """The quote of the start is the start of the quote (a big body is cut before it is
    quoted, not quoted whole)."""
    quoted = short(value, limit)
    whole = json_terms(value)
    assert len(quoted) <= limit
    kept = quoted[:-3] if quoted.endswith("...") and quoted != whole else quoted
    assert whole.startswith(kept)


def test_a_hit_is_placed_at_its_event() -> None:
    messages = [m for m in decode(b"data: a\n\ndata: b\n\n") if isinstance(m, Message)]
    found = hit(messages[1], "second", "note")
    assert (found.message, found.event, found.severity) == ("second", 1, "note")
    assert found.offset == messages[1].offset == len(b"data: a\n\n")
