"""The seed's YAML examples, loaded verbatim, served to real clients in and out of Python."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

import mockhttp
from mockhttp._mockfile._load import load
from tests.helpers.clients import anthropic_sdk_text, anthropic_text, complete

SEED = Path(__file__).resolve().parents[1] / "data" / "seed"
CHAT = '{"model": "gpt-test", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'
MESSAGES = '{"model": "claude-test", "max_tokens": 16, "stream": true, "messages": []}'


@pytest.fixture
def seeded() -> Iterator[mockhttp.Server]:
    """A server with both seed files loaded from disk."""
    with mockhttp.Server() as server:
        for mock in load(SEED):
            server.mock(mock)
        yield server


def test_raw_socket_client_puts_the_answer_together(seeded: mockhttp.Server) -> None:
    """The guide's complete() reads "Hello, world" from the file's stream, 20 ms apart."""
    started = time.monotonic()
    assert complete(seeded.url, "Say hello") == "Hello, world"
    assert time.monotonic() - started >= 0.05  # three pauses of 20 ms, with slack


def test_httpx_reads_compact_json_lines(seeded: mockhttp.Server) -> None:
    """httpx reads each chunk as one data: line of compact JSON, then [DONE]."""
    with httpx.stream(
        "POST",
        seeded.url + "/v1/chat/completions",
        content=CHAT,
        headers={"Authorization": "Bearer sk-test"},
    ) as response:
        lines = [line for line in response.iter_lines() if line]
    assert lines[1] == (
        'data: {"object":"chat.completion.chunk",'
        '"choices":[{"index":0,"delta":{"content":"lo, "}}]}'
    )
    assert lines[-1] == "data: [DONE]"


def test_openai_sdk_streams_the_file(seeded: mockhttp.Server) -> None:
    """The openai SDK streams "Hello, world" from the YAML mock."""
    with openai.OpenAI(base_url=seeded.url + "/v1", api_key="sk-test", max_retries=0) as client:
        stream = client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "Say hello"}], stream=True
        )
        assert "".join(c.choices[0].delta.content or "" for c in stream) == "Hello, world"


def test_anthropic_sdk_dispatches_on_the_file_names(seeded: mockhttp.Server) -> None:
    """The anthropic SDK builds "Hello, world" from the named events of the YAML mock."""
    assert anthropic_sdk_text(seeded.url) == "Hello, world"


def test_event_splitting_client_reads_the_named_events(seeded: mockhttp.Server) -> None:
    """A client that splits at blank lines and reads event: and data: gets Hello, world."""
    assert anthropic_text(seeded.url) == "Hello, world"


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_receives_the_exact_bytes(seeded: mockhttp.Server) -> None:
    """curl, a client outside Python, receives the stream byte for byte."""
    out = subprocess.run(
        ["curl", "-sSfN", "-H", "Authorization: Bearer sk-test", "--data-binary", CHAT,
         seeded.url + "/v1/chat/completions"],
        capture_output=True, check=True, timeout=30,
    ).stdout  # fmt: skip
    chunks = [
        json.dumps(
            {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": c}}]},
            separators=(",", ":"),
        )
        for c in ("Hel", "lo, ", "world")
    ]
    assert out == "".join(f"data: {c}\n\n" for c in [*chunks, "[DONE]"]).encode()


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_receives_named_events(seeded: mockhttp.Server) -> None:
    """curl gets an event: line before each data: line of the Anthropic-style stream."""
    out = subprocess.run(
        ["curl", "-sSfN", "-H", "x-api-key: test-key", "-H", "anthropic-version: 2023-06-01",
         "--data-binary", MESSAGES, seeded.url + "/v1/messages"],
        capture_output=True, check=True, timeout=30, text=True,
    ).stdout  # fmt: skip
    blocks = out.split("\n\n")
    assert blocks[2] == 'event: ping\ndata: {"type":"ping"}'
    assert blocks[-2] == 'event: message_stop\ndata: {"type":"message_stop"}'


NODE_CLIENT = r"""
const [url] = process.argv.slice(1);
const res = await fetch(url + "/v1/chat/completions", {
  method: "POST",
  headers: {"Content-Type": "application/json", "Authorization": "Bearer sk-test"},
  body: JSON.stringify({model: "gpt-test", stream: true, messages: []}),
});
const decoder = new TextDecoder();
let buffer = "", answer = "";
for await (const piece of res.body) {
  buffer += decoder.decode(piece, {stream: true});
  let end;
  while ((end = buffer.indexOf("\n\n")) >= 0) {
    const data = buffer.slice(0, end).replace(/^data: /, "");
    buffer = buffer.slice(end + 2);
    if (data === "[DONE]") { console.log(answer); process.exit(0); }
    answer += JSON.parse(data).choices[0].delta.content;
  }
}
process.exit(1);
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_fetch_puts_the_answer_together(seeded: mockhttp.Server) -> None:
    """Node's built-in fetch reads the stream event by event and gets Hello, world."""
    result = subprocess.run(
        ["node", "--input-type=module", "-e", NODE_CLIENT, seeded.url],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello, world\n"
