"""openai.token-reassembly: the logprobs' tokens spell the text and match the usage."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

import mockhttp
from mockhttp import llm, match
from mockhttp.contract import Transcript, check
from mockhttp.contract.__main__ import main

RULE = "openai.token-reassembly"
ASK = {"model": "m", "messages": [], "stream": True, "logprobs": True,
       "stream_options": {"include_usage": True}}  # fmt: skip


def lp(*tokens: str) -> dict[str, Any]:
    return {"content": [{"token": t, "logprob": -0.1, "bytes": [], "top_logprobs": []}
                        for t in tokens], "refusal": None}  # fmt: skip


def chunk(content: str | None, logprobs: Any = None, finish: str | None = None) -> str:
    delta: dict[str, Any] = {} if content is None else {"content": content}
    if content == "":
        delta["role"] = "assistant"
    choice = {"index": 0, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
    return json.dumps({"id": "c", "object": "chat.completion.chunk", "model": "m",
                       "choices": [choice], "usage": None})  # fmt: skip


def stream(*pieces: tuple[str, dict[str, Any] | None], completion: int) -> bytes:
    usage = {"prompt_tokens": 1, "completion_tokens": completion, "total_tokens": 1 + completion}
    events = [chunk(""), *(chunk(text, logprobs) for text, logprobs in pieces)]
    events += [chunk(None, finish="stop")]
    events += [json.dumps({"id": "c", "object": "chat.completion.chunk", "model": "m",
                           "choices": [], "usage": usage}), "[DONE]"]  # fmt: skip
    return "".join(f"data: {e}\n\n" for e in events).encode()


def findings(body: bytes, request: Any = ASK, buffered: Any = None) -> list[str]:
    transcript = Transcript.from_body(body, request=request, buffered=buffered)
    return [f.message for f in check(transcript, "openai-chat") if f.rule == RULE]


GOOD = (("Hello", lp("Hello")), (", world", lp(",", " world")))


def test_tokens_that_spell_the_text_and_match_the_usage_pass() -> None:
    assert findings(stream(*GOOD, completion=3)) == []


def test_a_token_count_other_than_the_usage_is_a_violation() -> None:
    body = stream(*GOOD, completion=4)
    (finding,) = [f for f in check(Transcript.from_body(body, request=ASK)) if f.severity != "note"]
    assert (finding.rule, finding.severity) == (RULE, "violation")
    assert finding.message == "the stream: logprobs carry 3 tokens, usage.completion_tokens says 4"


def test_tokens_that_do_not_join_to_the_text_are_a_violation() -> None:
    body = stream(("Hello", lp("Hello")), (", world", lp(",", "world")), completion=3)
    assert findings(body) == [
        'the stream: the logprobs.content tokens join to "Hello,world", the content is '
        '"Hello, world"'
    ]


def test_not_asked_nothing_is_checked() -> None:
    body = stream(("Hello", None), completion=9)
    assert findings(body, request={**ASK, "logprobs": False}) == []
    assert findings(body) == [
        'the stream: the logprobs.content tokens join to "", the content is "Hello"',
        "the stream: logprobs carry 0 tokens, usage.completion_tokens says 9",
    ]


def buffered(content: str, logprobs: Any, completion: int, reasoning: int = 0) -> Any:
    usage = {"completion_tokens": completion,
             "completion_tokens_details": {"reasoning_tokens": reasoning}}  # fmt: skip
    message = {"role": "assistant", "content": content}
    return {"choices": [{"index": 0, "message": message, "logprobs": logprobs}], "usage": usage}


def test_the_buffered_answer_is_checked_too() -> None:
    body = stream(*GOOD, completion=3)
    assert findings(body, buffered=buffered("Hello, world", lp("Hello", ",", " world"), 3)) == []
    assert findings(body, buffered=buffered("Hello, world", lp("Hello", " world"), 2)) == [
        'the buffered answer: the logprobs.content tokens join to "Hello world", the content '
        'is "Hello, world"'
    ]


def test_reasoning_tokens_are_left_out_of_the_count() -> None:
    good = buffered("Hi", lp("Hi"), completion=5, reasoning=4)
    assert findings(stream(("Hi", lp("Hi")), completion=1), buffered=good) == []
    bad = buffered("Hi", lp("Hi"), completion=5, reasoning=1)
    assert findings(stream(("Hi", lp("Hi")), completion=1), buffered=bad) == [
        "the buffered answer: logprobs carry 1 tokens, usage.completion_tokens less "
        "reasoning_tokens says 4"
    ]


def test_llm_openai_chat_passes_over_the_wire(server: mockhttp.Server) -> None:
    """The mock's own logprobs pass, cut into words or into 3 characters, with a refusal."""
    server.mock(mockhttp.post("/words").reply(llm.openai_chat(text="Hello, world! It's 42.")))
    server.mock(mockhttp.post("/cut").reply(llm.openai_chat(text="Hello, world!", chunk_size=3)))
    server.mock(mockhttp.post("/refusal").reply(llm.openai_chat(text="", refusal="I can't.")))
    for path in ("/words", "/cut", "/refusal"):
        body = {**ASK, "messages": [{"role": "user", "content": "hi"}], "top_logprobs": 2}
        streamed = httpx.post(server.url + path, json=body).content
        whole = httpx.post(server.url + path, json={**body, "stream": False}).json()
        assert findings(streamed, request=body, buffered=whole) == [], path


def test_live_check_of_a_broken_stream_names_the_rule(server: mockhttp.Server, capsys: Any) -> None:
    """A live endpoint whose logprobs miss a token fails the check with the rule named."""
    body = stream(("Hello", lp("Hello")), (", world", lp(" world")), completion=3)
    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat(text="Hello, world")))
    server.mock(
        mockhttp.post("/v1/chat/completions")
        .body(match.json_path("$.stream", match.equal(True)))
        .reply(mockhttp.ok().header("content-type", "text/event-stream").body(body))
    )
    assert main([server.url, "--model", "m", "--profile", "openai-chat"]) == 1
    out = capsys.readouterr().out
    assert re.search(rf"^violation  {re.escape(RULE)} .*join to \"Hello world\"", out, re.M), out
    assert all(call.request.json()["logprobs"] is True for call in server.journal)
