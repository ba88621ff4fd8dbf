"""The errors a user catches: their family (what ``except`` catches them), and the messages
a mock file's or a name's error shows."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mockhttp
from mockhttp import (
    ConfigError,
    MockfileError,
    MockHTTPError,
    ServerError,
    UnmatchedRequestError,
    VerificationError,
)
from mockhttp._core._errors import RefusedRequest, UnknownNameError


@pytest.mark.parametrize(
    ("error", "families"),
    [
        (ConfigError, (MockHTTPError, ValueError)),
        (MockfileError, (ConfigError, MockHTTPError, ValueError)),
        (UnknownNameError, (ConfigError, MockHTTPError, ValueError)),
        (ServerError, (MockHTTPError,)),
        (VerificationError, (AssertionError,)),
        (UnmatchedRequestError, (VerificationError, AssertionError)),
        (RefusedRequest, (VerificationError, AssertionError)),
    ],
)
def test_each_error_is_caught_by_its_family(error: type, families: tuple[type, ...]) -> None:
    """Misuse of the library is a MockHTTPError (a bad argument also a ValueError); what the
    client under test did wrong is an AssertionError, as a failed assertion is."""
    for family in families:
        assert issubclass(error, family)


@pytest.mark.parametrize("error", [VerificationError, UnmatchedRequestError, RefusedRequest])
def test_the_clients_mistakes_are_not_library_misuse(error: type) -> None:
    assert not issubclass(error, MockHTTPError)


def test_the_public_names_are_the_same_classes() -> None:
    assert mockhttp.ConfigError is ConfigError
    assert mockhttp.MockfileError is MockfileError


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ({}, "<string>: bad"),
        ({"source": "m.yaml"}, "m.yaml: bad"),
        ({"source": "m.yaml", "line": 3}, "m.yaml:3: bad"),
        ({"source": "m.yaml", "line": 3, "column": 29}, "m.yaml:3:29: bad"),
        ({"source": "m.yaml", "column": 29}, "m.yaml: bad"),  # a column alone says nothing
        (
            {"source": "m.yaml", "line": 3, "column": 29, "path": "response.status"},
            "m.yaml:3:29 at response.status: bad",
        ),
        ({"path": "request.path"}, "<string> at request.path: bad"),
    ],
)
def test_a_mockfile_error_says_file_line_column_and_field(
    where: dict[str, Any], message: str
) -> None:
    error = MockfileError("bad", **where)
    assert str(error) == message
    assert error.reason == "bad"
    assert (error.source, error.line, error.column, error.path) == (
        where.get("source", "<string>"),
        where.get("line"),
        where.get("column"),
        where.get("path", ""),
    )


def test_an_unknown_name_suggests_the_closest_and_lists_the_known() -> None:
    error = UnknownNameError("fault", "trunc", ["truncate", "reset", "stall"])
    assert error.close == "truncate"
    assert str(error) == (
        "unknown fault 'trunc' — did you mean 'truncate'?\nknown faults: reset, stall, truncate"
    )
    assert (error.what, error.name, error.known) == (
        "fault",
        "trunc",
        ("truncate", "reset", "stall"),
    )


def test_an_unknown_name_far_from_every_known_one_gets_no_guess() -> None:
    error = UnknownNameError("quirk", "zzzzzz", ["lowercase_headers"])
    assert error.close is None
    assert str(error) == "unknown quirk 'zzzzzz'\nknown quirks: lowercase_headers"


def test_an_unknown_name_in_an_empty_set_says_none() -> None:
    assert str(UnknownNameError("matcher", "x", [])) == "unknown matcher 'x'\nknown matchers: none"


def test_a_name_that_is_not_text_is_shown_as_given() -> None:
    """A YAML ``fault: 5`` reaches the registry as an int: no guess, no crash."""
    error = UnknownNameError("fault", 5, ["reset"])
    assert error.close is None
    assert str(error).startswith("unknown fault 5\n")


@given(st.lists(st.text(alphabet="abcdefgh_", min_size=3, max_size=12), min_size=1, max_size=8))
def test_a_known_name_misspelled_by_its_last_letter_is_found(known: list[str]) -> None:
    name = known[0]
    typo = name[:-1] + ("x" if name[-1] != "x" else "y")
    close = UnknownNameError("fault", typo, known).close
    assert close is not None
    assert close in known


def test_a_refusal_carries_the_reply_the_client_got() -> None:
    reply = object()
    error = RefusedRequest("turn 2 expected a tool result", reply)
    assert error.reply is reply
    assert str(error) == "turn 2 expected a tool result"
    with pytest.raises(AssertionError, match="turn 2"):
        raise error
