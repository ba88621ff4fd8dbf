"""Prompts (``_prompts``): arguments, messages, rendering and their data."""

from __future__ import annotations

from typing import Any

import pytest

from mockhttp import ConfigError, mcp


def test_prompt_arguments_render_and_list() -> None:
    greet = mcp.prompt(
        "greet",
        "Hi {who} from {where}",
        arguments=["who", {"name": "where", "description": "a place", "required": False}],
        title="Greeting",
    )
    assert greet.listing() == {
        "name": "greet",
        "description": "",
        "arguments": [
            {"name": "who", "required": True},
            {"name": "where", "description": "a place", "required": False},
        ],
        "title": "Greeting",
    }
    assert greet.missing({"where": "x"}) == ["who"]
    rendered = greet.render({"who": "Ann"})
    assert rendered["messages"][0]["content"]["text"] == "Hi Ann from "
    assert greet.to_data()["arguments"] == [
        "who",
        {"name": "where", "description": "a place", "required": False},
    ]


def test_an_arguments_value_is_put_in_as_it_is() -> None:
    """A value holding ``{other}`` was filled in again by the arguments after it (the
    client's text read as the prompt's template)."""
    greet = mcp.prompt("greet", "Hi {who} from {where}", arguments=["who", "where"])
    text = greet.render({"who": "{where}", "where": "Paris"})["messages"][0]["content"]["text"]
    assert text == "Hi {where} from Paris"


def test_places_without_an_argument_stay_as_written() -> None:
    one = mcp.prompt("p", "{known} {unknown} {} {{known}}", arguments=["known"])
    text = one.render({"known": "K"})["messages"][0]["content"]["text"]
    assert text == "K {unknown} {} {K}"


def test_messages_are_filled_in_every_string_a_resources_uri_included() -> None:
    one = mcp.prompt(
        "p",
        arguments=["id"],
        messages=[
            {"role": "user", "content": {"type": "text", "text": "read {id}"}},
            {
                "role": "assistant",
                "content": {
                    "type": "resource",
                    "resource": {"uri": "test://r/{id}", "text": "{id}!", "mimeType": "text/plain"},
                },
            },
        ],
    )
    got = one.render({"id": "42"})
    assert got["messages"][0]["content"]["text"] == "read 42"
    assert got["messages"][1]["content"]["resource"]["uri"] == "test://r/42"
    assert got["messages"][1]["content"]["resource"]["text"] == "42!"
    assert got["messages"][1]["role"] == "assistant"


def test_completions_and_missing_arguments() -> None:
    one = mcp.prompt(
        "p",
        "{lang}",
        arguments=[{"name": "lang", "complete": ["en", "fr"]}, {"name": "x", "required": False}],
    )
    assert one.completions("lang") == ("en", "fr")
    assert one.completions("x") == ()
    assert one.completions("nope") == ()
    assert one.missing({}) == ["lang"]
    assert one.missing({"lang": "en"}) == []
    assert one.to_data()["arguments"] == [
        {"name": "lang", "complete": ["en", "fr"], "required": True},
        {"name": "x", "required": False},
    ]


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda: mcp.prompt(""), "name"),
        (
            lambda: mcp.prompt(
                "p", "t", messages=[{"role": "user", "content": {"type": "text", "text": "x"}}]
            ),
            "a prompt has text or messages, not both",
        ),
        (
            lambda: mcp.prompt(
                "p", messages=[{"role": "system", "content": {"type": "text", "text": "x"}}]
            ),
            "messages[0].role",
        ),
        (
            lambda: mcp.prompt("p", arguments=[{"name": "a", "required": "yes"}]),
            "arguments[0].required",
        ),
        (lambda: mcp.prompt("p", arguments=[{"name": "a", "default": 1}]), "arguments[0]"),
        (lambda: mcp.prompt("p", arguments=[{"description": "no name"}]), "arguments[0].name"),
    ],
)
def test_bad_prompts_say_what_and_where(make: Any, said: str) -> None:
    with pytest.raises(ConfigError) as refused:
        make()
    assert said in str(refused.value)
