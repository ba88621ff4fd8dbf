"""Resources and templates (``_resources``): URI templates matched, blobs, errors."""

from __future__ import annotations

from mockhttp import mcp


def test_a_template_matches_its_uris() -> None:
    one = mcp.template("test://t/{id}/data", "id={id}")
    assert one.match("test://t/123/data") == {"id": "123"}
    assert one.match("test://t/1/2/data") is None  # {id} is one segment
    assert one.match("test://t/123/data/x") is None
    assert one.contents("test://t/9/data", {"id": "9"})["text"] == "id=9"
    rest = mcp.template("file:///{+path}")
    assert rest.match("file:///a/b/c.txt") == {"path": "a/b/c.txt"}
