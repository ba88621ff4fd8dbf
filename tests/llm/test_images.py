"""``llm.images`` built on requests directly: sizes, counts, the two forms, the url form's
file answered by the same kind, streamed partial images, and bad input."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from mockhttp import llm
from mockhttp._core._request import Headers, Request
from mockhttp.llm._media import colour, png


def build(body: Any, target: str = "/v1/images/generations", method: str = "POST") -> Any:
    headers = Headers((("host", "mock.test:8080"),))
    data = json.dumps(body).encode() if body is not None else b""
    return llm.images(revised_prompt="a revised fox").build(Request(method, target, headers, data))


def test_b64_json_is_the_png_of_the_prompt() -> None:
    reply = build({"model": "gpt-image-1", "prompt": "a fox", "size": "16x8", "n": 2})
    out = json.loads(reply.content)
    assert [base64.b64decode(d["b64_json"]) for d in out["data"]] == [
        png(16, 8, colour("a fox"))
    ] * 2
    assert out["usage"]["output_tokens"] == 2 * 272
    assert out["data"][0]["revised_prompt"] == "a revised fox"


def test_the_url_form_points_at_the_same_server() -> None:
    out = json.loads(build({"prompt": "a fox", "size": "32x16"}).content)  # dall-e-2: url
    url = out["data"][0]["url"]
    r, g, b = colour("a fox")
    assert url == f"http://mock.test:8080/v1/images/files/32x16-{r:02x}{g:02x}{b:02x}.png"
    fetched = build(None, url.removeprefix("http://mock.test:8080"), "GET")
    assert fetched.content == png(32, 16, (r, g, b))
    assert ("Content-Type", "image/png") in fetched.headers


def test_streamed_partial_images_then_completed() -> None:
    body = {"model": "gpt-image-1", "prompt": "a", "stream": True, "partial_images": 2}
    reply = build(body)
    assert reply.stream is not None
    kinds = [e.event for e in reply.stream.events]
    assert kinds == ["image_generation.partial_image"] * 2 + ["image_generation.completed"]
    assert reply.stream.events[-1].data["usage"]["total_tokens"] > 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "'prompt' is required"),
        ({"prompt": "a", "size": "big"}, "'size' must be"),
        ({"prompt": "a", "size": "5000x10"}, "'size' must be"),
        ({"prompt": "a", "n": 0}, "'n' must be"),
        ({"prompt": "a", "response_format": "gif"}, "'response_format' must be"),
    ],
)
def test_bad_requests(body: Any, message: str) -> None:
    reply = build(body)
    assert reply.status_code == 400
    assert json.loads(reply.content)["error"]["message"].startswith(message)


def test_a_file_out_of_range_is_refused() -> None:
    assert build(None, "/v1/images/files/9999x1-000000.png", "GET").status_code == 400
