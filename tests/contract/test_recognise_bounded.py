"""Recognising the profile of a big JSON body (``mockhttp check --body FILE`` without
``--profile``) builds no tree: a buffered answer of many small objects costs its text."""

from __future__ import annotations

import json
import tracemalloc

from mockhttp.contract import Transcript
from mockhttp.contract._recognise import recognise, top_level

ENTRY = {"token": "ab", "logprob": -0.25, "bytes": [97, 98], "top_logprobs": []}


def _answer(entries: int) -> bytes:
    choice = {"index": 0, "message": {"role": "assistant", "content": "ab"}}
    choice["logprobs"] = {"content": [ENTRY] * entries}
    return json.dumps({"object": "chat.completion", "choices": [choice]}).encode()


def test_a_json_body_of_many_small_objects_is_recognised_without_its_tree() -> None:
    body = _answer(100_000)  # ~7.6 MB of text; its Python objects would take ~6x that
    transcript = Transcript.from_body(body)
    tracemalloc.start()
    try:
        found = recognise(transcript)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found == "openai-chat"
    assert peak < 3 * len(body), f"{peak / len(body):.1f}x the body"


def test_top_level_keeps_the_outer_members_and_stands_in_for_nested_objects() -> None:
    top = top_level(b'{"type": "message", "n": 1, "choices": [{"a": {"b": 2}}], "o": {}}')
    assert top is not None
    assert top["type"] == "message"
    assert top["n"] == 1
    assert top["choices"] == [{}]
    assert set(top) == {"type", "n", "choices", "o"}
    assert top_level(b'[{"type": "message"}]') is None  # not an object
    assert top_level(b"not json") is None
    assert top_level(b"[" * 100_000) is None  # nested too deep: not JSON either
