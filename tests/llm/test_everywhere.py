"""LLM replies everywhere a reply goes: in ``replies`` sequences (Python and files), as what
a ``respond_with`` handler returns, and in scenarios; read by the openai SDK on the wire."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

import mockhttp
from mockhttp import ConfigError, Request, fault, llm

PROMPT: list[ChatCompletionMessageParam] = [{"role": "user", "content": "Weather in Paris?"}]
CALL = {"name": "get_weather", "arguments": {"city": "Paris"}}


def client(server: mockhttp.Server) -> openai.OpenAI:
    """An openai client of ``server``: use it in ``with`` (closed then, not by the GC)."""
    return openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0)


def tool_loop(server: mockhttp.Server, stream: bool) -> list[Any]:
    """Two turns of an agent: the tool call the first answer asks for, then the text."""
    with client(server) as c:
        if stream:
            chunks = list(c.chat.completions.create(model="m", messages=PROMPT, stream=True))
            first: Any = [
                t.function.name
                for ch in chunks
                for t in (ch.choices[0].delta.tool_calls or [] if ch.choices else [])
                if t.function and t.function.name
            ]
            chunks = list(c.chat.completions.create(model="m", messages=PROMPT, stream=True))
            second: Any = "".join(ch.choices[0].delta.content or "" for ch in chunks if ch.choices)
            return [first, second]
        one = c.chat.completions.create(model="m", messages=PROMPT)
        two = c.chat.completions.create(model="m", messages=PROMPT)
    calls = one.choices[0].message.tool_calls or []
    return [[t.function.name for t in calls], two.choices[0].message.content]  # type: ignore[union-attr]


@pytest.mark.parametrize("stream", [False, True], ids=["buffered", "streamed"])
def test_replies_sequence_of_llm_replies(server: mockhttp.Server, stream: bool) -> None:
    """``replies(openai_chat(tool_calls=…), openai_chat("…"))``: the first call gets the tool
    call, the second the text, each in the form the request asked for."""
    server.mock(
        mockhttp.post("/v1/chat/completions").replies(
            llm.openai_chat(tool_calls=[CALL]), llm.openai_chat("It is 18 °C.")
        )
    )
    assert tool_loop(server, stream) == [["get_weather"], "It is 18 °C."]


def test_replies_mixes_fixed_and_llm_replies_with_faults(server: mockhttp.Server) -> None:
    """A fixed 503 then an LLM reply with its own fault; the faults stay with their reply."""
    server.mock(
        mockhttp.post("/v1/chat/completions").replies(
            mockhttp.status(503),
            (llm.openai_chat("Hello there"), [fault.close_after_events(2)]),
            llm.openai_chat("whole"),
        )
    )
    body = {"model": "m", "stream": True, "messages": []}
    with httpx.Client(base_url=server.url) as http:
        assert http.post("/v1/chat/completions", json=body).status_code == 503
        got: list[bytes] = []
        cut = http.send(http.build_request("POST", "/v1/chat/completions", json=body), stream=True)
        with pytest.raises(httpx.RemoteProtocolError):
            got.extend(cut.iter_raw())
        cut.close()
        whole = http.post("/v1/chat/completions", json=body)
    assert b"".join(got).count(b"data:") == 2
    assert whole.text.endswith("data: [DONE]\n\n")
    assert '"content":"whole"' in whole.text


def test_replies_of_llm_replies_in_a_file_round_trip(server: mockhttp.Server) -> None:
    """``replies:`` in a file takes reply kinds; ``to_yaml`` writes them back the same."""
    text = """\
request: {method: POST, path: /v1/chat/completions}
replies:
  - openai_chat: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - openai_chat: It is 18 °C.
  - status: 500
exhausted: unmatched
"""
    (mock,) = mockhttp.loads(text)
    assert mockhttp.loads(mock.to_yaml()) == [mock]
    server.mock(mock)
    assert tool_loop(server, stream=False) == [["get_weather"], "It is 18 °C."]
    with httpx.Client(base_url=server.url) as http:
        assert http.post("/v1/chat/completions", json={}).status_code == 500
        assert http.post("/v1/chat/completions", json={}).status_code == 404
    server.reset()


def test_replies_refuses_what_is_no_reply() -> None:
    """A value that is neither a reply nor a reply kind is refused when the mock is built."""
    with pytest.raises(ConfigError, match=r"replies\(\) argument 1='Hi' must be a Reply, a reply"):
        mockhttp.post("/v1/chat/completions").replies(llm.openai_chat("a"), "Hi")  # type: ignore[arg-type]


def test_respond_with_handler_returns_an_llm_reply(server: mockhttp.Server) -> None:
    """A handler that returns ``llm.openai_chat(...)`` answers with it, built for the same
    request (streamed here, as the request asks)."""

    def answer(request: Request) -> llm.OpenAIChat:
        prompt = request.json()["messages"][-1]["content"]
        return llm.openai_chat(f"You said: {prompt}")

    server.mock(mockhttp.post("/v1/chat/completions").respond_with(answer))
    with client(server) as c:
        chunks = c.chat.completions.create(model="m", messages=PROMPT, stream=True)
        text = "".join(ch.choices[0].delta.content or "" for ch in chunks if ch.choices)
    assert text == "You said: Weather in Paris?"
    server.check()


def test_respond_with_handler_returning_junk_is_a_500_and_check_fails(
    server: mockhttp.Server,
) -> None:
    """Anything else than a reply or a reply kind: a 500, and ``check()`` says what came."""
    server.mock(mockhttp.post("/v1/x").respond_with(lambda r: "text"))  # type: ignore[arg-type,return-value]
    with httpx.Client(base_url=server.url) as http:
        assert http.post("/v1/x").status_code == 500
    with pytest.raises(Exception, match="returned 'text', not a Reply nor a reply kind"):
        server.check()
    server.reset()


def test_scenario_of_llm_replies_from_a_file(server: mockhttp.Server) -> None:
    """Two LLM mocks in one scenario: the first answers in ``Started`` and moves it on."""
    text = """\
- request: {method: POST, path: /v1/chat/completions}
  scenario: {name: agent, state: Started, next_state: answered}
  response: {openai_chat: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}}
- request: {method: POST, path: /v1/chat/completions}
  scenario: {name: agent, state: answered}
  response: {openai_chat: It is 18 °C.}
"""
    for mock in mockhttp.loads(text):
        server.mock(mock)
    assert tool_loop(server, stream=True) == [["get_weather"], "It is 18 °C."]
    assert server.scenario_state("agent") == "answered"
