"""The records of a mock MCP server, pure: content blocks, resources and templates,
prompts; each bad value named at its place, each record back to its data."""

from __future__ import annotations

import pytest

from mockhttp import ConfigError, mcp
from mockhttp.mcp._content import check_block


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ({"type": "video"}, "must be a content block with a type among text, image"),
        ({"type": "image", "data": "AA=="}, "a block of type image needs 'mimeType'"),
        ({"type": "audio", "data": "not base64!", "mimeType": "audio/wav"}, "must be base64 text"),
        ({"type": "resource", "resource": {"uri": "x"}}, "text or blob, one of them"),
        ({"type": "resource", "resource": "x"}, "must be resource contents"),
        ({"type": "resource_link", "uri": "x"}, "a block of type resource_link needs 'name'"),
    ],
)
def test_bad_blocks_say_what_they_lack(block: object, message: str) -> None:
    with pytest.raises(ConfigError, match=r"^content\[2\]") as caught:
        check_block(block, "content[2]")
    assert message in str(caught.value)


def test_block_constructors() -> None:
    assert mcp.image(b"\x89PNG") == {"type": "image", "data": "iVBORw==", "mimeType": "image/png"}
    assert mcp.audio("UklGRg==", "audio/ogg")["mimeType"] == "audio/ogg"
    assert mcp.embedded("u", blob=b"\x00") == {
        "type": "resource",
        "resource": {"uri": "u", "mimeType": "text/plain", "blob": "AA=="},
    }
    assert mcp.link("u", "n", description="d") == {
        "type": "resource_link",
        "uri": "u",
        "name": "n",
        "description": "d",
    }
    for block in (mcp.text("t"), mcp.image(b"x"), mcp.embedded("u", "t"), mcp.link("u", "n")):
        assert check_block(block, "b") == block


def test_a_template_matches_its_uris() -> None:
    one = mcp.template("test://t/{id}/data", "id={id}")
    assert one.match("test://t/123/data") == {"id": "123"}
    assert one.match("test://t/1/2/data") is None  # {id} is one segment
    assert one.match("test://t/123/data/x") is None
    assert one.contents("test://t/9/data", {"id": "9"})["text"] == "id=9"
    rest = mcp.template("file:///{+path}")
    assert rest.match("file:///a/b/c.txt") == {"path": "a/b/c.txt"}


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: mcp.template("t://{a}", complete={"b": ["x"]}), "complete: 'b' is no variable"),
        (lambda: mcp.template("t://{a}/{a}"), "is no URI template"),
        (lambda: mcp.resource("u", "text", blob=b"x"), "text or a blob, not both"),
        (lambda: mcp.resource("u", blob="@@"), "blob: '@@' must be base64 text"),
        (
            lambda: mcp.prompt("p", "t", messages=[{"role": "user", "content": mcp.text("x")}]),
            "not both",
        ),
        (
            lambda: mcp.prompt("p", messages=[{"role": "system", "content": mcp.text("x")}]),
            "messages[0].role",
        ),
        (
            lambda: mcp.prompt("p", arguments=[{"name": "a", "required": "yes"}]),
            "arguments[0].required",
        ),
        (
            lambda: mcp.prompt("p", arguments=[{"name": "a", "choices": []}]),
            "unknown key 'choices'",
        ),
        (lambda: mcp.Tool("t", output_schema=[]), "output_schema: [] must be a mapping"),  # type: ignore[arg-type]
        (
            lambda: mcp.answer(content=[{"type": "image"}]),
            "content[0]: a block of type image needs 'data'",
        ),
        (lambda: mcp.answer(progress=[{"total": 3}]), "progress[0]"),
    ],
)
def test_bad_records_are_named(make: object, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        make()  # type: ignore[operator]
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("option", "value"),
    [("page_size", 0), ("max_sessions", -1), ("max_batch", True), ("allow_hosts", "x")],
)
def test_bad_server_options(option: str, value: object) -> None:
    with pytest.raises(ConfigError, match=option):
        mcp.McpServer(**{option: value})  # type: ignore[arg-type]


def test_prompt_arguments_render_and_list() -> None:
    greet = mcp.prompt(
        "greet",
        "Hi {who} from {where}",
        arguments=["who", {"name": "where", "description": "a place", "required": False}],
        title="Greeting",
    )
    assert greet.listing() == {
        "name": "greet",
        "description": "",
        "arguments": [
            {"name": "who", "required": True},
            {"name": "where", "description": "a place", "required": False},
        ],
        "title": "Greeting",
    }
    assert greet.missing({"where": "x"}) == ["who"]
    rendered = greet.render({"who": "Ann"})
    assert rendered["messages"][0]["content"]["text"] == "Hi Ann from "
    assert greet.to_data()["arguments"] == [
        "who",
        {"name": "where", "description": "a place", "required": False},
    ]


def test_a_server_round_trips_through_its_file_form() -> None:
    """Templates, blobs, prompt messages, output schemas, faults and options come back
    from ``to_args`` as an equal server."""
    from mockhttp import fault

    kind = mcp.McpServer(
        tools=[
            mcp.tool(
                "w",
                output_schema={"type": "object"},
                title="W",
                answers=[mcp.answer(structured={"a": 1})],
            )
        ],
        resources=[mcp.resource("u", blob=b"\x01", mime_type="application/octet-stream")],
        templates=[mcp.template("t://{x}", "x={x}", complete={"x": ["1"]})],
        prompts=[
            mcp.prompt(
                "p",
                messages=[{"role": "user", "content": mcp.image(b"i")}],
                arguments=[{"name": "a", "complete": ["b"]}],
            )
        ],
        faults=[mcp.method_fault("tools/call", fault.end_after_events(1), tool="w", call=2)],
        page_size=5,
        allow_origins=["http://a.example"],
        max_sessions=3,
    )
    again = mcp.McpServer(**kind.to_args())
    assert again == kind
    assert again.to_args() == kind.to_args()
