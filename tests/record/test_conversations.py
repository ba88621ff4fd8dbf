"""Recording conversations: streamed told from buffered, turn from turn, names unique.

Upstream is mockhttp itself (LLM replies), the client the openai SDK; the recordings are
written to a folder, loaded back into a fresh server and replayed to the same requests.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import openai

import mockhttp
from mockhttp import llm
from mockhttp._cli._main import main
from mockhttp.contract._live import openai_plan
from mockhttp.record import Recorder
from mockhttp.record._names import describe, numbered

CHAT = "/v1/chat/completions"
PROMPT: Any = [{"role": "user", "content": "What is the weather in Paris today, please?"}]
CALL = {"name": "get_weather", "arguments": {"city": "Paris"}}


def _client(url: str) -> openai.OpenAI:
    """An SDK client for the server at ``url`` (use it in ``with``: closed at the end)."""
    return openai.OpenAI(base_url=url + "/v1", api_key="sk-test", max_retries=0)


def _replay(folder: Path) -> mockhttp.Server:
    server = mockhttp.Server()
    for mock in mockhttp.load(folder):
        server.mock(mock)
    return server


def _record(tmp_path: Path, reply: Any, *asks: dict[str, Any]) -> list[str]:
    """Record ``asks`` against an upstream answering ``reply``; the recorded names."""
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post(CHAT).reply(reply))
        with Recorder(upstream.url, tmp_path) as recorder:
            for ask in asks:
                httpx.post(recorder.url + CHAT, json=ask).raise_for_status()
            recorder.wait(len(asks))
    return [m.name or "" for m in recorder.mocks]


def test_a_streamed_and_a_buffered_exchange_replay_each_with_its_own(tmp_path: Path) -> None:
    """The same prompt, recorded streamed then buffered (and the other order would do the
    same): replayed, the SDK streams the stream and gets the JSON for the buffered one."""
    ask = {"model": "gpt-test", "messages": PROMPT}
    names = _record(
        tmp_path, llm.openai_chat("Sunny."), {**ask, "stream": True}, {**ask, "stream": False}
    )
    assert names == [
        'openai chat stream "What is the weather in Paris" #1',
        'openai chat "What is the weather in Paris" #1',
    ]
    with _replay(tmp_path) as replay, _client(replay.url) as client:
        stream = client.chat.completions.create(model="gpt-test", messages=PROMPT, stream=True)
        chunks = list(stream)
        assert len(chunks) == 3  # role, text, finish
        assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Sunny."
        done = client.chat.completions.create(model="gpt-test", messages=PROMPT)
        assert done.choices[0].message.content == "Sunny."
        answered = [c.mock.name for c in replay.journal if c.mock is not None]
        assert answered == names


def test_the_buffered_recording_does_not_answer_a_stream(tmp_path: Path) -> None:
    """Only the buffered exchange recorded: a streamed request is not answered with JSON."""
    _record(tmp_path, llm.openai_chat("Sunny."), {"model": "gpt-test", "messages": PROMPT})
    with _replay(tmp_path) as replay:
        body = {"model": "gpt-test", "messages": PROMPT, "stream": True}
        assert httpx.post(replay.url + CHAT, json=body).status_code == 404


def test_turns_of_a_tool_loop_replay_in_their_turn(tmp_path: Path) -> None:
    """Turn 0 (the tool call) and turn 1 (after the tool result) share the user message;
    the recorded turn index tells them apart."""
    reply = mockhttp.post(CHAT).replies(
        llm.openai_chat(tool_calls=[{**CALL, "id": "call_1"}]), llm.openai_chat("18 °C.")
    )
    turn0 = {"model": "m", "messages": PROMPT}
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": "get_weather", "arguments": "{}"},
    }
    turn1 = {
        "model": "m",
        "messages": [
            *PROMPT,
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": "18"},
        ],
    }
    with mockhttp.Server() as upstream:
        upstream.mock(reply)
        with Recorder(upstream.url, tmp_path) as recorder:
            for ask in (turn0, turn1):
                httpx.post(recorder.url + CHAT, json=ask)
            recorder.wait(2)
    assert [m.name for m in recorder.mocks] == [
        'openai chat "What is the weather in Paris" #1',
        'openai chat "What is the weather in Paris" turn 1 #1',
    ]
    with _replay(tmp_path) as replay:
        second = httpx.post(replay.url + CHAT, json=turn1).json()
        first = httpx.post(replay.url + CHAT, json=turn0).json()
    assert second["choices"][0]["message"]["content"] == "18 °C."
    assert first["choices"][0]["message"]["tool_calls"][0]["function"]["name"] == "get_weather"


def test_names_are_unique_across_sessions_in_one_folder(tmp_path: Path) -> None:
    """A second recording session into the same folder numbers on (#2), never repeats."""
    ask = {"model": "gpt-test", "messages": PROMPT, "stream": True}
    _record(tmp_path, llm.openai_chat("a"), ask)
    again = _record(tmp_path, llm.openai_chat("b"), {**ask, "model": "other"})
    assert again == ['openai chat stream "What is the weather in Paris" #2']
    assert len({m.name for m in mockhttp.load(tmp_path)}) == 2


def test_describe_other_apis_and_plain_requests() -> None:
    def req(path: str, body: Any) -> mockhttp.Request:
        return mockhttp.Request("POST", path, body=json.dumps(body).encode())

    assert describe(req("/v1/responses", {"input": "Hi there", "stream": True})) == (
        'openai responses stream "Hi there"'
    )
    anthropic = {"messages": [{"role": "user", "content": "Yo"}], "system": "s"}
    assert describe(req("/v1/messages", anthropic)) == 'anthropic "Yo"'
    gemini = {"contents": [{"role": "user", "parts": [{"text": "Hey"}]}]}
    assert describe(req("/v1beta/models/g:streamGenerateContent", gemini)) == 'gemini stream "Hey"'
    assert describe(mockhttp.Request("GET", "/health")) == "GET /health"
    assert numbered("x", ["x #1", "x #3", "y #2"]) == "x #2"


def test_check_save_writes_distinct_mocks_per_exchange(tmp_path: Path) -> None:
    """``check --save``: the include_usage stream, the plain stream and the buffered answer
    are three mocks with three names, and each replays to its own request."""
    saved = tmp_path / "check.yaml"
    with mockhttp.Server() as server:
        server.mock(mockhttp.post(CHAT).reply(llm.openai_chat("One, two, three.")))
        assert main(["check", server.url, "--model", "gpt-test", "--save", str(saved)]) == 0
    mocks = mockhttp.load(saved)
    names = [m.name for m in mocks]
    prompt = 'openai chat stream "Count from one to five in words"'
    # the check sends the buffered request first, then the two streams
    assert names == [prompt.replace(" stream", "") + " #1", f"{prompt} #1", f"{prompt} #2"]
    with _replay(tmp_path) as replay:
        for label, ask in openai_plan("gpt-test").items():
            answer = httpx.post(replay.url + CHAT, json=ask)
            if label == "buffered":
                assert answer.json()["object"] == "chat.completion"
                continue
            events = [line for line in answer.text.split("\n\n") if '"usage":{' in line]
            assert bool(events) is (label == "stream with include_usage"), label
        answered = [c.mock.name for c in replay.journal if c.mock is not None]
        assert answered == [names[1], names[2], names[0]]  # in the plan's order
