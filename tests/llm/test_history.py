"""llm/_history.py: a request's conversation, read from the four API shapes, pure.

The same conversation (a system prompt, a user question, an assistant turn with two
parallel tool calls, their results, a follow-up) is written in each API's shape and must
read the same; then each Rule of the module's docstring is checked on its own, and a
property test feeds arbitrary JSON to every reader (Rule 5: never an error).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp.llm._history import (
    API_KINDS,
    Call,
    History,
    Result,
    api_of,
    arguments,
    read,
    result_text,
    text_of,
)

SYSTEM = "Be brief."
QUESTION = "Weather in Paris and Rome?"
FOLLOW_UP = "Thanks!"

CHAT: dict[str, Any] = {
    "messages": [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": QUESTION},
        {
            "role": "assistant",
            "content": "Let me look.",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city":"Paris"}'},
                },
                {
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "weather", "arguments": '{"city": "Rome"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "18 °C"},
        {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "21 °C"}]},
        {"role": "user", "content": FOLLOW_UP},
    ],
    "tools": [{"type": "function", "function": {"name": "weather"}}],
}
RESPONSES: dict[str, Any] = {
    "instructions": SYSTEM,
    "input": [
        {"role": "user", "content": [{"type": "input_text", "text": QUESTION}]},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Let me look."}],
        },
        {
            "type": "function_call",
            "call_id": "c1",
            "name": "weather",
            "arguments": '{"city":"Paris"}',
        },
        {
            "type": "function_call",
            "call_id": "c2",
            "name": "weather",
            "arguments": '{"city": "Rome"}',
        },
        {"type": "function_call_output", "call_id": "c1", "output": "18 °C"},
        {"type": "function_call_output", "call_id": "c2", "output": "21 °C"},
        {"role": "user", "content": FOLLOW_UP},
    ],
    "tools": [{"type": "function", "name": "weather"}],
}
ANTHROPIC: dict[str, Any] = {
    "system": [{"type": "text", "text": SYSTEM}],
    "messages": [
        {"role": "user", "content": QUESTION},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "c1", "name": "weather", "input": {"city": "Paris"}},
                {"type": "tool_use", "id": "c2", "name": "weather", "input": {"city": "Rome"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c1", "content": "18 °C"},
                {
                    "type": "tool_result",
                    "tool_use_id": "c2",
                    "content": [{"type": "text", "text": "21 °C"}],
                },
                {"type": "text", "text": FOLLOW_UP},
            ],
        },
    ],
    "tools": [{"name": "weather", "input_schema": {}}],
}
GEMINI: dict[str, Any] = {
    "systemInstruction": {"parts": [{"text": SYSTEM}]},
    "contents": [
        {"role": "user", "parts": [{"text": QUESTION}]},
        {
            "role": "model",
            "parts": [
                {"text": "Let me look."},
                {"functionCall": {"id": "c1", "name": "weather", "args": {"city": "Paris"}}},
                {"functionCall": {"id": "c2", "name": "weather", "args": {"city": "Rome"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "c1",
                        "name": "weather",
                        "response": {"output": "18 °C"},
                    }
                },
                {
                    "functionResponse": {
                        "id": "c2",
                        "name": "weather",
                        "response": {"output": "21 °C"},
                    }
                },
            ],
        },
        {"role": "user", "parts": [{"text": FOLLOW_UP}]},
    ],
    "tools": [{"functionDeclarations": [{"name": "weather"}]}],
}
BODIES = {
    "openai_chat": CHAT,
    "openai_responses": RESPONSES,
    "anthropic_messages": ANTHROPIC,
    "gemini": GEMINI,
}
CALLS = [Call("weather", '{"city": "Paris"}', "c1"), Call("weather", '{"city": "Rome"}', "c2")]


@pytest.mark.parametrize("api", API_KINDS)
def test_the_same_conversation_reads_the_same_in_every_api(api: str) -> None:
    history = read(api, BODIES[api])
    assert history.api == api
    assert history.system == SYSTEM
    assert history.last_user == FOLLOW_UP
    assert history.tools == ["weather"]
    assert len(history.turns) == 1
    turn = history.turns[0]
    assert turn.calls == CALLS
    assert turn.text == "Let me look."
    contents = [r.content for r in history.results]
    expected = (
        ["18 °C", "21 °C"] if api != "gemini" else ['{"output":"18 °C"}', '{"output":"21 °C"}']
    )
    assert contents == expected
    assert [(r.call_id, r.name) for r in history.results] == [("c1", "weather"), ("c2", "weather")]
    assert turn.results == history.results
    assert history.pending == history.results  # after the last (and only) turn


@pytest.mark.parametrize("api", API_KINDS)
def test_a_first_request_has_no_turn(api: str) -> None:
    first: dict[str, Any] = {
        "openai_chat": {"messages": [{"role": "user", "content": "Hi"}]},
        "openai_responses": {"input": "Hi"},
        "anthropic_messages": {"messages": [{"role": "user", "content": "Hi"}]},
        "gemini": {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]},
    }
    history = read(api, first[api])
    assert (history.turns, history.results, history.pending) == ([], [], [])
    assert history.last_user == "Hi"
    assert history.system is None


# -- Rule 1: which API ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "headers", "api"),
    [
        ("/v1beta/models/g:generateContent", {"messages": []}, None, "gemini"),
        ("/v1/models/g:streamGenerateContent", {}, None, "gemini"),
        ("/v1/chat/completions", {"contents": []}, None, "openai_chat"),
        ("/openai/v1/responses", {"messages": []}, None, "openai_responses"),
        ("/v1/messages", {"input": "x"}, None, "anthropic_messages"),
        ("/mock", {"contents": []}, None, "gemini"),
        ("/mock", {"input": "x"}, None, "openai_responses"),
        ("/mock", {"messages": []}, {"anthropic-version": "2023-06-01"}, "anthropic_messages"),
        ("/mock", {"messages": [], "system": "s"}, None, "anthropic_messages"),
        ("/mock", {"messages": []}, None, "openai_chat"),
        ("/mock", {}, {}, "openai_chat"),
        ("", {}, None, "openai_chat"),
    ],
)
def test_rule1_the_api_from_the_path_else_the_body(
    path: str, body: dict[str, Any], headers: Any, api: str
) -> None:
    assert api_of(body, path, headers) == api


# -- Rule 2: turns -------------------------------------------------------------------------


def test_rule2_consecutive_assistant_entries_are_one_turn() -> None:
    responses = {
        "input": [
            {"role": "user", "content": "a"},
            {"type": "reasoning", "summary": []},
            {"type": "message", "role": "assistant", "content": "one"},
            {"type": "function_call", "call_id": "x", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "x", "output": "r"},
            {"type": "web_search_call", "id": "ws"},
            {"type": "message", "role": "assistant", "content": "two"},
        ]
    }
    history = read("openai_responses", responses)
    assert [t.text for t in history.turns] == ["one", "two"]
    assert [len(t.calls) for t in history.turns] == [1, 0]
    assert history.turns[0].results == [Result("x", "f", "r")]
    assert history.pending == []  # the last turn has no result after it yet


def test_rule2_two_assistant_messages_in_a_row_are_one_turn_in_chat() -> None:
    chat = {
        "messages": [{"role": "assistant", "content": "a"}, {"role": "assistant", "content": "b"}]
    }
    history = read("openai_chat", chat)
    assert len(history.turns) == 1
    assert history.turns[0].text == "ab"


# -- Rule 3: a prefill ---------------------------------------------------------------------


def test_rule3_a_trailing_anthropic_assistant_message_is_a_prefill() -> None:
    body = {
        "messages": [{"role": "user", "content": "Say hi"}, {"role": "assistant", "content": "Hi"}]
    }
    assert read("anthropic_messages", body).turns == []
    chat = read("openai_chat", body)  # (not in Chat Completions: a turn)
    assert len(chat.turns) == 1


# -- Rule 4: pending -----------------------------------------------------------------------


def test_rule4_pending_results_are_those_after_the_last_turn() -> None:
    body = {
        "messages": [
            {
                "role": "assistant",
                "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "a", "content": "first"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "b", "function": {"name": "g", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "b", "content": "second"},
        ]
    }
    history = read("openai_chat", body)
    assert [r.content for r in history.results] == ["first", "second"]
    assert [r.content for r in history.pending] == ["second"]
    assert [[r.name for r in t.results] for t in history.turns] == [["f"], ["g"]]


def test_a_result_with_no_turn_before_it_is_pending() -> None:
    history = read(
        "openai_chat", {"messages": [{"role": "tool", "tool_call_id": "z", "content": "x"}]}
    )
    assert history.pending == [Result("z", None, "x")]
    assert history.turns == []


def test_a_result_names_its_tool_itself_or_by_its_call_id() -> None:
    body = {
        "messages": [
            {
                "role": "assistant",
                "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{}"}}],
            },
            {"role": "function", "name": "legacy", "content": "1"},
            {"role": "tool", "tool_call_id": "a", "content": "2"},
            {"role": "tool", "tool_call_id": "unknown", "content": "3"},
        ]
    }
    names = [r.name for r in read("openai_chat", body).results]
    assert names == ["legacy", "f", None]


# -- Rule 5: never an error ----------------------------------------------------------------


@pytest.mark.parametrize("api", API_KINDS)
def test_rule5_entries_out_of_shape_are_skipped(api: str) -> None:
    odd = {
        "messages": [
            None,
            3,
            "x",
            {"role": "assistant", "tool_calls": [{"function": "f"}, None]},
            {"role": 5},
        ],
        "input": [None, {"type": 7}, {"type": "function_call", "name": 3}],
        "contents": [
            None,
            {"role": "model", "parts": "x"},
            {"parts": [None, {"functionResponse": 1}]},
        ],
        "tools": [
            None,
            {"function": None},
            {"name": 3},
            {"functionDeclarations": [None, {"name": None}]},
        ],
        "functions": "no",
        "system": 5,
        "systemInstruction": "text",
        "instructions": ["no"],
    }
    history = read(api, odd)
    assert history.tools == []
    assert all(not t.calls for t in history.turns)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "role",
                    "content",
                    "messages",
                    "input",
                    "contents",
                    "parts",
                    "type",
                    "text",
                    "tool_calls",
                    "function",
                    "name",
                    "arguments",
                    "id",
                    "call_id",
                    "output",
                    "tools",
                    "system",
                    "functionCall",
                    "functionResponse",
                    "tool_use_id",
                    "input_schema",
                    "args",
                    "response",
                    "instructions",
                ]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@given(
    st.sampled_from(API_KINDS),
    st.dictionaries(
        st.sampled_from(
            [
                "messages",
                "input",
                "contents",
                "tools",
                "system",
                "systemInstruction",
                "instructions",
                "functions",
            ]
        ),
        JSON,
        max_size=4,
    ),
)
def test_rule5_any_json_body_reads_without_error(api: str, body: dict[str, Any]) -> None:
    history = read(api, body)
    assert isinstance(history, History)
    assert history.pending == history.results[len(history.results) - len(history.pending) :]
    assert all(isinstance(t, str) for t in history.tools)


# -- the helpers ---------------------------------------------------------------------------


def test_arguments_are_canonical_json_or_the_text_kept() -> None:
    assert arguments('{"b": 1, "a": [1,2]}') == '{"a": [1, 2], "b": 1}'
    assert arguments({"b": 1, "a": "é"}) == '{"a": "é", "b": 1}'
    assert arguments("{not json") == "{not json"
    assert arguments("") == ""
    assert arguments(None) == "null"


def test_text_of_each_content_shape() -> None:
    assert text_of("hi") == "hi"
    assert (
        text_of(
            [{"type": "text", "text": "a"}, {"type": "input_text", "text": "b"}, {"type": "image"}]
        )
        == "ab"
    )
    assert text_of({"content": [{"text": "x"}]}) == "x"
    assert text_of({"type": "image"}) == ""
    assert text_of(None) == ""
    assert text_of(5) == ""


def test_result_text_is_text_else_compact_json() -> None:
    assert result_text("18") == "18"
    assert result_text([{"type": "text", "text": "18"}]) == "18"
    assert result_text({"temp": 18, "unit": "°C"}) == '{"temp":18,"unit":"°C"}'
    assert result_text([1, 2]) == "[1,2]"
    assert result_text(None) == ""
    assert result_text("") == ""


def test_a_user_message_with_no_text_is_not_the_last_user_message() -> None:
    body = {
        "messages": [
            {"role": "user", "content": "text"},
            {"role": "user", "content": [{"type": "image_url"}]},
        ]
    }
    assert read("openai_chat", body).last_user == "text"
    empty = {"messages": [{"role": "user", "content": "text"}, {"role": "user", "content": ""}]}
    assert read("openai_chat", empty).last_user == ""  # an empty string is a message


def test_system_parts_are_joined_by_line_ends() -> None:
    chat = {"messages": [{"role": "system", "content": "a"}, {"role": "developer", "content": "b"}]}
    assert read("openai_chat", chat).system == "a\nb"
    responses = {"instructions": "i", "input": [{"role": "system", "content": "s"}]}
    assert read("openai_responses", responses).system == "i\ns"


def test_responses_previous_response_id() -> None:
    assert (
        read(
            "openai_responses", {"previous_response_id": "resp_1", "input": "x"}
        ).previous_response_id
        == "resp_1"
    )
    assert (
        read("openai_responses", {"previous_response_id": "", "input": "x"}).previous_response_id
        is None
    )


def test_anthropic_tool_results_only_are_no_user_message() -> None:
    body = {
        "messages": [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t", "content": "r"}],
            },
        ]
    }
    history = read("anthropic_messages", body)
    assert history.last_user == "q"
    assert history.pending == [Result("t", "f", "r")]


def test_gemini_snake_case_keys_are_read_too() -> None:
    body = {
        "system_instruction": {"parts": [{"text": "s"}]},
        "contents": [
            {"role": "model", "parts": [{"function_call": {"name": "f", "args": {"a": 1}}}]},
            {"role": "user", "parts": [{"function_response": {"name": "f", "response": {"r": 1}}}]},
        ],
        "tools": [{"function_declarations": [{"name": "f"}]}],
    }
    history = read("gemini", body)
    assert history.system == "s"
    assert history.turns[0].calls == [Call("f", '{"a": 1}', None)]
    assert history.pending == [Result(None, "f", '{"r":1}')]
    assert history.tools == ["f"]


def test_how_calls_and_results_show() -> None:
    assert Call("f", '{"a": 1}').show() == 'f({"a": 1})'
    assert Result("c1", "f", "18").show() == "f (c1): '18'"
    assert Result(None, None, "x").show() == "?: 'x'"
    assert str(Result(None, "f", "x")) == "f (no id): 'x'"
    assert json.loads(CALLS[0].arguments) == {"city": "Paris"}
