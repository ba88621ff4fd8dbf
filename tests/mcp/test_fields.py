"""The shared checks of the records (``_fields``): errors at the innermost place."""

from __future__ import annotations

import pytest

from mockhttp import ConfigError, mcp
from mockhttp.mcp._fields import check_keys, check_sequence, check_text, fail, records


def test_an_inner_place_is_joined_to_the_outer() -> None:
    assert str(fail("tools[0]", "answers[1].progress: 3 must be a list")) == (
        "tools[0].answers[1].progress: 3 must be a list"
    )
    assert str(fail("tools[0]", "a plain message")) == "tools[0]: a plain message"
    assert str(fail("", "no place")) == "no place"


def test_the_checks_name_the_value() -> None:
    with pytest.raises(ConfigError, match="unknown key 'x', expected one of a, b"):
        check_keys({"x": 1}, ["a", "b"], "at")
    with pytest.raises(ConfigError, match="'abc' must be a list"):
        check_sequence("abc", "at")
    with pytest.raises(ConfigError, match="'' must be non-empty text"):
        check_text("", "at", empty=False)


def test_records_from_data_say_where() -> None:
    made = records(mcp.Resource, [{"uri": "u"}, mcp.resource("v")], "resources")
    assert [r.uri for r in made] == ["u", "v"]
    with pytest.raises(ConfigError, match=r"^resources\[1\]: unknown key 'url'"):
        records(mcp.Resource, [{"uri": "u"}, {"url": "v"}], "resources")
