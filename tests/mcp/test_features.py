"""Every server feature a client can meet, read by the official ``mcp`` Python SDK over
loopback: resource templates and blobs, completion, subscriptions and their updates,
content of every kind, structured output, log levels, pages, list changes on demand."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

import mockhttp
from mockhttp import mcp

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
)

Body = Callable[[ClientSession], Awaitable[Any]]


def run(kind: mcp.McpServer, body: Body, **session: Any) -> Any:
    """Run ``body`` in an initialized SDK session with a server serving ``kind``."""

    async def main(url: str) -> Any:
        with anyio.fail_after(15):
            async with (
                streamable_http_client(url) as (read, write),
                ClientSession(read, write, **session) as client,
            ):
                await client.initialize()
                return await body(client)

    with mockhttp.Server() as server:
        server.mock(kind.mock())
        return anyio.run(main, server.url + "/mcp")


def test_templates_blobs_and_completion() -> None:
    """A template is listed and read for any URI it matches, its variable filled in; a
    blob reads as bytes; completion offers a prompt argument's and a template variable's
    values that start with what was typed."""
    kind = mcp.McpServer(
        resources=[mcp.resource("test://logo", blob=PNG, mime_type="image/png")],
        templates=[
            mcp.template(
                "test://users/{id}/profile",
                '{"id": "{id}"}',
                mime_type="application/json",
                complete={"id": ["42", "43", "7"]},
            )
        ],
        prompts=[
            mcp.prompt(
                "greet",
                "Hello {who}",
                arguments=[{"name": "who", "complete": ["Alice", "Albert", "Bob"]}],
            )
        ],
    )

    async def body(client: ClientSession) -> Any:
        listed = await client.list_resource_templates()
        profile = await client.read_resource("test://users/42/profile")
        logo = await client.read_resource("test://logo")
        by_prompt = await client.complete(
            types.PromptReference(type="ref/prompt", name="greet"), {"name": "who", "value": "Al"}
        )
        by_template = await client.complete(
            types.ResourceTemplateReference(type="ref/resource", uri="test://users/{id}/profile"),
            {"name": "id", "value": "4"},
        )
        return listed, profile, logo, by_prompt, by_template

    listed, profile, logo, by_prompt, by_template = run(kind, body)
    assert [t.uri_template for t in listed.resource_templates] == ["test://users/{id}/profile"]
    assert profile.contents[0].text == '{"id": "42"}'
    assert str(profile.contents[0].uri) == "test://users/42/profile"
    assert base64.b64decode(logo.contents[0].blob) == PNG
    assert (by_prompt.completion.values, by_prompt.completion.total) == (["Alice", "Albert"], 2)
    assert by_template.completion.values == ["42", "43"]
    assert by_template.completion.has_more is False


def test_a_subscribed_resource_is_updated_when_the_test_says() -> None:
    """``kind.update(uri)`` tells the subscribed sessions, on their GET stream; after
    ``unsubscribe`` nobody is told."""
    kind = mcp.McpServer(resources=[mcp.resource("test://watched", "v1")])
    heard: list[str] = []
    told = anyio.Event()

    async def handler(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            heard.append(str(message.params.uri))
            told.set()

    async def body(client: ClientSession) -> Any:
        with pytest.warns(MCPDeprecationWarning):  # (2026-07-28 removed it; 2025-11-25 has it)
            await client.subscribe_resource("test://watched")
        counts = [await anyio.to_thread.run_sync(kind.update, "test://watched")]
        await told.wait()
        with pytest.warns(MCPDeprecationWarning):
            await client.unsubscribe_resource("test://watched")
        counts.append(await anyio.to_thread.run_sync(kind.update, "test://watched"))
        with (
            pytest.raises(MCPError, match="Resource not found"),
            pytest.warns(MCPDeprecationWarning),
        ):
            await client.subscribe_resource("test://nothing")
        return counts

    assert run(kind, body, message_handler=handler) == [1, 0]
    assert heard == ["test://watched"]


def test_content_of_every_kind_and_structured_output() -> None:
    """Tool results with image, audio, embedded-resource and resource-link blocks;
    prompts with image and embedded-resource messages; structured content under an
    ``outputSchema`` (which the SDK validates)."""
    schema = {"type": "object", "properties": {"temp": {"type": "number"}}, "required": ["temp"]}
    kind = mcp.McpServer(
        tools=[
            mcp.tool(
                "media",
                answers=[
                    mcp.answer(
                        "four kinds",
                        content=[
                            mcp.image(PNG),
                            mcp.audio(b"RIFF", "audio/wav"),
                            mcp.embedded("test://doc", "the doc"),
                            mcp.link("test://doc", "doc", mime_type="text/plain"),
                        ],
                    )
                ],
            ),
            mcp.tool(
                "weather", output_schema=schema, answers=[mcp.answer(structured={"temp": 21.5})]
            ),
        ],
        prompts=[
            mcp.prompt(
                "look",
                arguments=["uri"],
                messages=[
                    {"role": "user", "content": mcp.image(PNG)},
                    {"role": "user", "content": mcp.embedded("{uri}", "embedded text")},
                    {"role": "assistant", "content": mcp.text("Seen {uri}")},
                ],
            )
        ],
    )

    async def body(client: ClientSession) -> Any:
        tools = await client.list_tools()
        media = await client.call_tool("media", {})
        weather = await client.call_tool("weather", {})
        look = await client.get_prompt("look", {"uri": "test://x"})
        return tools, media, weather, look

    tools, media, weather, look = run(kind, body)
    assert [b.type for b in media.content] == [
        "text",
        "image",
        "audio",
        "resource",
        "resource_link",
    ]
    assert base64.b64decode(media.content[1].data) == PNG
    assert media.content[3].resource.text == "the doc"
    assert tools.tools[1].output_schema == schema
    assert weather.structured_content == {"temp": 21.5}
    assert weather.content[0].text == '{"temp": 21.5}'
    assert [m.content.type for m in look.messages] == ["image", "resource", "text"]
    assert str(look.messages[1].content.resource.uri) == "test://x"
    assert look.messages[2].content.text == "Seen test://x"


def test_log_level_filters_log_messages() -> None:
    """``logging/setLevel`` is kept per session: messages below it are not sent."""
    tool = mcp.tool(
        "chatty",
        answers=[mcp.answer("done", log=["info line", {"level": "warning", "data": "careful"}])],
    )
    kind = mcp.McpServer(tools=[tool])
    heard: list[tuple[str, Any]] = []

    async def logged(params: types.LoggingMessageNotificationParams) -> None:
        heard.append((params.level, params.data))

    async def body(client: ClientSession) -> Any:
        await client.call_tool("chatty", {})
        with pytest.warns(MCPDeprecationWarning):  # (2026-07-28 removed it; 2025-11-25 has it)
            await client.set_logging_level("warning")
        await client.call_tool("chatty", {})

    run(kind, body, logging_callback=logged)
    assert heard == [("info", "info line"), ("warning", "careful"), ("warning", "careful")]


def test_lists_come_in_pages() -> None:
    """With ``page_size``, every list method pages with ``nextCursor``; the SDK follows
    it to the end."""
    kind = mcp.McpServer(
        tools=[mcp.tool(f"t{i}") for i in range(5)],
        prompts=[mcp.prompt(f"p{i}") for i in range(3)],
        page_size=2,
    )

    async def body(client: ClientSession) -> Any:
        names, cursor, pages = [], None, 0
        while True:
            page = await client.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
            names += [t.name for t in page.tools]
            pages += 1
            cursor = page.next_cursor
            if cursor is None:
                break
        prompts = await client.list_prompts()
        with pytest.raises(MCPError, match="no such cursor"):
            await client.list_tools(params=types.PaginatedRequestParams(cursor="bogus"))
        return names, pages, [p.name for p in prompts.prompts], prompts.next_cursor

    names, pages, prompts, next_cursor = run(kind, body)
    assert (names, pages) == (["t0", "t1", "t2", "t3", "t4"], 3)
    assert (prompts, next_cursor is not None) == (["p0", "p1"], True)


def test_list_changed_on_demand_reaches_the_client() -> None:
    kind = mcp.McpServer(tools=[mcp.tool("a")])
    heard: list[str] = []
    told = anyio.Event()

    async def handler(message: Any) -> None:
        if isinstance(
            message, types.ToolListChangedNotification | types.PromptListChangedNotification
        ):
            heard.append(message.method)
            if len(heard) == 2:
                told.set()

    async def body(client: ClientSession) -> None:
        await client.list_tools()
        await anyio.to_thread.run_sync(kind.list_changed, "tools")
        await anyio.to_thread.run_sync(kind.list_changed, "prompts")
        await told.wait()

    run(kind, body, message_handler=handler)
    assert heard == ["notifications/tools/list_changed", "notifications/prompts/list_changed"]


def test_roots_are_asked_of_the_client() -> None:
    """``roots/list`` asked of the client during a call; the SDK's callback answers."""
    kind = mcp.McpServer(
        tools=[mcp.tool("where", answers=[mcp.answer("roots: {reply}", ask=[mcp.roots()])])]
    )

    async def roots(context: Any) -> types.ListRootsResult:
        root = types.Root.model_validate({"uri": "file:///work", "name": "work"})
        return types.ListRootsResult(roots=[root])

    async def body(client: ClientSession) -> Any:
        result: Any = await client.call_tool("where", {})
        return result.content[0].text

    assert run(kind, body, list_roots_callback=roots) == "roots: file:///work"
    assert kind.client_responses[0].method == "roots/list"
