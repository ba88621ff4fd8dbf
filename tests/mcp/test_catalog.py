"""The records of a mock MCP server (``_catalog`` and the others), each bad value named
at its place, and a server back from its data."""

from __future__ import annotations

import pytest

from mockhttp import ConfigError, mcp


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
