"""One registry type: lookups, did-you-mean, discovery, and one error style everywhere."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import mockhttp
from mockhttp import fault
from mockhttp._core._errors import UnknownNameError
from mockhttp._core._match import MATCHERS
from mockhttp._core._registry import REPLY_KINDS, Registry
from mockhttp.record import VARIANTS


def test_get_find_names_and_did_you_mean() -> None:
    colours: Registry[int] = Registry("colour", {"red": 1, "green": 2})
    assert colours.get("red") == 1
    assert colours.find("blue") is None
    assert colours.names() == ("red", "green")
    with pytest.raises(UnknownNameError) as caught:
        colours.get("gren")
    assert (
        str(caught.value)
        == "unknown colour 'gren' — did you mean 'green'?\nknown colours: green, red"
    )
    assert caught.value.close == "green"
    assert isinstance(caught.value, mockhttp.ConfigError)


def test_no_close_name_gives_no_suggestion() -> None:
    with pytest.raises(UnknownNameError, match=r"^unknown colour 'xyz'\nknown colours: red$"):
        Registry("colour", {"red": 1}).get("xyz")


@pytest.mark.parametrize(
    ("lookup", "message"),
    [
        (
            lambda: fault.FAULTS.get("limt_data"),
            "unknown fault 'limt_data' — did you mean 'limit_data'?",
        ),
        (
            lambda: fault.from_args(["limt_data", 1]),
            "unknown fault 'limt_data' — did you mean 'limit_data'?",
        ),
        (lambda: MATCHERS["equals"], "unknown matcher 'equals' — did you mean 'equal'?"),
        (lambda: VARIANTS["crlff"], "unknown variant 'crlff' — did you mean 'crlf'?"),
        (
            lambda: REPLY_KINDS.get("openai_chta"),
            "unknown reply kind 'openai_chta' — did you mean 'openai_chat'?",
        ),
    ],
    ids=["faults", "from_args", "matchers", "variants", "kinds"],
)
def test_one_error_style_across_named_sets(lookup, message: str) -> None:
    with pytest.raises(UnknownNameError) as caught:
        lookup()
    assert str(caught.value).startswith(message + "\n"), str(caught.value)


def test_public_variants_read_as_a_mapping() -> None:
    assert "crlf" in VARIANTS
    assert VARIANTS["crlf"] == "CRLF line ends"
    assert dict(VARIANTS.items())["cr"] == "lone CR line ends"
    assert next(iter(VARIANTS)) == "comment"


def test_a_file_places_an_unknown_name_at_its_line() -> None:
    text = "request:\n  path: /a\nresponse:\n  pipe: [[limt_data, 1]]\n"
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.loads(text, "f.yaml")
    assert str(caught.value).startswith(
        "f.yaml:4:11 at response.pipe[0][0]: unknown fault 'limt_data' — did you mean "
        "'limit_data'?\nknown faults: close_after_events,"
    ), str(caught.value)


def test_discovery_reads_the_entry_points_in_a_fresh_interpreter() -> None:
    """The reply_kinds entry points register llm's kinds and record's ``recording`` on the
    first lookup, without any import of those packages for the purpose."""
    code = textwrap.dedent("""\
        import sys
        from mockhttp._core._registry import REPLY_KINDS
        assert REPLY_KINDS._discovered is False
        print(REPLY_KINDS.get("recording").composes, REPLY_KINDS.get("openai_chat").composes)
        """)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split() == ["True", "False"]
