"""Names of recorded mocks (record/_names.py): Rule 1 (describe) and Rule 2 (numbered)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

import mockhttp
from mockhttp._core._request import Headers, Request
from mockhttp.record._names import PROMPT_CHARS, describe, llm_body, numbered, unique_names


def _post(path: str, body: object, headers: tuple[tuple[str, str], ...] = ()) -> Request:
    return Request("POST", path, Headers(headers), json.dumps(body).encode())


def test_a_plain_request_is_named_by_method_and_path() -> None:
    assert describe(Request("GET", "/v1/models?limit=3")) == "GET /v1/models"


def test_a_json_body_without_llm_keys_is_not_an_llm_request() -> None:
    req = _post("/api/items", {"name": "x"})
    assert llm_body(req) is None
    assert describe(req) == "POST /api/items"


def test_a_body_that_is_not_json_is_not_an_llm_request() -> None:
    req = Request("POST", "/v1/chat/completions", body=b"{not json")
    assert llm_body(req) is None
    assert describe(req) == "POST /v1/chat/completions"


def test_deeply_nested_json_does_not_raise() -> None:
    req = Request("POST", "/x", body=b"[" * 100_000 + b"]" * 100_000)
    assert llm_body(req) is None


def test_openai_chat_stream_names_the_api_stream_and_prompt() -> None:
    body = {
        "model": "gpt-4o",
        "stream": True,
        "messages": [{"role": "user", "content": "What is the weather in Paris?"}],
    }
    name = describe(_post("/v1/chat/completions", body))
    assert name == 'openai chat stream "What is the weather in Paris"'


def test_a_later_turn_counts_the_assistant_turns() -> None:
    body = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
            {"role": "user", "content": "again"},
        ],
    }
    assert describe(_post("/v1/chat/completions", body)) == 'openai chat "again" turn 1'


def test_anthropic_messages_are_named_anthropic() -> None:
    body = {
        "model": "claude",
        "max_tokens": 10,
        "messages": [{"role": "user", "content": "Say hi"}],
    }
    req = _post("/v1/messages", body, (("anthropic-version", "2023-06-01"),))
    assert describe(req) == 'anthropic "Say hi"'


def test_gemini_streams_by_its_method_name() -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "Tell me"}]}]}
    req = _post("/v1beta/models/gemini-2.0-flash:streamGenerateContent", body)
    assert describe(req) == 'gemini stream "Tell me"'


def test_a_long_prompt_is_cut_at_a_word_within_the_limit() -> None:
    prompt = "Please summarise the following very long document about trains."
    body = {"messages": [{"role": "user", "content": prompt}]}
    name = describe(_post("/v1/chat/completions", body))
    quoted = json.loads(name.removeprefix("openai chat "))
    assert len(quoted) <= PROMPT_CHARS
    assert prompt.startswith(quoted)
    assert quoted == "Please summarise the following"


def test_an_empty_prompt_leaves_no_quotes() -> None:
    body = {"messages": [{"role": "user", "content": "   "}]}
    assert describe(_post("/v1/chat/completions", body)) == "openai chat"


@given(st.text(max_size=200))
def test_the_prompt_part_is_short_one_line_and_a_prefix_of_the_words(text: str) -> None:
    body = {"messages": [{"role": "user", "content": text}]}
    name = describe(_post("/v1/chat/completions", body))
    assert "\n" not in name
    if name != "openai chat":
        quoted = json.loads(name.removeprefix("openai chat "))
        assert 0 < len(quoted) <= PROMPT_CHARS
        assert " ".join(text.split()).startswith(quoted)


def test_numbered_takes_the_first_free_number_of_that_name() -> None:
    assert numbered("GET /a", []) == "GET /a #1"
    assert numbered("GET /a", ["GET /a #1", "GET /b #2"]) == "GET /a #2"
    assert numbered("GET /a", ["GET /a #2"]) == "GET /a #1"
    assert numbered("GET /a", ["GET /a #1", "GET /a #2", "GET /a #4"]) == "GET /a #3"


def test_numbered_does_not_count_a_longer_name_sharing_the_prefix() -> None:
    assert numbered("GET /a", ["GET /ab #1", "GET /a/b #1"]) == "GET /a #1"


@given(st.lists(st.sampled_from(["a", "b", "c"]), max_size=30))
def test_unique_names_are_unique_and_keep_order(names: list[str]) -> None:
    mocks = [mockhttp.get(f"/{n}", name=n) for n in names]
    out = unique_names(mocks)
    assert [m.name for m in out] == [f"{n} #{names[: i + 1].count(n)}" for i, n in enumerate(names)]
    assert len({m.name for m in out}) == len(out)
    assert [m.path for m in out] == [m.path for m in mocks]


def test_an_unnamed_mock_is_numbered_by_its_description() -> None:
    out = unique_names([mockhttp.get("/x"), mockhttp.get("/x")])
    assert [m.name for m in out] == ["GET /x #1", "GET /x #2"]
