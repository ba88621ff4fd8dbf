"""Image generation: OpenAI's ``POST /v1/images/generations``, buffered or streamed.

Each image is a valid PNG of the size asked (``size``, ``auto``: 1024x1024) in one colour
taken from the prompt, so the same prompt gives the same bytes.  ``response_format``
picks ``b64_json`` (the default, and the only form of ``gpt-image-*`` models) or ``url``: a
URL on this server (``/v1/images/files/{width}x{height}-{rrggbb}.png``) that the same mock
answers with the PNG.  ``stream: true`` (``gpt-image-*``) sends ``partial_images`` events of
type ``image_generation.partial_image`` then ``image_generation.completed``, as OpenAI does.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any, ClassVar

from .._core._errors import ConfigError
from .._core._registry import ReplyKind
from .._core._reply import Reply, ok, status
from .._core._request import Request
from .._core._sse import Event
from ._media import colour, png
from ._openai_chat import CREATED
from ._text import count_tokens

__all__ = ["Images"]

_SIZE = re.compile(r"^(\d{1,4})x(\d{1,4})$")
_FILE = re.compile(r"/v1/images/files/(\d{1,4})x(\d{1,4})-([0-9a-f]{6})\.png$")
_MAX_SIDE = 4096


@dataclass(frozen=True)
class Images(ReplyKind):
    """Generated images: PNGs of one colour per prompt, in OpenAI's shape.

    Args:
        revised_prompt: sent as each image's ``revised_prompt`` (DALL-E 3 sends one).
    """

    file_key: ClassVar[str] = "images"

    revised_prompt: str | None = None

    def __post_init__(self) -> None:
        if self.revised_prompt is not None and not isinstance(self.revised_prompt, str):
            raise ConfigError(f"revised_prompt={self.revised_prompt!r} must be text")

    def to_args(self) -> dict[str, Any]:
        return {} if self.revised_prompt is None else {"revised_prompt": self.revised_prompt}

    def build(self, request: Request) -> Reply:
        found = _FILE.search(request.path)
        if found:  # a url form's image, fetched
            width, height, hex_rgb = int(found[1]), int(found[2]), found[3]
            if not (0 < width <= _MAX_SIDE and 0 < height <= _MAX_SIDE):
                return _bad("the image's size is out of range")
            rgb = (int(hex_rgb[0:2], 16), int(hex_rgb[2:4], 16), int(hex_rgb[4:6], 16))
            return ok().header("Content-Type", "image/png").body(png(width, height, rgb))
        body = request.json() if request.body else None
        if not isinstance(body, dict) or not isinstance(body.get("prompt"), str):
            return _bad("'prompt' is required (text)")
        return self._generated(request, body)

    def _generated(self, request: Request, body: dict[str, Any]) -> Reply:
        model = str(body.get("model") or "dall-e-2")
        size = _size(body.get("size"))
        n = body.get("n", 1)
        if size is None:
            return _bad("'size' must be WIDTHxHEIGHT (1024x1024) or 'auto'")
        if type(n) is not int or not 1 <= n <= 10:
            return _bad("'n' must be an integer from 1 to 10")
        gpt_image = model.startswith("gpt-image")
        form = "b64_json" if gpt_image else body.get("response_format") or "url"
        if form not in ("b64_json", "url"):
            return _bad("'response_format' must be 'url' or 'b64_json'")
        rgb = colour(body["prompt"])
        image = png(size[0], size[1], rgb)
        usage = _usage(body["prompt"], n) if gpt_image else None
        if body.get("stream") is True and gpt_image:
            return _streamed(image, body, usage)
        one: dict[str, Any] = (
            {"b64_json": base64.b64encode(image).decode("ascii")}
            if form == "b64_json"
            else {"url": _url(request, size, rgb)}
        )
        if self.revised_prompt is not None:
            one["revised_prompt"] = self.revised_prompt
        answer: dict[str, Any] = {"created": CREATED, "data": [dict(one) for _ in range(n)]}
        if usage is not None:
            answer["usage"] = usage
        return ok().json(answer)


def _size(value: Any) -> tuple[int, int] | None:
    if value is None or value == "auto":
        return 1024, 1024
    found = _SIZE.match(value) if isinstance(value, str) else None
    if not found:
        return None
    width, height = int(found[1]), int(found[2])
    return (width, height) if 0 < width <= _MAX_SIDE and 0 < height <= _MAX_SIDE else None


def _url(request: Request, size: tuple[int, int], rgb: tuple[int, int, int]) -> str:
    host = request.headers.get("host", "127.0.0.1")
    name = f"{size[0]}x{size[1]}-{rgb[0]:02x}{rgb[1]:02x}{rgb[2]:02x}.png"
    return f"http://{host}/v1/images/files/{name}"


def _usage(prompt: str, n: int) -> dict[str, Any]:
    text = count_tokens(prompt)
    image = 272 * n  # a low-quality 1024x1024 image's output tokens
    return {
        "input_tokens": text,
        "output_tokens": image,
        "total_tokens": text + image,
        "input_tokens_details": {"text_tokens": text, "image_tokens": 0},
    }


def _streamed(image: bytes, body: dict[str, Any], usage: dict[str, Any] | None) -> Reply:
    data = base64.b64encode(image).decode("ascii")
    partial = body.get("partial_images", 0)
    partial = partial if type(partial) is int and 0 <= partial <= 3 else 0
    shared = {
        "created_at": CREATED,
        "size": body.get("size") or "1024x1024",
        "quality": body.get("quality") or "auto",
        "background": body.get("background") or "opaque",
        "output_format": body.get("output_format") or "png",
    }
    events = [
        Event(
            event="image_generation.partial_image",
            data={
                "type": "image_generation.partial_image",
                "b64_json": data,
                "partial_image_index": i,
                **shared,
            },
        )
        for i in range(partial)
    ]
    done = {"type": "image_generation.completed", "b64_json": data, **shared, "usage": usage}
    events.append(Event(event="image_generation.completed", data=done))
    return ok().event_stream(*events)


def _bad(message: str) -> Reply:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    return status(400).json({"error": error})
