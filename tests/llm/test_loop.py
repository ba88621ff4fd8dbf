"""llm/_loop.py: the closed loop's scenarios, transcripts, the matrix page and its writer.

Pure: each kind's scenario (and how a quirk fits it), the transcript built without sockets
compared with the reply's own bytes, ``caught``, the matrix's rows against the catalogue,
``update`` between its markers.  (The page itself, docs/quirks.md, is checked against
the matrix by tests/llm/test_quirks.py; running ``__main__`` here would render the whole
matrix a second time.)
"""

from __future__ import annotations

import json

import pytest

from mockhttp.contract._catalogue import QUIRKS
from mockhttp.contract._providers import PROVIDERS
from mockhttp.llm._anthropic import AnthropicMessages
from mockhttp.llm._gemini import Gemini
from mockhttp.llm._loop import (
    BEGIN,
    CALLS,
    END,
    PROFILE,
    TEXT,
    caught,
    findings,
    render_matrix,
    scenario,
    transcript,
    update,
)
from mockhttp.llm._openai_chat import OpenAIChat
from mockhttp.llm._openai_responses import OpenAIResponses
from tests.helpers.llm_build import request, stream_bytes


@pytest.fixture(scope="module")
def matrix() -> str:
    return render_matrix()


# -- scenarios -----------------------------------------------------------------------------


def test_each_kind_has_its_profile() -> None:
    assert dict(PROFILE.items()) == {
        "openai_chat": "openai-chat",
        "openai_responses": "openai-responses",
        "anthropic_messages": "anthropic-messages",
        "gemini": "gemini",
    }


@pytest.mark.parametrize(
    ("kind", "cls", "path"),
    [
        ("openai_chat", OpenAIChat, "/v1/chat/completions"),
        ("openai_responses", OpenAIResponses, "/v1/responses"),
        ("anthropic_messages", AnthropicMessages, "/v1/messages"),
        ("gemini", Gemini, "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"),
    ],
)
def test_the_reference_scenario_of_each_kind(kind: str, cls: type, path: str) -> None:
    chosen = scenario(kind)
    assert (chosen.kind, chosen.path) == (kind, path)
    reply = chosen.reply()
    assert type(reply) is cls
    assert reply.full_text == TEXT
    if kind != "gemini":
        assert chosen.request["stream"] is True
    fitting = next(q.id for q in QUIRKS.values() if kind in q.kinds)
    assert chosen.reply(quirks=[fitting]).quirks == (fitting,)


def test_the_chat_scenario_fits_what_a_quirk_needs() -> None:
    assert scenario("openai_chat").request["stream_options"] == {"include_usage": True}
    assert scenario("openai_chat").options == {"text": TEXT}
    without = scenario("openai_chat", QUIRKS["Q-USAGE-WITHOUT-REQUEST"])
    assert "stream_options" not in without.request
    tools = scenario("openai_chat", QUIRKS["Q-TOOL-ARGS-WHOLE"])
    assert tools.options == {"text": "", "tool_calls": CALLS}
    assert scenario("openai_chat", QUIRKS["Q-CRLF"]).options == {"text": TEXT}


def test_typed_kinds_answer_with_text_and_a_tool_call() -> None:
    for kind in ("openai_responses", "anthropic_messages", "gemini"):
        assert scenario(kind).options == {"text": TEXT, "tool_calls": CALLS}


# -- transcripts ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(PROFILE))
def test_a_transcript_holds_the_replys_exact_bytes(kind: str) -> None:
    chosen = scenario(kind)
    seen = transcript(chosen.reply(), chosen.path, chosen.request)
    twin = chosen.reply().build(request(chosen.request, chosen.path))
    assert seen.body == stream_bytes(twin)
    assert seen.status == 200
    assert seen.request == chosen.request
    assert ("anthropic" in kind) == (seen.buffered is not None)


def test_the_anthropic_transcript_has_the_buffered_answer_too() -> None:
    chosen = scenario("anthropic_messages")
    seen = transcript(chosen.reply(), chosen.path, chosen.request)
    assert seen.buffered is not None
    assert seen.buffered["type"] == "message"
    assert [b["type"] for b in seen.buffered["content"]] == ["text", "tool_use"]


def test_a_json_array_answer_is_kept_as_its_body() -> None:
    chosen = scenario("gemini", QUIRKS["Q-JSON-ARRAY-STREAM"])
    seen = transcript(chosen.reply(quirks=["Q-JSON-ARRAY-STREAM"]), chosen.path, chosen.request)
    assert isinstance(json.loads(seen.body), list)


# -- findings and caught -------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(PROFILE))
def test_the_reference_draws_no_finding(kind: str) -> None:
    assert findings(kind) == []


def test_caught_names_each_rule_once_in_table_order() -> None:
    rules = caught(QUIRKS["Q-USAGE-ON-FINISH"], "openai_chat")
    assert rules == tuple(dict.fromkeys(rules))
    assert set(rules) == set(QUIRKS["Q-USAGE-ON-FINISH"].rules["openai_chat"])
    assert findings("openai_chat", QUIRKS["Q-CRLF"], as_="gemini-openai")  # options pass through


# -- the matrix page -----------------------------------------------------------------------


def test_the_matrix_has_a_row_per_quirk_and_kind_then_per_provider(matrix: str) -> None:
    lines = matrix.splitlines()
    assert lines[0] == "| quirk | layer | reply | caught by (contract rules that report it) |"
    quirk_rows = [line for line in lines if line.startswith("| [`Q-")]
    assert len(quirk_rows) == sum(len(q.kinds) for q in QUIRKS.values())
    for q in QUIRKS.values():
        for kind in q.kinds:
            row = f"| [`{q.id}`](#{q.id.lower()}) | {q.layer} | `{kind}` |"
            assert any(r.startswith(row) for r in quirk_rows), row
    provider_rows = [line for line in lines if line.startswith("| `")]
    assert [r.split("`")[1] for r in provider_rows] == list(PROVIDERS)
    assert "**nothing**" not in matrix  # every quirk is caught by some rule


def test_update_replaces_only_between_the_markers() -> None:
    page = f"# Title\n\nbefore\n{BEGIN}\nold table\n{END}\nafter\n"
    out = update(page, body="NEW")
    assert out == f"# Title\n\nbefore\n{BEGIN}\n\nNEW\n\n{END}\nafter\n"
    assert update(out, body="NEW") == out  # idempotent


@pytest.mark.parametrize("page", ["no markers", f"{END}\n{BEGIN}", f"{BEGIN} only"])
def test_update_without_both_markers_in_order_says_what_to_add(page: str) -> None:
    with pytest.raises(ValueError, match="markers not found: add"):
        update(page, body="x")
