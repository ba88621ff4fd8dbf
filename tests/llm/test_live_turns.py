"""Where a realtime session's answers come from (llm/_live_turns.py): pure tests."""

from __future__ import annotations

import pytest

from mockhttp import ConfigError, llm
from mockhttp.llm._base import ToolCall
from mockhttp.llm._live_turns import Said, Turns, conversation_of


def _ids() -> object:
    count = iter(range(1, 100))
    return lambda: f"id{next(count)}"


def test_one_line_makes_its_calls_first_then_says_the_text() -> None:
    turns = Turns("Sunny", (ToolCall("get_weather", {"city": "Paris"}, None),))
    ids = _ids()
    first = turns.next({}, ids)  # type: ignore[arg-type]
    assert first == Said("", (ToolCall("get_weather", {"city": "Paris"}, "id1"),))
    assert turns.next({}, ids) == Said("Sunny")  # type: ignore[arg-type]
    assert turns.next({}, ids) == Said("Sunny")  # type: ignore[arg-type]
    assert turns.answered == 3


def test_one_line_without_calls_says_the_text_each_time() -> None:
    turns = Turns("Hi")
    assert [turns.next({}, lambda: "x").text for _ in range(2)] == ["Hi", "Hi"]


def test_a_scripted_id_is_kept() -> None:
    turns = Turns("", (ToolCall("f", {}, "mine"),))
    assert turns.next({}, lambda: "made").calls[0].id == "mine"


def test_a_conversation_picks_the_turn_from_the_items() -> None:
    script = llm.conversation(
        llm.turn(tool_calls=[llm.tool_call("get_weather", {"city": "Paris"})]),
        llm.turn("It is 18 C.", expect={"tool_result": {"name": "get_weather", "content": "18"}}),
    )
    turns = Turns("unused", conversation=script, api="openai_responses")
    first = turns.next({"input": [{"type": "message", "role": "user", "content": "hi"}]}, str)
    (call,) = first.calls
    assert (call.name, call.arguments_value, first.text) == ("get_weather", {"city": "Paris"}, "")
    assert call.id is not None
    assert call.id.startswith("call_")  # the conversation's own id
    items = [
        {"type": "message", "role": "user", "content": "hi"},
        {"type": "function_call", "call_id": call.id, "name": "get_weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": call.id, "output": "18"},
    ]
    assert turns.next({"input": items}, str).text == "It is 18 C."


def test_a_conversation_refuses_a_missed_expectation() -> None:
    script = llm.conversation(
        llm.turn(tool_calls=[llm.tool_call("f")]),
        llm.turn("done", expect={"tool_result": {"name": "f", "content": "ok"}}),
    )
    turns = Turns("", conversation=script, api="gemini")
    turns.next({"contents": [{"role": "user", "parts": [{"text": "go"}]}]}, str)
    contents = [
        {"role": "user", "parts": [{"text": "go"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {"r": "no"}}}]},
    ]
    with pytest.raises(llm.ConversationError, match="turn 2 of 2"):
        turns.next({"contents": contents}, str)


def test_a_conversation_past_its_turns_is_refused() -> None:
    turns = Turns("", conversation=llm.conversation(llm.turn("one")), api="gemini")
    contents = [
        {"role": "user", "parts": [{"text": "a"}]},
        {"role": "model", "parts": [{"text": "one"}]},
        {"role": "user", "parts": [{"text": "b"}]},
    ]
    with pytest.raises(llm.ConversationError, match="1 turn"):
        turns.next({"contents": contents}, str)


def test_pieces_of_a_turn_join_and_errors_and_usage_pass_through() -> None:
    script = llm.conversation(
        llm.turn(["Hel", "lo"], usage={"output_tokens": 7}), llm.turn(error="rate_limit")
    )
    turns = Turns("", conversation=script, api="gemini")
    said = turns.next({"contents": []}, str)
    assert (said.text, said.usage) == ("Hello", {"output_tokens": 7})
    model = [{"role": "model", "parts": [{"text": "Hello"}]}]
    assert turns.next({"contents": model}, str).error == "rate_limit"


def test_conversation_of_reads_the_file_form_and_says_what_is_wrong() -> None:
    made = conversation_of({"turns": [{"text": "hi"}], "name": "c"}, "x")
    assert isinstance(made, llm.Conversation)
    assert made.name == "c"
    assert conversation_of(None, "x") is None
    with pytest.raises(ConfigError, match="must be a conversation"):
        conversation_of("nope", "gemini_live")
    with pytest.raises(ConfigError, match=r"gemini_live\.conversation"):
        conversation_of({"turns": [{"text": "a"}], "bogus": 1}, "gemini_live")
