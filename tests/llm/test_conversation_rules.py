"""llm/_conversation.py, in more depth: option checks, per-API spellings, ids, the loop
rule's edges, pure (replies built without sockets).

tests/llm/test_conversation.py drives conversations through each API; this module feeds
the pieces directly: the option table entry by entry, how a turn's usage and reasoning are
spelt in each API, call ids and Responses ids (a property test reads the turn back from
any id), Rule 2 with ``max_repeats`` off and at its edge, and ``turn_for``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp import ConfigError, llm
from mockhttp.llm._conversation import (
    LLM_PATHS,
    TURN_KEYS,
    Conversation,
    ConversationError,
    Turn,
    conversation,
    tool_call,
    turn,
)
from mockhttp.llm._history import read
from tests.helpers.llm_build import body_of, request

WEATHER = tool_call("get_weather", {"city": "Paris"})
USER = [{"role": "user", "content": "Weather?"}]


def chat_after(calls: int, result: str = "18") -> dict[str, Any]:
    """A chat request whose history holds ``calls`` turns of the same call and result."""
    messages: list[dict[str, Any]] = list(USER)
    for n in range(calls):
        call = {
            "id": f"c{n}",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
        }
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": result},
        ]
    return {"model": "m", "messages": messages}


def answer(conv: Conversation, body: dict[str, Any], path: str = "/v1/chat/completions") -> Any:
    return conv.build(request(body, path))


# -- the option checks ---------------------------------------------------------------------

# (typed loosely: the table passes what the signatures refuse)
ANY_CONVERSATION: Any = Conversation
ANY_conversation: Any = conversation
ANY_turn: Any = turn
ANY_tool_call: Any = tool_call


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: ANY_CONVERSATION("hi"), "turns='hi' must be a list of turns"),
        (lambda: ANY_CONVERSATION({"text": "x"}), "must be a list of turns"),
        (lambda: ANY_CONVERSATION([]), "a conversation needs at least one turn"),
        (lambda: ANY_conversation(turn("x"), name=""), "name='' must be non-empty text"),
        (
            lambda: ANY_conversation(turn("x"), repeat_last="yes"),
            "repeat_last='yes' must be true or false",
        ),
        (
            lambda: ANY_conversation(turn("x"), max_repeats=0),
            "max_repeats=0 must be a positive int or None",
        ),
        (lambda: ANY_conversation(turn("x"), max_repeats=True), "max_repeats=True"),
        (
            lambda: ANY_conversation(turn("x"), quirks="Q-CRLF"),
            "quirks='Q-CRLF' must be a list of quirk ids",
        ),
        (lambda: ANY_conversation(turn("x"), chunk_size=0), r"turns\[0\].chunk_size=0"),
        (lambda: ANY_conversation("x"), r"turns\[0\]='x' must be a turn: a mapping with text"),
        (lambda: ANY_conversation({"txt": "x"}), r"turns\[0\]: .*'txt'.*text"),
        (lambda: ANY_conversation({"text": "x", "times": 2}), r"turns\[0\]\.times=2 needs error"),
        (
            lambda: ANY_conversation(turn(error="rate_limit", times=1)),
            r"turns\[0\]: an error turn with times= answers before",
        ),
        (lambda: ANY_turn(error="rate_limit", times=0), "times=0 must be a positive int"),
        (lambda: ANY_turn(error="rate_limit", times=True), "times=True must be a positive int"),
        (lambda: ANY_turn("x", reasoning=3), "reasoning=3 must be text"),
        (lambda: ANY_turn("x", expect={"tool_offerd": "f"}), "tool_offered"),
        (
            lambda: ANY_conversation(ANY_turn("x", usage=[1])),
            "usage=.* must be a mapping of token counts",
        ),
        (lambda: ANY_conversation(turn(error="nope")), r"turns\[0\]\.error='nope'"),
        (lambda: ANY_tool_call(""), "name='' must be a function name"),
        (lambda: ANY_tool_call("f", [1]), "must be a mapping or JSON text"),
        (lambda: ANY_tool_call("f", "{x"), "is not JSON text"),
        (lambda: ANY_tool_call("f", id=""), "id='' must be non-empty text"),
    ],
)
def test_each_bad_option_is_refused_naming_where(make: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make()


def test_a_turn_and_its_mapping_form_are_one() -> None:
    made = turn("Hi", tool_calls=[WEATHER], reasoning="Hm", usage={"input_tokens": 3})
    assert Turn.of(0, made) is made
    assert Turn.of(0, made.to_file()) == made
    assert set(made.to_file()) <= set(TURN_KEYS)
    assert turn(None).text == ""
    assert ANY_turn(None).text == ""
    assert Turn(text=None).text == ""  # type: ignore[arg-type]  # (text: null in a file)


def test_the_file_form_of_a_conversation_round_trips() -> None:
    conv = conversation(
        turn(tool_calls=[WEATHER]),
        turn("18 °C", expect={"tool_result": {"name": "get_weather"}}),
        name="weather",
        repeat_last=True,
        max_repeats=None,
        chunk_size=4,
        quirks=["Q-CRLF"],
        as_="groq",
    )
    args = conv.to_args()
    assert args["max_repeats"] is None
    assert args["as"] == "groq"
    again = Conversation(**{("as_" if k == "as" else k): v for k, v in args.items()})
    assert again.to_args() == args
    assert again.salt == conv.salt
    assert conversation(turn("x")).to_args() == {"turns": [{"text": "x"}]}


def test_label_describe_and_own_mock() -> None:
    named = conversation(turn("a"), turn("b"), name="agent")
    assert named.label == "conversation 'agent'"
    assert named.describe() == "conversation 'agent' (2 turns)"
    assert conversation(turn("a")).describe() == "the conversation (1 turn)"
    mock = named.own_mock()
    assert mock.method == "POST"
    assert mock.name == "agent"
    for path in (
        "/v1/chat/completions",
        "/v1/responses",
        "/v1/messages",
        "/v1beta/models/g:generateContent",
        "/v1/models/g:streamGenerateContent",
    ):
        assert re.search(LLM_PATHS, path), path
    for path in (
        "/v1/embeddings",
        "/v2/messages",
        "/v1beta/models/g:countTokens",
        "/v1/chat/completions/x",
    ):
        assert not re.search(LLM_PATHS, path), path


# -- per-API spellings ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "read_usage"),
    [
        (
            "/v1/chat/completions",
            {"messages": USER},
            lambda b: (
                b["usage"]["prompt_tokens"],
                b["usage"]["completion_tokens"],
                b["usage"]["extra"],
            ),
        ),
        (
            "/v1/responses",
            {"input": "Weather?"},
            lambda b: (
                b["usage"]["input_tokens"],
                b["usage"]["output_tokens"],
                b["usage"]["extra"],
            ),
        ),
        (
            "/v1/messages",
            {"messages": USER, "system": "s"},
            lambda b: (
                b["usage"]["input_tokens"],
                b["usage"]["output_tokens"],
                b["usage"]["extra"],
            ),
        ),
        (
            "/v1beta/models/g:generateContent",
            {"contents": []},
            lambda b: (
                b["usageMetadata"]["promptTokenCount"],
                b["usageMetadata"]["candidatesTokenCount"],
                b["usageMetadata"]["extra"],
            ),
        ),
    ],
)
def test_a_turns_usage_is_spelt_as_each_api_spells_it(
    path: str, body: dict[str, Any], read_usage: Any
) -> None:
    conv = conversation(turn("Hi", usage={"input_tokens": 11, "output_tokens": 22, "extra": 1}))
    assert read_usage(body_of(conv.build(request(body, path)))) == (11, 22, 1)


def test_a_turns_reasoning_goes_where_each_api_sends_it() -> None:
    conv = conversation(turn("Yes", reasoning="Let me see"))
    chat = body_of(answer(conv, {"messages": USER}))
    assert chat["choices"][0]["message"]["reasoning_content"] == "Let me see"
    anthropic = body_of(answer(conv, {"messages": USER, "system": "s"}, "/v1/messages"))
    assert anthropic["content"][0] == {
        "type": "thinking",
        "thinking": "Let me see",
        "signature": anthropic["content"][0]["signature"],
    }
    responses = body_of(answer(conv, {"input": "x"}, "/v1/responses"))
    assert responses["output"][0]["summary"][0]["text"] == "Let me see"
    gemini = body_of(answer(conv, {"contents": []}, "/v1beta/models/g:generateContent"))
    assert gemini["candidates"][0]["content"]["parts"][0] == {"text": "Let me see", "thought": True}


@pytest.mark.parametrize(
    ("api", "prefix"),
    [
        ("openai_chat", "call_"),
        ("openai_responses", "call_"),
        ("anthropic_messages", "toolu_"),
        ("gemini", ""),
    ],
)
def test_call_ids_are_in_each_apis_style_stable_and_distinct(api: str, prefix: str) -> None:
    conv = conversation(
        turn(tool_calls=[WEATHER, WEATHER]), turn(tool_calls=[WEATHER]), turn("done")
    )
    ids = {(i, j): conv.call_id(i, j, api) for i, j in ((0, 0), (0, 1), (1, 0))}
    assert len(set(ids.values())) == 3
    assert all(i.startswith(prefix) and len(i) == len(prefix) + 24 for i in ids.values())
    twin = conversation(
        turn(tool_calls=[WEATHER, WEATHER]), turn(tool_calls=[WEATHER]), turn("done")
    )
    assert {k: twin.call_id(*k, api) for k in ids} == ids
    other = conversation(
        turn(tool_calls=[WEATHER, WEATHER]), turn(tool_calls=[WEATHER]), turn("finished")
    )
    assert other.call_id(0, 0, api) != ids[(0, 0)]  # the script is in the salt


def test_a_scripted_id_is_sent_as_given() -> None:
    conv = conversation(turn(tool_calls=[tool_call("f", {}, id="mine")]), turn("ok"))
    body = body_of(answer(conv, {"messages": USER}))
    assert body["choices"][0]["message"]["tool_calls"][0]["id"] == "mine"


# -- Responses ids carry their turn --------------------------------------------------------


@given(st.integers(0, 9999), st.binary(max_size=64))
def test_a_response_id_gives_back_its_turn(at: int, body: bytes) -> None:
    conv = conversation(turn("a"), turn("b"))
    made = conv.response_id(at, body)
    assert made.startswith(f"resp_{conv.salt}")
    assert conv.turn_of_id(made) == at
    assert conversation(turn("other")).turn_of_id(made) is None


def test_ids_not_of_this_conversation_have_no_turn() -> None:
    conv = conversation(turn("a"))
    for other in ("resp_x", f"resp_{conv.salt}12", f"resp_{conv.salt}0001{'g' * 16}", ""):
        assert conv.turn_of_id(other) is None


def test_a_responses_answer_takes_the_id_of_its_turn() -> None:
    conv = conversation(turn("first"), turn("second"))
    first = body_of(answer(conv, {"input": "x"}, "/v1/responses"))
    assert conv.turn_of_id(first["id"]) == 0
    second = body_of(
        answer(conv, {"input": "y", "previous_response_id": first["id"]}, "/v1/responses")
    )
    assert second["output"][0]["content"][0]["text"] == "second"
    assert conv.turn_of_id(second["id"]) == 1


# -- Rule 2 at its edges -------------------------------------------------------------------


def test_a_loop_is_refused_at_max_repeats_not_before() -> None:
    conv = conversation(turn(tool_calls=[WEATHER]), repeat_last=True, max_repeats=2)
    assert body_of(answer(conv, chat_after(1)))["choices"][0]["finish_reason"] == "tool_calls"
    with pytest.raises(
        ConversationError, match=r"looping: its history ends with 2 times the same call get_weather"
    ) as refused:
        answer(conv, chat_after(2))
    assert refused.value.reply is not None
    assert refused.value.reply.status_code == 400


def test_a_new_tool_result_each_time_is_progress_not_a_loop() -> None:
    conv = conversation(turn(tool_calls=[WEATHER]), repeat_last=True, max_repeats=None)
    body = chat_after(3)
    for n, message in enumerate(m for m in body["messages"] if m["role"] == "tool"):
        message["content"] = f"reading {n}"
    assert body_of(answer(conv, body))["choices"][0]["finish_reason"] == "tool_calls"


def test_max_repeats_none_never_refuses_a_loop() -> None:
    conv = conversation(turn(tool_calls=[WEATHER]), repeat_last=True, max_repeats=None)
    for calls in (0, 3, 10):
        assert (
            body_of(answer(conv, chat_after(calls)))["choices"][0]["finish_reason"] == "tool_calls"
        )


def test_a_text_turn_repeated_is_no_loop() -> None:
    conv = conversation(turn("same"), repeat_last=True, max_repeats=1)
    history = {
        "messages": [
            *USER,
            {"role": "assistant", "content": "same"},
            {"role": "user", "content": "again"},
        ]
        * 3
    }
    assert body_of(answer(conv, history))["choices"][0]["message"]["content"] == "same"


def test_past_the_script_without_repeat_last_the_message_counts_turns() -> None:
    conv = conversation(turn(tool_calls=[WEATHER]), name="w")
    with pytest.raises(ConversationError) as refused:
        answer(conv, chat_after(1))
    assert str(refused.value).startswith(
        "conversation 'w' has 1 turn; this request is at turn 2 (it holds 1 turn of the assistant)"
    )
    body = json.loads(refused.value.reply.content)
    assert body["error"]["code"] == "conversation_refused"


# -- turn_for ------------------------------------------------------------------------------


def test_turn_for_names_the_turn_and_its_calls_with_their_ids() -> None:
    conv = conversation(
        turn(tool_calls=[WEATHER]), turn("It is 18."), repeat_last=True, max_repeats=None
    )
    first, calls = conv.turn_for(read("openai_chat", {"messages": USER}), "openai_chat")
    assert first.calls == (WEATHER,)
    assert [c.id for c in calls] == [conv.call_id(0, 0, "openai_chat")]
    second, calls = conv.turn_for(read("openai_chat", chat_after(1)), "openai_chat")
    assert (second.text, calls) == ("It is 18.", ())


def test_turn_for_refuses_as_build_does() -> None:
    conv = conversation(turn("only"))
    with pytest.raises(ConversationError, match="has 1 turn"):
        conv.turn_for(read("openai_chat", chat_after(1)), "openai_chat")


def test_the_public_names_are_these() -> None:
    assert llm.conversation is conversation
    assert llm.turn is turn
    assert llm.tool_call is tool_call
