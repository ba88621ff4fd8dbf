"""Prompts (``_prompts``): arguments, messages, rendering and their data."""

from __future__ import annotations

from mockhttp import mcp


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
