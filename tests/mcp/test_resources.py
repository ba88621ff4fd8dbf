"""Resources and templates (``_resources``): URI templates matched, blobs, errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp import ConfigError, mcp


def test_a_template_matches_its_uris() -> None:
    one = mcp.template("test://t/{id}/data", "id={id}")
    assert one.match("test://t/123/data") == {"id": "123"}
    assert one.match("test://t/1/2/data") is None  # {id} is one segment
    assert one.match("test://t/123/data/x") is None
    assert one.contents("test://t/9/data", {"id": "9"})["text"] == "id=9"
    rest = mcp.template("file:///{+path}")
    assert rest.match("file:///a/b/c.txt") == {"path": "a/b/c.txt"}


@pytest.mark.parametrize(
    ("uri_template", "uri", "variables"),
    [
        ("test://{a}/{b}", "test://x/y", {"a": "x", "b": "y"}),
        ("test://{a}?q={b}", "test://x?q=y", {"a": "x", "b": "y"}),
        ("test://{a}#{b}", "test://x#y", {"a": "x", "b": "y"}),
        ("test://t/{+rest}", "test://t/a/b?c#d", {"rest": "a/b?c#d"}),
        ("test://{user.name}/x", "test://ann/x", {"user.name": "ann"}),  # RFC 6570 varnames
        ("test://exact", "test://exact", {}),
        ("test://a.b/{x}", "test://a.b/1", {"x": "1"}),  # literal dots are literal
    ],
)
def test_templates_match_rfc_6570_level_1_and_2(
    uri_template: str, uri: str, variables: dict[str, str]
) -> None:
    assert mcp.template(uri_template).match(uri) == variables


@pytest.mark.parametrize(
    ("uri_template", "uri"),
    [
        ("test://{a}", "test://x/y"),  # {a} is one segment
        ("test://{a}", "test://x?y"),
        ("test://{a}", "test://"),  # a variable is not empty
        ("test://a.b/{x}", "test://aXb/1"),
        ("test://exact", "test://exact/"),
    ],
)
def test_templates_refuse_what_they_do_not_match(uri_template: str, uri: str) -> None:
    assert mcp.template(uri_template).match(uri) is None


def test_a_dotted_variable_is_filled_in_and_completed_by_its_name() -> None:
    """RFC 6570 names may hold dots: ``{user.name}`` was matched as ``user_name``, so its
    text was never filled in and ``complete={"user.name": ...}`` was refused."""
    one = mcp.template("test://{user.name}", "hello {user.name}", complete={"user.name": ["ann"]})
    found = one.match("test://bob")
    assert found == {"user.name": "bob"}
    assert one.contents("test://bob", found)["text"] == "hello bob"
    assert one.complete == {"user.name": ("ann",)}


@given(
    st.lists(
        st.tuples(st.sampled_from(["", "+"]), st.text("abcxyz", min_size=1, max_size=8)),
        min_size=1,
        max_size=4,
        unique_by=lambda v: v[1],
    ),
    st.data(),
)
def test_a_uri_made_from_a_template_matches_back_to_its_values(
    variables: list[tuple[str, str]], data: st.DataObject
) -> None:
    """Fill each variable (``{+x}``: slashes allowed) between literal separators, and the
    template reads the same values back."""
    template, uri, expected = "test://", "test://", {}
    for n, (plus, name) in enumerate(variables):
        alphabet = "abc/-_" if plus and n == len(variables) - 1 else "abc-_"
        value = data.draw(st.text(alphabet, min_size=1, max_size=10))
        template += f"s{n}:{{{plus}{name}}};"
        uri += f"s{n}:{value};"
        expected[name] = value
    assert mcp.template(template).match(uri) == expected


def test_a_resources_listing_and_contents() -> None:
    text = mcp.resource("test://r", "hi", name="R", title="The R", description="an r")
    assert text.listing() == {
        "uri": "test://r", "name": "R", "mimeType": "text/plain",
        "title": "The R", "description": "an r",
    }  # fmt: skip
    assert text.contents() == {"uri": "test://r", "mimeType": "text/plain", "text": "hi"}
    blob = mcp.resource("test://b", blob=b"\x00\x01", mime_type="application/octet-stream")
    assert blob.contents() == {
        "uri": "test://b",
        "mimeType": "application/octet-stream",
        "blob": "AAE=",
    }
    assert mcp.resource("test://n").listing()["name"] == "test://n"  # no name: the URI


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (
            lambda: mcp.resource("test://r", "t", blob=b"x"),
            "a resource has text or a blob, not both",
        ),
        (lambda: mcp.resource(""), "uri"),
        (
            lambda: mcp.template("test://{a}", complete={"b": ["x"]}),
            "'b' is no variable of 'test://{a}'",
        ),
        (lambda: mcp.template("test://{a}/{a}"), "is no URI template"),
        (lambda: mcp.template("test://{a}", complete={"a": "xy"}), "complete.a"),
    ],
)
def test_bad_resources_and_templates_say_what(make: Any, said: str) -> None:
    with pytest.raises(ConfigError) as refused:
        make()
    assert said in str(refused.value)


def test_a_templates_file_form_keeps_its_completions() -> None:
    one = mcp.template("test://{a}", "x", complete={"a": ["1", "2"]}, title="T")
    data = one.to_data()
    assert data["uri_template"] == "test://{a}"
    assert data["complete"] == {"a": ["1", "2"]}
    assert one.listing() == {
        "uriTemplate": "test://{a}",
        "name": "test://{a}",
        "mimeType": "text/plain",
        "title": "T",
    }
