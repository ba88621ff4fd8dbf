"""llm/_expect.py: a turn's expectations, read from their form and checked on a history.

Pure: ``expectations`` is fed each key's accepted forms and a table of bad ones (each
error naming where it is); ``Expect.misses`` is fed histories read by ``_history`` from
real request bodies, one expectation at a time, met and missed (the miss saying the key,
what was expected and what arrived); the file form goes back and forth.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp import ConfigError, match
from mockhttp.llm._expect import EXPECT_KEYS, Expect, expectations
from mockhttp.llm._history import History, read

CHAT: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": "You are a weather bot."},
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "tool_calls": [{"id": "c1", "function": {"name": "weather", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "It is 18 °C"},
    ],
    "tools": [
        {"type": "function", "function": {"name": "weather"}},
        {"function": {"name": "time"}},
    ],
}


def history(body: dict[str, Any] = CHAT, api: str = "openai_chat") -> History:
    return read(api, body)


def misses(value: Any, body: dict[str, Any] = CHAT) -> list[str]:
    return expectations(value, "expect").misses(history(body))


# -- reading the forms ---------------------------------------------------------------------


def test_none_and_an_empty_mapping_expect_nothing() -> None:
    assert expectations(None, "x") == Expect()
    assert not expectations({}, "x")
    assert misses({}) == []


def test_an_expect_is_itself() -> None:
    given = Expect(tools=("a",))
    assert expectations(given, "x") is given
    assert bool(given)


def test_each_key_in_its_accepted_forms() -> None:
    one = expectations({"tool_result": {"name": "weather"}, "tool_offered": "weather"}, "x")
    many = expectations({"tool_result": [{"name": "weather"}], "tool_offered": ["weather"]}, "x")
    assert one == many
    assert one.tools == ("weather",)
    numeric = expectations({"tool_result": {"content": 18}}, "x")
    assert numeric.results[0].content == match.contains("18")  # Rule 1: text means contains
    formed = expectations({"last_user_message": ["regex", "^Wea"]}, "x")
    assert formed.last_user == match.regex("^Wea")
    nested = expectations(
        {"system_prompt": ["any_of", ["regex", "x"], ["starts_with", "You"]]}, "x"
    )
    assert nested.system == match.any_of(match.regex("x"), match.starts_with("You"))
    given = expectations({"last_user_message": match.ends_with("?")}, "x")
    assert given.last_user == match.ends_with("?")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("weather", "expect='weather' must be a mapping such as"),
        (["tool_offered"], "must be a mapping"),
        ({"tool_ofered": "x"}, "expect: .*'tool_ofered'.*tool_offered"),
        ({"tool_offered": 3}, r"expect.tool_offered=3 must be a tool name or a list of them"),
        ({"tool_offered": ["a", ""]}, "expect.tool_offered=.* must be a tool name"),
        ({"tool_result": "weather"}, r"expect.tool_result='weather' must be a mapping with name"),
        ({"tool_result": {}}, "expect.tool_result=.* must be a mapping with name"),
        ({"tool_result": [{"name": "a"}, 3]}, "expect.tool_result=3"),
        ({"tool_result": {"nme": "a"}}, "expect.tool_result: .*'nme'.*name"),
        ({"tool_result": {"name": ""}}, "expect.tool_result.name='' must be non-empty text"),
        ({"tool_result": {"call_id": 5}}, "expect.tool_result.call_id=5 must be non-empty text"),
        (
            {"tool_result": {"content": True}},
            "expect.tool_result.content=True must be text or a matcher",
        ),
        ({"last_user_message": True}, "expect.last_user_message=True must be text or a matcher"),
        (
            {"system_prompt": {"a": 1}},
            r"expect.system_prompt=.* must be text or a matcher such as \[regex",
        ),
        ({"system_prompt": ["regexx", "a"]}, "expect.system_prompt: .*regex"),
    ],
)
def test_each_bad_form_is_refused_naming_where(value: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        expectations(value, "expect")


# -- checking a history --------------------------------------------------------------------


def test_tool_result_met_by_name_call_id_and_content() -> None:
    assert misses({"tool_result": {"name": "weather", "call_id": "c1", "content": "18"}}) == []
    assert misses({"tool_result": {"content": ["regex", r"\d+ °C$"]}}) == []


@pytest.mark.parametrize(
    ("want", "shown"),
    [
        ({"name": "time"}, "for 'time'"),
        ({"call_id": "c2"}, "with call_id 'c2'"),
        ({"content": "20"}, "containing '20'"),
        ({"content": ["regex", "^x"]}, "matching regex('^x')"),
    ],
)
def test_tool_result_missed_says_what_was_expected_and_what_came(
    want: dict[str, Any], shown: str
) -> None:
    [line] = misses({"tool_result": want})
    assert line == (
        f"tool_result: expected a tool result {shown}; "
        "tool results since the last assistant turn: weather (c1): 'It is 18 °C'"
    )


def test_tool_results_are_only_those_since_the_last_turn() -> None:
    later = {"messages": [*CHAT["messages"], {"role": "assistant", "content": "It is 18 °C."}]}
    [line] = misses({"tool_result": {"name": "weather"}}, later)
    assert line.endswith("tool results since the last assistant turn: none")


def test_every_result_wanted_must_be_there() -> None:
    found = misses({"tool_result": [{"name": "weather"}, {"name": "time"}]})
    assert len(found) == 1
    assert "for 'time'" in found[0]


def test_tool_offered_met_and_missed() -> None:
    assert misses({"tool_offered": ["weather", "time"]}) == []
    assert misses({"tool_offered": ["weather", "search"]}) == [
        "tool_offered: expected 'search' among the tools offered; offered: 'weather', 'time'"
    ]
    assert misses({"tool_offered": "x"}, {"messages": []}) == [
        "tool_offered: expected 'x' among the tools offered; offered: none"
    ]


def test_last_user_message_and_system_prompt_met_and_missed() -> None:
    assert misses({"last_user_message": "Paris", "system_prompt": "weather bot"}) == []
    assert misses({"last_user_message": "Rome"}) == [
        "last_user_message: expected containing 'Rome', got 'Weather in Paris?'"
    ]
    assert misses({"system_prompt": ["starts_with", "Be"]}) == [
        "system_prompt: expected matching starts_with('Be'), got 'You are a weather bot.'"
    ]
    none = {"messages": [{"role": "assistant", "content": "x"}]}
    assert misses({"system_prompt": "x", "last_user_message": "y"}, none) == [
        "last_user_message: expected one containing 'y'; the request has none",
        "system_prompt: expected one containing 'x'; the request has none",
    ]


@pytest.mark.parametrize("api", ["openai_responses", "anthropic_messages", "gemini"])
def test_expectations_read_every_api_alike(api: str) -> None:
    bodies: dict[str, dict[str, Any]] = {
        "openai_responses": {
            "instructions": "Be kind.",
            "input": [
                {"type": "function_call", "call_id": "c1", "name": "weather", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": "18 °C"},
            ],
            "tools": [{"name": "weather"}],
        },
        "anthropic_messages": {
            "system": "Be kind.",
            "messages": [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "c1", "name": "weather", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "18 °C"}],
                },
            ],
            "tools": [{"name": "weather"}],
        },
        "gemini": {
            "systemInstruction": {"parts": [{"text": "Be kind."}]},
            "contents": [
                {
                    "role": "model",
                    "parts": [{"functionCall": {"id": "c1", "name": "weather", "args": {}}}],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "id": "c1",
                                "name": "weather",
                                "response": {"t": "18 °C"},
                            }
                        }
                    ],
                },
            ],
            "tools": [{"functionDeclarations": [{"name": "weather"}]}],
        },
    }
    want = {
        "tool_result": {"name": "weather", "call_id": "c1", "content": "18"},
        "tool_offered": "weather",
        "system_prompt": "kind",
    }
    assert expectations(want, "x").misses(read(api, bodies[api])) == []


# -- the file form -------------------------------------------------------------------------


def test_the_file_form_is_the_shortest_that_reads_back() -> None:
    value = {
        "tool_result": {"name": "weather", "call_id": "c1", "content": "18"},
        "tool_offered": "weather",
        "last_user_message": ["regex", "^W"],
        "system_prompt": "bot",
    }
    expect = expectations(value, "x")
    assert expect.to_file() == value
    assert expectations(expect.to_file(), "x") == expect
    two = expectations(
        {"tool_result": [{"name": "a"}, {"content": "b"}], "tool_offered": ["a", "b"]}, "x"
    )
    assert two.to_file() == {
        "tool_result": [{"name": "a"}, {"content": "b"}],
        "tool_offered": ["a", "b"],
    }
    assert Expect().to_file() == {}


_NAME = st.text(st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=6)


@given(
    st.fixed_dictionaries(
        {},
        optional={
            "tool_result": st.lists(
                st.fixed_dictionaries(
                    {}, optional={"name": _NAME, "call_id": _NAME, "content": _NAME}
                ).filter(bool),
                min_size=1,
                max_size=3,
            ),
            "tool_offered": st.lists(_NAME, min_size=1, max_size=3),
            "last_user_message": _NAME,
            "system_prompt": _NAME,
        },
    )
)
def test_any_expectation_round_trips_through_its_file_form(value: dict[str, Any]) -> None:
    expect = expectations(value, "x")
    assert set(expect.to_file()) == set(value)
    assert expectations(expect.to_file(), "x") == expect
    assert set(expect.to_file()) <= set(EXPECT_KEYS)
