"""50 agents at once against ``mockhttp serve --workers 2``: each runs the whole tool loop
(a tool call, the tool's result sent back, the answer) and gets its own turns in order,
whichever worker takes each of its connections (wire: real processes, the openai SDK)."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import httpx
import httpx2  # the openai SDK's own httpx
import openai
import pytest

from tests.helpers.cli_process import ROOT, Serving

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT spreads connections on Linux"
)

AGENTS = 50
SCRIPT = ROOT / "scripts/node/weather.yaml"  # the script the Node agents follow too
TOOLS: Any = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


async def _chat_agent(client: openai.AsyncOpenAI, n: int) -> list[str]:
    """The tool loop on Chat Completions (streamed for odd ``n``); what each turn was."""
    messages: list[Any] = [{"role": "user", "content": f"agent {n}: weather in Paris?"}]
    seen: list[str] = []
    for _ in range(2):
        message = await _ask(client, messages, stream=n % 2 == 1)
        calls = message.get("tool_calls") or []
        seen += [f"call {c['function']['name']} {c['id']}" for c in calls] or [
            f"text {message['content']}"
        ]
        messages.append(message)
        messages += [
            {"role": "tool", "tool_call_id": c["id"], "content": f"18 °C (agent {n})"}
            for c in calls
        ]
        if not calls:
            return seen
    return seen


async def _ask(client: openai.AsyncOpenAI, messages: list[Any], stream: bool) -> dict[str, Any]:
    """One turn: the assistant message, put together from the stream when streamed."""
    if not stream:
        done = await client.chat.completions.create(model="m", messages=messages, tools=TOOLS)
        return done.choices[0].message.model_dump(exclude_none=True)
    text, calls = "", dict[int, dict[str, Any]]()
    chunks = await client.chat.completions.create(
        model="m", messages=messages, tools=TOOLS, stream=True
    )
    async for chunk in chunks:
        delta = chunk.choices[0].delta if chunk.choices else None
        text += (delta and delta.content) or ""
        for part in (delta and delta.tool_calls) or []:
            call = calls.setdefault(part.index, {"type": "function", "function": {}})
            call["id"] = part.id or call.get("id")
            fn = part.function
            if fn is not None and fn.name:
                call["function"]["name"] = fn.name
            args = call["function"].get("arguments", "")
            call["function"]["arguments"] = args + ((fn and fn.arguments) or "")
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message


async def _all(url: str) -> list[list[str]]:
    """The agents at once, over one pool of up to AGENTS connections (the kernel hands
    each new connection to one worker or the other)."""
    limits = httpx2.Limits(max_connections=AGENTS, max_keepalive_connections=AGENTS)
    async with openai.AsyncOpenAI(
        base_url=url + "/v1",
        api_key="sk-test",
        max_retries=0,
        http_client=openai.DefaultAsyncHttpxClient(limits=limits, timeout=10),
    ) as client:
        return await asyncio.gather(*(_chat_agent(client, n) for n in range(AGENTS)))


def test_fifty_agents_under_two_workers_each_get_their_own_turns_in_order() -> None:
    """Every agent gets turn 1 (the tool call, with the script's call id) then turn 2
    (the text, its tool result accepted); both workers answered; no request was refused."""
    with Serving(str(SCRIPT), "--workers", "2", "--quiet") as serving:
        serving.wait_for_log("with 2 workers")
        seen = asyncio.run(_all(serving.url))
        journal = httpx.get(serving.url + "/__mockhttp/journal").json()["calls"]
        assert serving.stop() == 0
    call_ids = {turns[0].rsplit(" ", 1)[1] for turns in seen}
    assert len(call_ids) == 1
    (call_id,) = call_ids
    assert call_id.startswith("call_")
    expected = [f"call get_weather {call_id}", "text It is 18 °C in Paris."]
    assert seen == [expected] * AGENTS
    assert len(journal) == 2 * AGENTS
    assert {c["status"] for c in journal} == {200}
    assert {c["worker"] for c in journal} == {0, 1}  # 100 connections: both workers took some
    # each agent's second request carried its own tool result back, with the right call id
    tool_messages = [
        json.loads(c["request"]["body"])["messages"][-1] for c in journal if _turn(c) == 1
    ]
    assert sorted(m["content"] for m in tool_messages) == sorted(
        f"18 °C (agent {n})" for n in range(AGENTS)
    )
    assert {m["tool_call_id"] for m in tool_messages} == {call_id}


def _turn(call: dict[str, Any]) -> int:
    messages = json.loads(call["request"]["body"])["messages"]
    return sum(m["role"] == "assistant" for m in messages)
