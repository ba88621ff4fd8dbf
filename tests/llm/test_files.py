"""LLM replies in mock files (load, errors, dump round trip) and against the contract rules."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import replace

import httpx
import pytest

import mockhttp
from mockhttp import llm
from mockhttp.contract import check, record

REPLIES = [
    llm.openai_chat("Hello, world"),
    llm.openai_chat(
        ["He", "llo"],
        tool_calls=[{"name": "f", "arguments": {"a": [1, 2]}, "id": "call_1"}],
        usage={"prompt_tokens": 3},
        ttft="300ms",
        chunks_per_second=40,
        jitter=0.2,
        seed=7,
        error="rate_limit",
        error_after=1,
        error_style="openrouter",
        headers={"x-test": "1"},
        system_fingerprint=None,
    ),
    llm.openai_responses("Hi", model="gpt-4.1", id="resp_1"),
    llm.anthropic_messages("Hi", thinking="Hmm", stop_reason="max_tokens", chunk_size=2),
    llm.gemini("Hi", finish_reason="MAX_TOKENS", tool_calls=[{"name": "g", "arguments": "{}"}]),
    llm.models(["a", "b"]),
    llm.models(),
]


@pytest.mark.parametrize("kind", REPLIES, ids=lambda k: k.file_key)
def test_dump_round_trip(kind: mockhttp.ReplyKind) -> None:
    """loads(dump(mock)) == [mock] for each reply kind, faults included."""
    mock = mockhttp.post("/v1/x", name="llm").reply(kind).pipe(mockhttp.fault.limit_data(10))
    text = mockhttp.dump(mock)
    assert mockhttp.loads(text) == [mock]
    assert f"  {kind.file_key}:" in text


def test_file_forms_load_as_the_python_ones() -> None:
    text = textwrap.dedent("""\
        request: {method: POST, path: /v1/chat/completions}
        response:
          openai_chat:
            text: [Hel, "lo"]
            tool_calls:
              - {name: get_weather, arguments: {city: Paris}}
            ttft: 300ms
            chunks_per_second: 40
        ---
        response: {anthropic_messages: Hi}
        ---
        response: {models: [a, b]}
        """)
    chat, anthropic, models = mockhttp.loads(text)
    assert chat.kind == llm.openai_chat(
        ["Hel", "lo"],
        tool_calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}],
        ttft=0.3,
        chunks_per_second=40,
    )
    assert anthropic.kind == llm.anthropic_messages("Hi")
    assert models.kind == llm.models(["a", "b"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "response:\n  openai_chat:\n    text: Hi\n    finish_reason: done\n",
            "f.yaml:4:20 at response.openai_chat.finish_reason: finish_reason='done' must be",
        ),
        (
            "response:\n  openai_chat:\n    txt: Hi\n",
            "f.yaml:3:5 at response.openai_chat.txt: unknown key 'txt' — did you mean 'text'?",
        ),
        (
            "response:\n  openai_chta: {text: Hi}\n",
            "f.yaml:2:3 at response.openai_chta: unknown response key 'openai_chta' — did you mean "
            "'openai_chat'?",
        ),
        (
            "response:\n  openai_chat: Hi\n  status: 200\n",
            "f.yaml:3:3 at response.status: unknown key 'status'\n  expected one of: "
            "openai_chat, pipe",
        ),
        (
            "response:\n  gemini:\n    tool_calls:\n      - {name: f, args: {}}\n",
            "f.yaml:4:7 at response.gemini.tool_calls: tool_calls[0] has unknown key 'args'",
        ),
        (
            "response:\n  openai_chat: {chunks_per_second: fast}\n",
            "f.yaml:2:36 at response.openai_chat.chunks_per_second: found text 'fast', "
            "expected a number",
        ),
    ],
    ids=["value", "key", "kind", "mixed", "nested", "type"],
)
def test_file_errors_name_line_and_field(text: str, message: str) -> None:
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.loads(text, "f.yaml")
    assert str(caught.value).startswith(message), str(caught.value)


def test_the_core_finds_the_kinds_without_importing_llm() -> None:
    """A fresh interpreter loads an openai_chat mock file: the entry point imports llm."""
    code = textwrap.dedent("""\
        import sys
        import mockhttp
        assert "mockhttp.llm" not in sys.modules
        [mock] = mockhttp.loads("response: {openai_chat: Hi}")
        print(type(mock.kind).__module__)
        """)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.strip() == "mockhttp.llm._openai_chat"


def test_core_modules_do_not_import_llm() -> None:
    """No core module imports llm (the entry point in pyproject.toml is the only link)."""
    import re
    from pathlib import Path

    core = Path(mockhttp.__file__).parent
    for path in core.glob("*.py"):
        assert not re.search(r"^\s*(from|import)\s+\S*llm", path.read_text(), re.M), path


# -- the contract profiles -------------------------------------------------------------------

CHAT = "/v1/chat/completions"
CHAT_REQUEST = {"model": "gpt-4o", "stream": True, "messages": [{"role": "user", "content": "x"}]}
CHAT_CASES = {
    "text": llm.openai_chat("Hello, world"),
    "tools": llm.openai_chat("Let me look.", tool_calls=[
        {"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"y": "z"}}]),
    "refusal": llm.openai_chat(refusal="No."),
    "length": llm.openai_chat("Cut", finish_reason="length", chunk_size=1),
}  # fmt: skip


@pytest.mark.parametrize("usage", [False, True], ids=["plain", "include_usage"])
@pytest.mark.parametrize("case", CHAT_CASES)
def test_openai_chat_reference_passes_its_profiles(
    server: mockhttp.Server, case: str, usage: bool
) -> None:
    """openai-chat and stream-equals-buffered find nothing, usage asked for or not (the
    reference usage chunk's empty choices list draws no note)."""
    server.mock(mockhttp.post(CHAT).reply(CHAT_CASES[case]))
    request = {**CHAT_REQUEST, "stream_options": {"include_usage": True}} if usage else CHAT_REQUEST
    transcript = record(server.url + CHAT, request, timeout=10)
    buffered = httpx.post(server.url + CHAT, json={**request, "stream": False}).json()
    transcript = replace(transcript, buffered=buffered)
    found = [f.rule for f in check(transcript, ["openai-chat", "stream-equals-buffered"])]
    assert found == []


@pytest.mark.parametrize(
    "kind",
    [
        llm.anthropic_messages("Hello, world"),
        llm.anthropic_messages(
            "Hmm", thinking="Think", tool_calls=[{"name": "f", "arguments": {}}]
        ),
    ],
    ids=["text", "thinking-tools"],
)
def test_anthropic_reference_passes_its_profile(
    server: mockhttp.Server, kind: llm.AnthropicMessages
) -> None:
    server.mock(mockhttp.post("/v1/messages").reply(kind))
    request = {"model": "c", "max_tokens": 9, "stream": True, "messages": []}
    transcript = record(server.url + "/v1/messages", request, timeout=10)
    buffered = httpx.post(server.url + "/v1/messages", json={**request, "stream": False}).json()
    found = check(replace(transcript, buffered=buffered), "anthropic-messages")
    assert found == []  # the one ping after the first block starts is Anthropic's own


_YAML = {"Content-Type": "application/yaml"}


def test_admin_api_adds_and_lists_an_llm_mock() -> None:
    """A reply kind added over the admin API answers, and is listed in its file form."""
    text = "name: chat\nrequest: {path: /v1/chat/completions}\nresponse: {openai_chat: Hi}\n"
    with mockhttp.Server(admin=True) as server, httpx.Client(base_url=server.url) as client:
        assert client.post("/__mockhttp/mocks", content=text, headers=_YAML).status_code == 201
        answer = client.post("/v1/chat/completions", json={"model": "m1"}).json()
        assert answer["choices"][0]["message"]["content"] == "Hi"
        assert answer["model"] == "m1"
        [listed] = client.get("/__mockhttp/mocks").json()["mocks"]
        assert listed["mock"]["response"] == {"openai_chat": {"text": "Hi"}}
