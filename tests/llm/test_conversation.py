"""Conversations: the turn read from the request in each API, refusals, loops, files."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import llm
from mockhttp._core._request import Headers, Request

CALL = llm.tool_call("get_weather", {"city": "Paris"})
WEATHER = llm.conversation(
    llm.turn(tool_calls=[CALL]),
    llm.turn(
        "It is 18 °C in Paris.", expect={"tool_result": {"name": "get_weather", "content": "18"}}
    ),
    name="weather-agent",
)
GEMINI = "/v1beta/models/gemini-2.5-flash:generateContent"


def answer(conv: llm.Conversation, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    """The reply of ``conv`` to a request, without sockets: status and JSON body."""
    request = Request(
        "POST", path, Headers((("content-type", "application/json"),)), json.dumps(body).encode()
    )
    try:
        reply = conv.build(request)
    except llm.ConversationError as exc:
        reply = exc.reply
    return reply.status_code, json.loads(reply.content)


# -- the turn, read from the request, in each API ---------------------------------------------


def test_chat_turns_follow_the_assistant_messages_of_the_history() -> None:
    """Chat: no assistant message is turn 1 (a tool call), one is turn 2 (the text)."""
    user = {"role": "user", "content": "Weather?"}
    _, first = answer(WEATHER, "/v1/chat/completions", {"messages": [user]})
    message = first["choices"][0]["message"]
    assert message["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city": "Paris"}',
    }
    assert first["choices"][0]["finish_reason"] == "tool_calls"
    result = {"role": "tool", "tool_call_id": message["tool_calls"][0]["id"], "content": "18 °C"}
    _, second = answer(WEATHER, "/v1/chat/completions", {"messages": [user, message, result]})
    assert second["choices"][0]["message"]["content"] == "It is 18 °C in Paris."
    assert second["choices"][0]["finish_reason"] == "stop"


def test_anthropic_turns_and_a_prefill_that_is_no_turn() -> None:
    """Anthropic: assistant messages count; a trailing assistant message (a prefill) does not."""
    conv = llm.conversation(llm.turn("one"), llm.turn("two"))
    user = {"role": "user", "content": "hi"}
    _, first = answer(
        conv,
        "/v1/messages",
        {"max_tokens": 9, "messages": [user, {"role": "assistant", "content": "Sure"}]},
    )
    assert first["content"] == [{"type": "text", "text": "one"}]
    history = [user, {"role": "assistant", "content": "one"}, {"role": "user", "content": "more"}]
    _, second = answer(conv, "/v1/messages", {"max_tokens": 9, "messages": history})
    assert second["content"] == [{"type": "text", "text": "two"}]


def test_anthropic_tool_use_ids_are_the_apis_own() -> None:
    """Anthropic tool calls get ``toolu_`` ids, stable for the same script and turn."""
    _, body = answer(
        WEATHER, "/v1/messages", {"max_tokens": 9, "messages": [{"role": "user", "content": "x"}]}
    )
    (use,) = body["content"]
    assert use["type"] == "tool_use"
    assert use["id"].startswith("toolu_")
    assert use["input"] == {"city": "Paris"}
    assert use["id"] == WEATHER.call_id(0, 0, "anthropic_messages")


def test_gemini_turns_follow_the_model_contents() -> None:
    """Gemini: ``role: model`` contents count; function responses carry the tool's name."""
    user = {"role": "user", "parts": [{"text": "Weather?"}]}
    _, first = answer(WEATHER, GEMINI, {"contents": [user]})
    part = first["candidates"][0]["content"]["parts"][0]
    assert part == {"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}
    reply = {
        "role": "user",
        "parts": [{"functionResponse": {"name": "get_weather", "response": {"t": 18}}}],
    }
    history = [user, first["candidates"][0]["content"], reply]
    _, second = answer(WEATHER, GEMINI, {"contents": history})
    assert second["candidates"][0]["content"]["parts"] == [{"text": "It is 18 °C in Paris."}]


def test_responses_turn_from_history_items_and_from_previous_response_id() -> None:
    """Responses: function_call items count as a turn; so does the id the mock issued."""
    _, first = answer(WEATHER, "/v1/responses", {"input": "Weather?"})
    call = first["output"][0]
    assert call["type"] == "function_call"
    assert call["name"] == "get_weather"
    assert WEATHER.turn_of_id(first["id"]) == 0
    output = {"type": "function_call_output", "call_id": call["call_id"], "output": "18 °C"}
    _, chained = answer(
        WEATHER, "/v1/responses", {"previous_response_id": first["id"], "input": [output]}
    )
    assert chained["output"][0]["content"][0]["text"] == "It is 18 °C in Paris."
    history = [{"role": "user", "content": "Weather?"}, call, output]
    _, whole = answer(WEATHER, "/v1/responses", {"input": history})
    assert whole["output"][0]["content"][0]["text"] == "It is 18 °C in Paris."


def test_a_previous_response_id_not_issued_by_the_conversation_is_refused() -> None:
    """An id from elsewhere cannot tell the turn: a 400 that says so."""
    code, body = answer(
        WEATHER, "/v1/responses", {"previous_response_id": "resp_other", "input": []}
    )
    assert code == 400
    assert (
        "previous_response_id='resp_other' was not issued by this conversation"
        in body["error"]["message"]
    )


def test_parallel_tool_calls_in_one_turn() -> None:
    """Two calls in a turn are parallel calls, each with its own id."""
    conv = llm.conversation(llm.turn(tool_calls=[CALL, llm.tool_call("get_time", {}, id="call_t")]))
    _, body = answer(conv, "/v1/chat/completions", {"messages": []})
    calls = body["choices"][0]["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["get_weather", "get_time"]
    assert calls[1]["id"] == "call_t"
    assert calls[0]["id"] != calls[1]["id"]


# -- refusals ---------------------------------------------------------------------------------


def _chat(turns: int, results: str = "18") -> dict[str, Any]:
    """A chat history holding ``turns`` assistant tool calls, each answered with ``results``
    (``{i}`` in it: the call's number)."""
    messages: list[Any] = [{"role": "user", "content": "go"}]
    for i in range(turns):
        call = {
            "id": f"c{i}",
            "type": "function",
            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": results.format(i=i)})
    return {"messages": messages}


def test_past_the_last_turn_each_api_gets_its_error_shape() -> None:
    """Turn 3 of a 2-turn script: a 400 in each API's shape, with the explanation."""
    said = "conversation 'weather-agent' has 2 turns; this request is at turn 3"
    code, chat = answer(WEATHER, "/v1/chat/completions", _chat(2))
    assert code == 400
    assert chat["error"]["message"].startswith(said)
    assert chat["error"]["type"] == "invalid_request_error"
    history = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "a"}] * 2
    code, claude = answer(
        WEATHER, "/v1/messages", {"messages": [*history, {"role": "user", "content": "y"}]}
    )
    assert code == 400
    assert claude["type"] == "error"
    assert claude["error"]["message"].startswith(said)
    model = [
        {"role": "user", "parts": [{"text": "x"}]},
        {"role": "model", "parts": [{"text": "a"}]},
    ] * 2
    code, gemini = answer(WEATHER, GEMINI, {"contents": model})
    assert code == 400
    assert gemini["error"]["status"] == "INVALID_ARGUMENT"
    assert gemini["error"]["message"].startswith(said)


def test_repeat_last_answers_again_then_stops_a_tool_loop() -> None:
    """With repeat_last a tool-calling last turn answers max_repeats times, then a loop."""
    conv = llm.conversation(
        llm.turn(tool_calls=[CALL]), repeat_last=True, max_repeats=2, name="poll"
    )
    assert answer(conv, "/v1/chat/completions", _chat(0, ""))[0] == 200
    assert answer(conv, "/v1/chat/completions", _chat(1, "r{i}"))[0] == 200
    code, body = answer(conv, "/v1/chat/completions", _chat(2, "r{i}"))
    assert code == 400
    assert "the agent is looping: the last turn" in body["error"]["message"]


def test_repeat_last_gives_each_repeated_answer_fresh_tool_call_ids() -> None:
    """Rule 4: the last turn answered again makes its calls with new ids (a scripted id
    gets ``_2``, ``_3``); the same request gets the same ids (no state is kept)."""
    conv = llm.conversation(
        llm.turn(tool_calls=[CALL, llm.tool_call("get_time", {}, id="call_fixed")]),
        repeat_last=True,
        max_repeats=None,
    )

    def ids(turns: int) -> list[str]:
        _, body = answer(conv, "/v1/chat/completions", _chat(turns, "r{i}"))
        return [c["id"] for c in body["choices"][0]["message"]["tool_calls"]]

    first, second, third = ids(0), ids(1), ids(2)
    assert len({first[0], second[0], third[0]}) == 3
    assert [first[1], second[1], third[1]] == ["call_fixed", "call_fixed_2", "call_fixed_3"]
    assert ids(2) == third


def test_the_same_call_with_the_same_result_again_and_again_is_a_loop() -> None:
    """A history ending with max_repeats identical calls and results stops the next one."""
    same = [llm.turn(tool_calls=[CALL])] * 5
    conv = llm.conversation(*same, max_repeats=3)
    assert answer(conv, "/v1/chat/completions", _chat(2, "same"))[0] == 200
    code, body = answer(conv, "/v1/chat/completions", _chat(3, "same"))
    assert code == 400
    message = body["error"]["message"]
    assert 'its history ends with 3 times the same call get_weather({"city": "Paris"})' in message
    assert (
        answer(llm.conversation(*same, max_repeats=None), "/v1/chat/completions", _chat(3))[0]
        == 200
    )


def test_a_missed_expectation_names_the_turn_the_expectation_and_what_arrived() -> None:
    """tool_result, tool_offered, last_user_message and system_prompt each explain a miss."""
    conv = llm.conversation(
        llm.turn(
            "ok",
            expect={
                "tool_offered": ["get_weather"],
                "last_user_message": "Paris",
                "system_prompt": mockhttp.match.regex("^You are"),
            },
        ),
        name="e",
    )
    body: dict[str, Any] = {
        "messages": [
            {"role": "system", "content": "Be brief"},
            {"role": "user", "content": "Rome?"},
        ]
    }
    code, got = answer(conv, "/v1/chat/completions", body)
    assert code == 400
    assert got["error"]["message"].splitlines() == [
        "conversation 'e', turn 1 of 1: the request does not hold what the turn expects",
        "  tool_offered: expected 'get_weather' among the tools offered; offered: none",
        "  last_user_message: expected containing 'Paris', got 'Rome?'",
        "  system_prompt: expected matching regex('^You are'), got 'Be brief'",
    ]
    body["tools"] = [{"type": "function", "function": {"name": "get_weather"}}]
    body["messages"] = [
        {"role": "system", "content": "You are terse"},
        {"role": "user", "content": "Paris?"},
    ]
    assert answer(conv, "/v1/chat/completions", body)[0] == 200


def test_a_refusal_reaches_server_check_on_the_wire() -> None:
    """The client gets the refusal; server.check() raises it as a ConversationError."""
    with mockhttp.Server() as server:
        server.mock(WEATHER)
        wrong = _chat(1, "12 °C")
        reply = httpx.post(server.url + "/v1/chat/completions", json=wrong)
        assert reply.status_code == 400
        assert (
            "tool results since the last assistant turn: get_weather (c0): '12 °C'"
            in reply.json()["error"]["message"]
        )
        with pytest.raises(llm.ConversationError, match="turn 2 of 2"):
            server.check()


# -- on the wire ------------------------------------------------------------------------------


def test_fifty_parallel_conversations_each_get_their_turns_in_order() -> None:
    """50 threads run a 3-turn script at once against one server; each gets turns 1, 2, 3."""
    script = llm.conversation(
        llm.turn(tool_calls=[CALL]),
        llm.turn(tool_calls=[llm.tool_call("get_time", {})]),
        llm.turn("done"),
    )
    seen: dict[int, list[str]] = {}
    limits = httpx.Limits(max_connections=50)
    with mockhttp.Server() as server, httpx.Client(base_url=server.url, limits=limits) as client:
        server.mock(script)

        def agent(n: int) -> None:
            messages: list[Any] = [{"role": "user", "content": f"agent {n}"}]
            for _ in range(3):
                body = {"model": "m", "messages": messages, "stream": n % 2 == 0}
                reply = client.post("/v1/chat/completions", json=body)
                message = _message(reply)
                calls = message.get("tool_calls") or []
                seen.setdefault(n, []).append(
                    calls[0]["function"]["name"] if calls else message["content"]
                )
                messages.append(message)
                messages += [
                    {"role": "tool", "tool_call_id": c["id"], "content": "ok"} for c in calls
                ]

        threads = [threading.Thread(target=agent, args=(n,)) for n in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        server.check()
    assert seen == {n: ["get_weather", "get_time", "done"] for n in range(50)}


def _message(reply: httpx.Response) -> dict[str, Any]:
    """The assistant message of a buffered answer, or put together from a stream."""
    if reply.headers["content-type"].startswith("application/json"):
        return dict(reply.json()["choices"][0]["message"])
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    for line in reply.text.splitlines():
        if not line.startswith("data: {"):
            continue
        delta = json.loads(line[6:])["choices"][0]["delta"]
        message["content"] += delta.get("content") or ""
        for call in delta.get("tool_calls", []):
            if "id" in call:
                message.setdefault("tool_calls", []).append(
                    {**call, "function": dict(call["function"])}
                )
            else:
                message["tool_calls"][call["index"]]["function"]["arguments"] += call["function"][
                    "arguments"
                ]
    return message


def test_a_mock_narrowed_by_request_and_the_default_paths() -> None:
    """Without request: every LLM path; post(path).reply(conversation): that path only."""
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(llm.conversation(llm.turn("anywhere")))
        server.mock(
            mockhttp.post("/custom/chat/completions").reply(llm.conversation(llm.turn("custom")))
        )
        for path in (
            "/v1/chat/completions",
            "/v1/responses",
            "/v1/messages",
            GEMINI,
            "/v1/models/g:streamGenerateContent",
        ):
            assert client.post(path, json={"max_tokens": 5}).status_code == 200, path
        custom = client.post("/custom/chat/completions", json={"messages": []})
        assert custom.json()["choices"][0]["message"]["content"] == "custom"
        assert client.get("/v1/chat/completions").status_code == 404


# -- mock files ---------------------------------------------------------------------------------

FILE = """\
name: weather-agent
conversation:
  - tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - text: It is 18 °C in Paris.
    expect:
      tool_result: {name: get_weather, content: 18}
"""


def test_the_file_form_is_the_python_form_and_dumps_back() -> None:
    """The issue's YAML loads to the same mock as server.mock(conversation), and round-trips."""
    [mock] = mockhttp.loads(FILE)
    assert mock == WEATHER.own_mock()
    assert mockhttp.loads(mockhttp.dump(mock)) == [mock]
    narrowed = mockhttp.post("/v1/messages", name="n").reply(
        llm.conversation(llm.turn("x"), repeat_last=True)
    )
    assert mockhttp.loads(mockhttp.dump(narrowed)) == [narrowed]


@pytest.mark.parametrize(
    ("text", "where", "said"),
    [
        (
            "conversation:\n  - text: hi\n  - tool_cals: []\n",
            "<string>:3:5 at conversation[1]",
            "did you mean 'tool_calls'?",
        ),
        (
            "conversation:\n  - expect: {tool_reslt: {name: x}}\n",
            "<string>:2:13 at conversation[0].expect",
            "did you mean 'tool_result'?",
        ),
        ("conversatoin: []\n", "<string>:1:1 at conversatoin", "did you mean 'conversation'?"),
        ("conversation: []\n", "<string>:1:15 at conversation", "needs at least one turn"),
        (
            "conversation: [{text: a}]\nresponse: {status: 200}\n",
            "<string>:2:11 at response",
            "found both",
        ),
    ],
)
def test_file_errors_are_placed_with_a_suggestion(text: str, where: str, said: str) -> None:
    """A misspelt turn key, expect key or top-level key fails at file:line:column."""
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.loads(text)
    assert str(caught.value).startswith(where)
    assert said in str(caught.value)


def test_a_file_request_narrows_the_conversation() -> None:
    """request: keeps the conversation's method and paths (unless it names its own) and
    adds its criteria."""
    [mock] = mockhttp.loads(
        "conversation: [{text: hi}]\nrequest:\n  body: [json_path, $.model, gpt-x]\n"
    )
    assert mock.method == "POST"
    assert mock.path == WEATHER.own_mock().path
    assert len(mock.criteria) == 1


def test_an_error_turn_with_times_answers_that_many_requests_then_the_next_turn() -> None:
    """Rule 5: the first ``times`` requests of the same body get the error; the next gets
    the turn after it; another body (another conversation) is counted apart."""
    conv = llm.conversation(
        llm.turn(error="rate_limit", retry_after="2s", times=2), llm.turn("Hi"), name="busy"
    )
    first = {"messages": [{"role": "user", "content": "one"}]}
    other = {"messages": [{"role": "user", "content": "two"}]}
    assert [answer(conv, "/v1/chat/completions", first)[0] for _ in range(3)] == [429, 429, 200]
    assert answer(conv, "/v1/chat/completions", other)[0] == 429
    conv.forget()
    assert answer(conv, "/v1/chat/completions", first)[0] == 429
    rendered = conv.build(
        Request("POST", "/v1/messages", Headers(()), json.dumps({"messages": []}).encode())
    )
    assert (rendered.status_code, dict(rendered.headers)["retry-after"]) == (429, "2")


@pytest.mark.parametrize(
    ("turns", "message"),
    [
        ([llm.turn("Hi"), {"error": "rate_limit", "times": 1}], "turns[1]: an error turn with"),
        ([{"text": "Hi", "times": 1}], "times=1 needs error"),
        ([{"error": "rate_limit", "times": 0}, "Hi"], "times=0 must be a positive int"),
    ],
)
def test_error_turns_with_times_that_cannot_be_placed_are_refused(
    turns: list[Any], message: str
) -> None:
    with pytest.raises(mockhttp.ConfigError, match=re.escape(message)):
        llm.conversation(*[llm.turn(t) if isinstance(t, str) else t for t in turns])


def test_error_turns_with_times_from_a_file() -> None:
    text = """
request: {method: POST, path: /v1/chat/completions}
response:
  conversation:
    - {error: rate_limit, retry_after: 500ms, times: 1}
    - text: Hello
"""
    (mock,) = mockhttp.loads(text)
    assert isinstance(mock.kind, llm.Conversation)
    assert mock.kind.turns[0].times == 1
    assert mockhttp.loads(mock.to_yaml())[0].kind == mock.kind
