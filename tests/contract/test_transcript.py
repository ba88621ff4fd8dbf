"""``contract._transcript``: a recorded exchange as data, and ``curl -D`` heads read."""

from __future__ import annotations

import pytest

from mockhttp.contract import Transcript
from mockhttp.contract._transcript import Chunk, parse_head


def test_from_body_keeps_the_reads_and_joins_them() -> None:
    t = Transcript.from_body([b"data: a\n", b"\n"], headers={"Content-Type": "text/event-stream"})
    assert t.chunks == (Chunk(b"data: a\n"), Chunk(b"\n"))
    assert t.body == b"data: a\n\n"
    assert t.header("content-type") == "text/event-stream"
    assert t.header("x-missing") is None


def test_the_first_of_repeated_headers() -> None:
    t = Transcript(200, (("Set-Cookie", "a"), ("set-cookie", "b")))
    assert t.header("SET-COOKIE") == "a"


def test_request_headers_are_apart_from_the_response_headers() -> None:
    t = Transcript(200, (("x", "reply"),), request_headers=(("MCP-Protocol-Version", "1"),))
    assert t.request_header("mcp-protocol-version") == "1"
    assert t.header("mcp-protocol-version") is None


def test_json_of_a_buffered_answer() -> None:
    assert Transcript.from_body(b'{"a": 1}').json() == {"a": 1}
    with pytest.raises(ValueError, match="Expecting value"):
        Transcript.from_body(b"data: x\n\n").json()


def test_parse_head_reads_the_last_head_of_several() -> None:
    text = (
        "HTTP/1.1 100 Continue\r\n\r\n"
        "HTTP/1.1 200 Connection established\r\n\r\n"
        "HTTP/2 429\r\nretry-after: 3\r\ncontent-type: application/json\r\n\r\n"
    )
    assert parse_head(text) == (429, (("retry-after", "3"), ("content-type", "application/json")))


def test_parse_head_keeps_colons_in_values_and_skips_junk_lines() -> None:
    status, headers = parse_head("HTTP/1.1 200 OK\nlocation: http://x:1/y\nno colon here\n")
    assert status == 200
    assert headers == (("location", "http://x:1/y"),)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "head file is empty"),
        ("\r\n\r\n", "head file is empty"),
        ("hello world\n", "not a status line: 'hello world'"),
        ("HTTP/1.1 OK\n", "not a status line"),
    ],
)
def test_parse_head_says_what_it_expected(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_head(text)
