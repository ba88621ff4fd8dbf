"""Conversation matchers (``llm.last_user_message`` and friends): an agent's tool loop in
each API, driven by the official SDK, each turn answered by the mock whose matcher reads
the request's history; the four shapes read alike; misses explained; the file form."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
import tomllib

import mockhttp
from mockhttp import ConfigError, Headers, MockfileError, Request, llm, match

CALL = {"name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_1"}
WEATHER_TOOL: dict[str, Any] = {
    "name": "get_weather",
    "description": "The weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
ROOT = Path(__file__).parents[2]
FIRST = llm.turn_index(0) & llm.tool_offered("get_weather")
ANSWERED = llm.tool_result(name="get_weather", content=match.contains("18"))


def request(body: Any, path: str = "/v1/chat/completions") -> Request:
    return Request("POST", path, Headers(()), json.dumps(body).encode())


def agent_mocks(server: mockhttp.Server, path: Any, kind: Any) -> None:
    """Turn 0 (tools offered): a tool call; the turn that brings the result back: text."""
    server.mock(mockhttp.post(path, name="turn-0").body(FIRST).reply(kind(tool_calls=[CALL])))
    server.mock(mockhttp.post(path, name="turn-1").body(ANSWERED).reply(kind("18 °C in Paris.")))


# -- the tool loop, in each API, with its SDK --------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["buffered", "streamed"])
def test_openai_chat_tool_loop(
    server: mockhttp.Server, openai_client: openai.OpenAI, stream: bool
) -> None:
    """Chat Completions: the assistant's tool_calls message and a ``tool`` message."""
    agent_mocks(server, "/v1/chat/completions", llm.openai_chat)
    client = openai_client
    tools: Any = [{"type": "function", "function": WEATHER_TOOL}]
    messages: list[Any] = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Weather in Paris?"},
    ]
    first = client.chat.completions.create(model="m", messages=messages, tools=tools)
    calls = first.choices[0].message.tool_calls or []
    assert [c.function.name for c in calls] == ["get_weather"]  # type: ignore[union-attr]
    messages.append(first.choices[0].message.model_dump(exclude_none=True))
    messages.append({"role": "tool", "tool_call_id": calls[0].id, "content": "18 °C"})
    if stream:
        chunks = client.chat.completions.create(
            model="m", messages=messages, tools=tools, stream=True
        )
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    else:
        done = client.chat.completions.create(model="m", messages=messages, tools=tools)
        text = done.choices[0].message.content or ""
    assert text == "18 °C in Paris."
    assert [c.mock and c.mock.name for c in server.journal] == ["turn-0", "turn-1"]


def test_openai_responses_tool_loop(server: mockhttp.Server, openai_client: openai.OpenAI) -> None:
    """Responses: a ``function_call`` output item, then a ``function_call_output``."""
    agent_mocks(server, "/v1/responses", llm.openai_responses)
    client = openai_client
    tools: Any = [{"type": "function", **WEATHER_TOOL}]
    items: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.responses.create(model="m", input=items, tools=tools, instructions="Terse.")
    (call,) = [o for o in first.output if o.type == "function_call"]
    items += [call.model_dump(exclude_none=True)]
    items += [{"type": "function_call_output", "call_id": call.call_id, "output": "18 °C"}]
    done = client.responses.create(model="m", input=items, tools=tools, instructions="Terse.")
    assert done.output_text == "18 °C in Paris."
    assert [c.mock and c.mock.name for c in server.journal] == ["turn-0", "turn-1"]


def test_anthropic_tool_loop(
    server: mockhttp.Server, anthropic_client: anthropic.Anthropic
) -> None:
    """Anthropic: a ``tool_use`` block, then a user message of ``tool_result`` blocks."""
    agent_mocks(server, "/v1/messages", llm.anthropic_messages)
    client = anthropic_client
    tools: Any = [{"name": "get_weather", "input_schema": WEATHER_TOOL["parameters"]}]
    messages: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]
    first = client.messages.create(
        model="claude", max_tokens=100, system="Terse.", messages=messages, tools=tools
    )
    (use,) = [b for b in first.content if b.type == "tool_use"]
    messages.append({"role": "assistant", "content": [b.model_dump() for b in first.content]})
    result = {"type": "tool_result", "tool_use_id": use.id, "content": "18 °C"}
    messages.append({"role": "user", "content": [result]})
    with client.messages.stream(
        model="claude", max_tokens=100, system="Terse.", messages=messages, tools=tools
    ) as stream:
        text = "".join(stream.text_stream)
    assert text == "18 °C in Paris."
    assert [c.mock and c.mock.name for c in server.journal] == ["turn-0", "turn-1"]


def test_gemini_tool_loop(server: mockhttp.Server) -> None:
    """Gemini: a ``model`` content with a ``functionCall``, then a ``functionResponse``."""
    from google import genai
    from google.genai import types

    path = match.regex(r"^/v1(beta)?/models/[^/]+:(stream)?[gG]enerateContent$")
    agent_mocks(server, path, llm.gemini)
    options = types.HttpOptions(base_url=server.url, api_version="v1beta")
    tool = types.Tool(function_declarations=[types.FunctionDeclaration(**WEATHER_TOOL)])
    config = types.GenerateContentConfig(tools=[tool], system_instruction="Terse.")
    contents: list[Any] = [types.Content(role="user", parts=[types.Part(text="Weather?")])]
    with genai.Client(api_key="k", http_options=options) as client:
        first = client.models.generate_content(model="gemini-x", contents=contents, config=config)
        assert first.candidates is not None
        assert first.candidates[0].content is not None
        contents.append(first.candidates[0].content)
        answer = types.Part.from_function_response(name="get_weather", response={"temp": "18 °C"})
        contents.append(types.Content(role="user", parts=[answer]))
        done = client.models.generate_content(model="gemini-x", contents=contents, config=config)
    assert done.text == "18 °C in Paris."
    assert [c.mock and c.mock.name for c in server.journal] == ["turn-0", "turn-1"]
    assert server.journal[1].request.json()["systemInstruction"]["parts"][0]["text"] == "Terse."


# -- the four shapes read alike ------------------------------------------------------------

SHAPES: dict[str, tuple[str, Any]] = {
    "chat": (
        "/v1/chat/completions",
        {
            "messages": [
                {"role": "developer", "content": "Be brief."},
                {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "c1", "type": "function", "function": {"name": "get_weather"}}
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "18 °C"},
            ],
            "tools": [{"type": "function", "function": {"name": "get_weather"}}],
        },
    ),
    "responses": (
        "/v1/responses",
        {
            "instructions": "Be brief.",
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "Weather in Paris?"}]},
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "function_call", "call_id": "c1", "name": "get_weather"},
                {"type": "function_call_output", "call_id": "c1", "output": "18 °C"},
            ],
            "tools": [{"type": "function", "name": "get_weather"}],
        },
    ),
    "anthropic": (
        "/v1/messages",
        {
            "system": [{"type": "text", "text": "Be brief."}],
            "messages": [
                {"role": "user", "content": "Weather in Paris?"},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "hm", "signature": "s"},
                        {"type": "tool_use", "id": "c1", "name": "get_weather", "input": {}},
                    ],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "18 °C"}],
                },
            ],
            "tools": [{"name": "get_weather", "input_schema": {}}],
        },
    ),
    "gemini": (
        "/v1beta/models/g:generateContent",
        {
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
            "contents": [
                {"role": "user", "parts": [{"text": "Weather in Paris?"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "get_weather"}}]},
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"name": "get_weather", "response": {"t": "18 °C"}}}
                    ],
                },
            ],
            "tools": [{"functionDeclarations": [{"name": "get_weather"}]}],
        },
    ),
}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("sent_to", ["its path", "another path"])
def test_each_shape_reads_alike(shape: str, sent_to: str) -> None:
    """The same conversation in each API's shape: the same answers from every matcher,
    read off the path or, sent elsewhere, off the body alone."""
    path, body = SHAPES[shape]
    r = request(body, path if sent_to == "its path" else "/proxy")
    for m in (
        llm.last_user_message("Weather in Paris?"),
        llm.system_prompt("Be brief."),
        llm.turn_index(1),
        llm.tool_offered("get_weather"),
        llm.tool_result(name="get_weather", content=match.contains("18")),
        llm.tool_result(call_id="c1") if shape != "gemini" else llm.tool_result(),
    ):
        assert m.explain(r) is None, (m, m.explain(r))
    assert not llm.turn_index(0).matches(r)
    assert not llm.tool_offered("get_time").matches(r)


def test_turn_with_parallel_calls_counts_once_and_a_new_prompt_is_the_last_message() -> None:
    """An assistant message then its parallel tool calls' items are one turn; the user's
    new prompt after a whole turn is the last user message, and no result is latest."""
    body = {
        "input": [
            {"role": "user", "content": "Weather and time?"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text"}]},
            {"type": "function_call", "call_id": "a", "name": "get_weather"},
            {"type": "function_call", "call_id": "b", "name": "get_time"},
            {"type": "function_call_output", "call_id": "a", "output": "18"},
            {"type": "function_call_output", "call_id": "b", "output": "noon"},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text"}]},
            {"role": "user", "content": "Thanks. And Rome?"},
        ]
    }
    r = request(body, "/v1/responses")
    assert llm.turn_index(2).matches(r)
    assert llm.last_user_message(match.ends_with("Rome?")).matches(r)
    assert not llm.tool_result(name="get_time").matches(r)
    assert llm.tool_result(name="get_time", content="noon", anywhere=True).matches(r)


def test_last_user_message_tells_turn_two_from_turn_one() -> None:
    """The issue's trap: turn 2's history holds turn 1's prompt, so a regex on the body
    matches both; ``last_user_message`` reads only the newest."""
    one = {"messages": [{"role": "user", "content": "weather?"}]}
    two = {
        "messages": [
            *one["messages"],
            {"role": "assistant", "content": "Sunny."},
            {"role": "user", "content": "and tomorrow?"},
        ]
    }
    body_regex = match.regex("weather")
    assert body_regex.matches(request(one))
    assert body_regex.matches(request(two))
    newest = llm.last_user_message(match.contains("weather"))
    assert newest.matches(request(one))
    assert not newest.matches(request(two))


# -- misses explain themselves --------------------------------------------------------------


def test_misses_say_what_the_conversation_held() -> None:
    """Each matcher's miss names the part it read and what was there."""
    r = request(SHAPES["chat"][1])
    assert llm.last_user_message(match.contains("Rome")).explain(r) == (
        "last user message: got 'Weather in Paris?', expected contains('Rome')"
    )
    assert llm.system_prompt("x").explain(request({"messages": []})) == (
        "system prompt: got nothing (absent), expected 'x'"
    )
    assert llm.turn_index(0).explain(r) == "turn index: got 1, expected 0"
    assert llm.tool_offered("get_time").explain(r) == (
        "tools offered: got ['get_weather'], expected one named equal('get_time')"
    )
    assert llm.tool_result(content=match.contains("19")).explain(r) == (
        "tool results: got get_weather (c1): '18 °C' (since the last assistant turn),"
        " expected tool_result(content=contains('19'))"
    )
    first = request({"messages": [{"role": "user", "content": "Hi"}]})
    assert llm.tool_result(name="get_weather").explain(first) == (
        "tool results: got none since the last assistant turn,"
        " expected tool_result(name='get_weather')"
    )
    assert llm.turn_index(0).explain(Request("POST", "/", Headers(()), b"nope")) == (
        "turn index: body is not JSON (got 'nope')"
    )


def test_unmatched_request_report_shows_the_miss(server: mockhttp.Server) -> None:
    """The 404 of an unmatched request carries the conversation matcher's explanation."""
    import httpx

    server.mock(
        mockhttp.post("/v1/chat/completions").body(llm.turn_index(0)).reply(llm.openai_chat())
    )
    body = SHAPES["chat"][1]
    got = httpx.post(server.url + "/v1/chat/completions", json=body)
    assert got.status_code == 404
    assert "body: turn index: got 1, expected 0" in got.text
    server.reset()


def test_bad_arguments_fail_when_built() -> None:
    """Arguments are checked when the matcher is built."""
    with pytest.raises(ConfigError, match=r"turn_index\(\) n=-1 must be a non-negative int"):
        llm.turn_index(-1)
    with pytest.raises(ConfigError, match=r"tool_offered\(\) name=3 must be a tool name"):
        llm.tool_offered(3)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=r"anywhere='yes' must be True or False"):
        llm.tool_result(anywhere="yes")  # type: ignore[arg-type]


# -- mock files -------------------------------------------------------------------------------


def test_file_forms_round_trip() -> None:
    """Every conversation matcher has a file form that reads back the same."""
    text = """\
request:
  method: POST
  path: /v1/chat/completions
  body:
    - all_of
    - [last_user_message, [contains, weather]]
    - [system_prompt, [regex, '(?i)terse']]
    - [turn_index, 1]
    - [tool_offered, get_weather]
    - [tool_result, {name: get_weather, content: [contains, '18'], anywhere: true}]
response: {openai_chat: Done}
"""
    (mock,) = mockhttp.loads(text)
    assert mockhttp.loads(mock.to_yaml()) == [mock]
    assert mock.criteria[0].matcher.matches(
        request(
            {
                "messages": [
                    {"role": "system", "content": "Be TERSE"},
                    {"role": "user", "content": "weather?"},
                    {
                        "role": "assistant",
                        "tool_calls": [{"id": "1", "function": {"name": "get_weather"}}],
                    },
                    {"role": "tool", "tool_call_id": "1", "content": "18"},
                ],
                "tools": [{"function": {"name": "get_weather"}}],
            }
        )
    )


def test_file_errors_are_placed() -> None:
    """A bad option of a conversation matcher fails at its line with a did-you-mean."""
    text = "request:\n  body: [tool_result, {nam: get_weather}]\n"
    with pytest.raises(MockfileError, match=r"2:\d+.*unknown option 'nam'.*did you mean 'name'"):
        mockhttp.loads(text)


def test_a_mock_file_loads_them_without_importing_llm(tmp_path: Path) -> None:
    """The ``mockhttp.matchers`` entry point, as pyproject.toml declares it: a fresh
    interpreter that imports only ``mockhttp`` reads ``last_user_message`` (the name's
    lookup imports ``mockhttp.llm``).  The entry point is installed from pyproject.toml
    into a dist-info of its own, so the test does not depend on the venv's install."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    group = pyproject["project"]["entry-points"]["mockhttp.matchers"]
    assert group == {"llm": "mockhttp.llm"}
    info = tmp_path / "mockhttp_matchers_probe-0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mockhttp-matchers-probe\n")
    lines = "".join(f"{k} = {v}\n" for k, v in group.items())
    (info / "entry_points.txt").write_text(f"[mockhttp.matchers]\n{lines}")
    code = (
        "import sys, mockhttp\n"
        "assert 'mockhttp.llm' not in sys.modules\n"
        "(m,) = mockhttp.loads('request: {body: [last_user_message, [contains, hi]]}')\n"
        "print(m.criteria[0].matcher)\n"
    )
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{tmp_path}"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "last_user_message(contains('hi'))\n"
