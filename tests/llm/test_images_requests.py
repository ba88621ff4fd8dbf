"""llm/_images.py, in more depth: the request table (size, n, response_format, model),
the url form's file path, streaming's partial images and shared fields, pure."""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

import pytest

from mockhttp import ConfigError, llm
from mockhttp.llm._images import _size, _url, _usage
from mockhttp.llm._media import colour
from tests.helpers.llm_build import body_of, payloads, request

PATH = "/v1/images/generations"


def generated(body: dict[str, Any], **options: Any) -> Any:
    return llm.images(**options).build(request(body, PATH, host="mock.test:8080"))


def png_size(data: bytes) -> tuple[int, int]:
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.parametrize(
    ("value", "size"),
    [
        (None, (1024, 1024)),
        ("auto", (1024, 1024)),
        ("16x32", (16, 32)),
        ("1x1", (1, 1)),
        ("0x16", None),
        ("16x0", None),
        ("16X16", None),
        ("16x16px", None),
        ("99999x1", None),
        (1024, None),
        ("", None),
    ],
)
def test_sizes_entry_by_entry(value: Any, size: tuple[int, int] | None) -> None:
    assert _size(value) == size


def test_the_image_is_a_png_of_the_size_in_the_prompts_colour() -> None:
    body = body_of(generated({"model": "gpt-image-1", "prompt": "a red cat", "size": "12x7"}))
    image = base64.b64decode(body["data"][0]["b64_json"])
    assert png_size(image) == (12, 7)
    again = body_of(generated({"model": "gpt-image-1", "prompt": "a red cat", "size": "12x7"}))
    assert again == body  # the same prompt, the same bytes
    other = body_of(generated({"model": "gpt-image-1", "prompt": "a blue dog", "size": "12x7"}))
    assert other["data"][0]["b64_json"] != body["data"][0]["b64_json"]
    assert zlib.crc32(image[12:29]) == struct.unpack(">I", image[29:33])[0]  # IHDR's CRC


def test_gpt_image_is_b64_only_with_usage_and_dalle_defaults_to_url() -> None:
    forced = body_of(
        generated({"model": "gpt-image-1", "prompt": "x", "size": "4x4", "response_format": "url"})
    )
    assert "b64_json" in forced["data"][0]
    assert forced["usage"] == _usage("x", 1)
    dalle = body_of(generated({"prompt": "x", "size": "4x4"}))
    assert set(dalle["data"][0]) == {"url"}
    assert "usage" not in dalle


def test_the_url_names_the_host_size_and_colour_and_is_answered() -> None:
    body = body_of(generated({"model": "dall-e-3", "prompt": "a red cat", "size": "8x4"}))
    url = body["data"][0]["url"]
    r, g, b = colour("a red cat")
    assert url == f"http://mock.test:8080/v1/images/files/8x4-{r:02x}{g:02x}{b:02x}.png"
    path = url.removeprefix("http://mock.test:8080")
    fetched = llm.images().build(request(b"", path, method="GET"))
    assert dict(fetched.headers)["Content-Type"] == "image/png"
    assert png_size(fetched.content) == (8, 4)
    assert (
        _url(request(b"", PATH), (1, 2), (0, 15, 255))
        == "http://127.0.0.1/v1/images/files/1x2-000fff.png"
    )


def test_a_file_of_no_size_is_refused() -> None:
    assert (
        llm.images()
        .build(request(b"", "/v1/images/files/0x4-000000.png", method="GET"))
        .status_code
        == 400
    )


def test_n_images_and_the_revised_prompt() -> None:
    body = body_of(
        generated(
            {"model": "dall-e-3", "prompt": "x", "size": "4x4", "n": 3}, revised_prompt="A cat."
        )
    )
    assert [d["revised_prompt"] for d in body["data"]] == ["A cat."] * 3
    assert _usage("two words", 3) == {
        "input_tokens": 2,
        "output_tokens": 816,
        "total_tokens": 818,
        "input_tokens_details": {"text_tokens": 2, "image_tokens": 0},
    }


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"prompt": 3}, "'prompt' is required (text)"),
        ({"size": "4x4"}, "'prompt' is required (text)"),
        ({"prompt": "x", "size": "big"}, "'size' must be WIDTHxHEIGHT (1024x1024) or 'auto'"),
        ({"prompt": "x", "n": 0}, "'n' must be an integer from 1 to 10"),
        ({"prompt": "x", "n": 11}, "'n' must be an integer from 1 to 10"),
        ({"prompt": "x", "n": True}, "'n' must be an integer from 1 to 10"),
        ({"prompt": "x", "n": 2.0}, "'n' must be an integer from 1 to 10"),
        (
            {"prompt": "x", "response_format": "png"},
            "'response_format' must be 'url' or 'b64_json'",
        ),
    ],
)
def test_bad_requests_entry_by_entry(body: dict[str, Any], message: str) -> None:
    answer = generated(body)
    assert answer.status_code == 400
    assert body_of(answer)["error"]["message"] == message


@pytest.mark.parametrize(("asked", "sent"), [(0, 0), (3, 3), (4, 0), (-1, 0), ("2", 0)])
def test_partial_images_are_zero_to_three(asked: Any, sent: int) -> None:
    body = {
        "model": "gpt-image-1",
        "prompt": "x",
        "size": "4x4",
        "stream": True,
        "partial_images": asked,
    }
    events = payloads(generated(body))
    assert [e["type"] for e in events] == ["image_generation.partial_image"] * sent + [
        "image_generation.completed"
    ]


def test_streamed_events_share_the_requests_settings() -> None:
    body = {
        "model": "gpt-image-1",
        "prompt": "x",
        "size": "4x4",
        "stream": True,
        "partial_images": 1,
        "quality": "low",
        "background": "transparent",
        "output_format": "png",
    }
    events = payloads(generated(body))
    for e in events:
        assert (e["size"], e["quality"], e["background"], e["output_format"]) == (
            "4x4",
            "low",
            "transparent",
            "png",
        )
    assert events[0]["b64_json"] == events[1]["b64_json"]
    assert events[-1]["usage"] == _usage("x", 1)
    dalle = generated({"model": "dall-e-2", "prompt": "x", "size": "4x4", "stream": True})
    assert dalle.stream is None  # only gpt-image models stream


def test_the_revised_prompt_is_checked_and_filed() -> None:
    with pytest.raises(ConfigError, match="revised_prompt=3 must be text"):
        llm.images(revised_prompt=3)  # type: ignore[arg-type]
    assert llm.images().to_args() == {}
    assert llm.images(revised_prompt="r").to_args() == {"revised_prompt": "r"}
