"""Content blocks (``_content``): what each lacks, said at its place; the constructors."""

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
