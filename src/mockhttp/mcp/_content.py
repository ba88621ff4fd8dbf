"""Content blocks, as the spec writes them (``server/tools``, "Tool Result"; ``prompts``):
text, image, audio, an embedded resource, a resource link.

A block is plain data, the wire's own shape (``{"type": "image", "data": ..., "mimeType":
...}``), so a mock file writes it as it would appear in a result; the constructors here
build the same data in Python, and :func:`check_block` says what a block lacks.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from ._fields import fail

__all__ = [
    "BLOCKS",
    "as_base64",
    "audio",
    "check_block",
    "embedded",
    "image",
    "link",
    "resource_contents",
    "text",
]

BLOCKS: dict[str, tuple[str, ...]] = {
    # type: the fields the schema requires beside ``type``
    "text": ("text",),
    "image": ("data", "mimeType"),
    "audio": ("data", "mimeType"),
    "resource": ("resource",),
    "resource_link": ("uri", "name"),
}


def check_block(block: Any, where: str) -> dict[str, Any]:
    """``block`` as a content block, or a :class:`ConfigError` at ``where`` saying what it
    lacks (base64 ``data`` checked; an embedded resource's contents too)."""
    kind = block.get("type") if isinstance(block, Mapping) else None
    if kind not in BLOCKS:
        known = ", ".join(BLOCKS)
        raise fail(where, f"{block!r} must be a content block with a type among {known}")
    assert isinstance(block, Mapping)
    for name in BLOCKS[kind]:
        if name not in block:
            raise fail(where, f"a block of type {kind} needs {name!r} ({block!r})")
    if kind in ("image", "audio"):
        check_base64(block["data"], f"{where}.data")
    if kind == "resource":
        check_contents(block["resource"], f"{where}.resource")
    return dict(block)


def check_base64(value: Any, where: str) -> str:
    """``value`` as base64 text (the spec's ``data`` and ``blob``)."""
    try:
        if not isinstance(value, str):
            raise ValueError
        base64.b64decode(value, validate=True)
    except (ValueError, binascii.Error):
        raise fail(where, f"{value!r} must be base64 text") from None
    return value


def check_contents(value: Any, where: str) -> dict[str, Any]:
    """A resource's contents: ``uri`` and ``text`` or ``blob`` (base64)."""
    if not isinstance(value, Mapping) or "uri" not in value:
        raise fail(where, f"{value!r} must be resource contents: {{uri, text or blob}}")
    if ("text" in value) == ("blob" in value):
        raise fail(where, f"resource contents have text or blob, one of them ({value!r})")
    if "blob" in value:
        check_base64(value["blob"], f"{where}.blob")
    return dict(value)


def text(value: str) -> dict[str, Any]:
    """A text block."""
    return {"type": "text", "text": value}


def image(data: str | bytes, mime_type: str = "image/png") -> dict[str, Any]:
    """An image block: ``data`` as bytes, or already base64 text."""
    return {"type": "image", "data": as_base64(data), "mimeType": mime_type}


def audio(data: str | bytes, mime_type: str = "audio/wav") -> dict[str, Any]:
    """An audio block: ``data`` as bytes, or already base64 text."""
    return {"type": "audio", "data": as_base64(data), "mimeType": mime_type}


def resource_contents(
    uri: str, text: str | None = None, *, blob: str | bytes | None = None, mime_type: str = ""
) -> dict[str, Any]:
    """A resource's contents: ``text``, or ``blob`` (bytes, or already base64 text)."""
    out: dict[str, Any] = {"uri": uri}
    if mime_type:
        out["mimeType"] = mime_type
    if blob is not None:
        out["blob"] = as_base64(blob)
    else:
        out["text"] = "" if text is None else text
    return out


def embedded(
    uri: str,
    text: str | None = None,
    *,
    blob: str | bytes | None = None,
    mime_type: str = "text/plain",
) -> dict[str, Any]:
    """An embedded resource block: the resource's contents inside the result."""
    return {
        "type": "resource",
        "resource": resource_contents(uri, text, blob=blob, mime_type=mime_type),
    }


def link(uri: str, name: str, *, mime_type: str = "", description: str = "") -> dict[str, Any]:
    """A resource link block (from revision 2025-06-18): a resource the client may read."""
    out: dict[str, Any] = {"type": "resource_link", "uri": uri, "name": name}
    if mime_type:
        out["mimeType"] = mime_type
    if description:
        out["description"] = description
    return out


def as_base64(data: str | bytes) -> str:
    """``data`` as base64 text (text is taken to be base64 already)."""
    return base64.b64encode(data).decode("ascii") if isinstance(data, bytes) else data
