"""Agent frameworks looping over a conversation to the final answer, on the wire."""

from __future__ import annotations

import asyncio
import gc
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import pytest

import mockhttp
from mockhttp import llm

SCRIPT = llm.conversation(
    llm.turn(tool_calls=[llm.tool_call("get_weather", {"city": "Paris"})]),
    llm.turn(
        "It is 18 °C in Paris.",
        expect={
            "tool_result": {"name": "get_weather", "content": "18"},
            "tool_offered": "get_weather",
        },
    ),
    name="weather-agent",
)


@pytest.fixture(autouse=True)
def _collect_the_frameworks_leftovers() -> Iterator[None]:
    """The frameworks leave their own HTTP clients and event loops to the collector:
    collect them here, their ResourceWarnings silenced (they are not mockhttp's)."""
    yield
    hook = sys.unraisablehook
    sys.unraisablehook = lambda _: None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            gc.collect()
    finally:
        sys.unraisablehook = hook


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"18 °C in {city}"


def test_pydantic_ai_agent() -> None:
    """pydantic-ai (OpenAI chat model) runs the tool and returns the scripted answer."""
    pytest.importorskip("pydantic_ai")
    import openai
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    async def run(url: str) -> str:
        async with openai.AsyncOpenAI(base_url=url + "/v1", api_key="sk-test") as client:
            provider = OpenAIProvider(openai_client=client)
            agent = Agent(OpenAIChatModel("gpt-4o", provider=provider), tools=[get_weather])
            return (await agent.run("Weather in Paris?")).output

    with mockhttp.Server() as server:
        server.mock(SCRIPT)
        assert asyncio.run(run(server.url)) == "It is 18 °C in Paris."
        server.check()


def test_openai_agents_sdk() -> None:
    """openai-agents (Responses API) runs the tool and returns the scripted answer."""
    pytest.importorskip("agents")
    import openai
    from agents import Agent, OpenAIResponsesModel, Runner, function_tool, set_tracing_disabled

    set_tracing_disabled(True)

    async def run(url: str) -> Any:
        async with openai.AsyncOpenAI(base_url=url + "/v1", api_key="sk-test") as client:
            model = OpenAIResponsesModel("gpt-4o", openai_client=client)
            agent = Agent(name="weather", model=model, tools=[function_tool(get_weather)])
            return (await Runner.run(agent, "Weather in Paris?")).final_output

    with mockhttp.Server() as server:
        server.mock(SCRIPT)
        assert asyncio.run(run(server.url)) == "It is 18 °C in Paris."
        server.check()


def test_openai_agents_sdk_meets_the_loop_guard_with_repeat_last() -> None:
    """A last turn that keeps calling a tool (``repeat_last``): each answer has fresh call
    ids, so openai-agents runs every call and the guard stops it at turn 3 with a clear
    400 (repeated ids were dropped by the SDK: it ran out of turns, never told why)."""
    pytest.importorskip("agents")
    import openai
    from agents import Agent, OpenAIResponsesModel, Runner, function_tool, set_tracing_disabled

    set_tracing_disabled(True)
    polling = llm.conversation(
        llm.turn(tool_calls=[llm.tool_call("get_weather", {"city": "Paris"})]),
        repeat_last=True,
        max_repeats=2,
        name="poll",
    )

    async def run(url: str) -> Any:
        async with openai.AsyncOpenAI(
            base_url=url + "/v1", api_key="sk-test", max_retries=0
        ) as client:
            model = OpenAIResponsesModel("gpt-4o", openai_client=client)
            agent = Agent(name="weather", model=model, tools=[function_tool(get_weather)])
            return await Runner.run(agent, "Weather in Paris?", max_turns=8)

    with mockhttp.Server() as server:
        server.mock(polling)
        with pytest.raises(openai.BadRequestError, match="the agent is looping"):
            asyncio.run(run(server.url))
        assert len(server.journal) == 3
        with pytest.raises(llm.ConversationError, match="turn 3: the agent is looping"):
            server.check()


def test_langchain_openai_tool_loop() -> None:
    """LangChain's ChatOpenAI with a bound tool, looped by hand to the final answer."""
    pytest.importorskip("langchain_openai")
    import openai
    from langchain_core.messages import HumanMessage, ToolMessage
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    weather = tool(get_weather)
    # our own HTTP client, closed at the end: ChatOpenAI's default one is cached for the
    # process, its pooled connection to this (stopped) server left open
    with mockhttp.Server() as server, openai.DefaultHttpxClient() as http:
        server.mock(SCRIPT)
        model = ChatOpenAI(
            model="gpt-4o",
            base_url=server.url + "/v1",
            api_key=SecretStr("sk-test"),
            http_client=http,
        )
        bound = model.bind_tools([weather])
        messages: list[Any] = [HumanMessage("Weather in Paris?")]
        while True:
            answer = bound.invoke(messages)
            messages.append(answer)
            if not answer.tool_calls:
                break
            for call in answer.tool_calls:
                messages.append(ToolMessage(weather.invoke(call["args"]), tool_call_id=call["id"]))
        assert answer.content == "It is 18 °C in Paris."
        server.check()
