"""evaluate, check and assert_conforms (contract/_check.py) on hand-written OpenAI chat
streams: which rules run or are skipped, the cap per rule, fail_on."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockhttp._core._errors import ConfigError
from mockhttp.contract._check import MAX_PER_RULE, assert_conforms, check, evaluate
from mockhttp.contract._profiles import rules
from mockhttp.contract._transcript import Transcript


def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-4o-mini",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(body, separators=(",", ":")).encode() + b"\n\n"


GOOD = (
    chunk({"role": "assistant", "content": ""})
    + chunk({"content": "Hi"})
    + chunk({}, "stop")
    + b"data: [DONE]\n\n"
)


REQUEST = {"model": "gpt-4o-mini", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}


def t(body: bytes, **kw: Any) -> Transcript:
    return Transcript.from_body(body, request=REQUEST, **kw)


def test_a_good_stream_has_no_findings_and_runs_every_rule() -> None:
    outcome = evaluate(t(GOOD))
    assert outcome.findings == ()
    assert outcome.skipped == ()
    assert outcome.rules == rules("openai-chat")
    assert outcome.exchange == "stream"
    assert outcome.profiles == ("openai-chat",)
    assert check(t(GOOD)) == []
    assert_conforms(t(GOOD))


def test_a_missing_done_is_a_violation_labelled_by_the_exchange() -> None:
    outcome = evaluate(t(GOOD.removesuffix(b"data: [DONE]\n\n")), exchange="x")
    assert [f.rule for f in outcome.violations] == ["openai.done"]
    assert all(f.exchange == "x" for f in outcome.findings)
    assert outcome.exchange == "x"


def test_a_failed_status_runs_only_the_rules_that_always_run() -> None:
    outcome = evaluate(t(b'{"error":"x"}', status=500, headers=()))
    always = {r.id for r in rules("openai-chat") if r.always}
    assert set(outcome.skipped) == {r.id for r in rules("openai-chat")} - always
    assert [f.rule for f in outcome.findings] == ["http.status"]


def test_no_response_skips_the_rules_that_need_one() -> None:
    outcome = evaluate(Transcript(status=None, error="connection refused"))
    assert [f.rule for f in outcome.findings] == ["http.transport"]
    assert "http.status" in outcome.skipped


def test_a_rule_that_sums_up_reports_once() -> None:
    bare = b"".join(b"data:" + chunk({"content": str(i)})[6:] for i in range(MAX_PER_RULE + 3))
    body = GOOD.replace(b"data: [DONE]", bare + b"data: [DONE]")
    found = [f for f in check(t(body)) if f.rule == "sse.data-space"]
    assert len(found) == 1  # that rule reports once for all
    assert found[0].message.startswith(f"{MAX_PER_RULE + 3} event(s) write 'data:' without")


def test_the_cap_counts_the_rest_in_one_finding() -> None:
    extra = b"".join(b"data: [1]\n\n" for _ in range(MAX_PER_RULE + 4))
    body = GOOD.replace(b"data: [DONE]", extra + b"data: [DONE]")
    found = [f for f in check(t(body)) if f.rule == "openai.json"]
    assert len(found) == MAX_PER_RULE + 1
    assert found[-1].message.startswith("4 more like the above, the next: ")


def test_assert_conforms_lists_every_finding() -> None:
    body = GOOD.removesuffix(b"data: [DONE]\n\n").replace(b"data: ", b"data:", 1)
    with pytest.raises(AssertionError) as caught:
        assert_conforms(t(body))
    text = str(caught.value)
    assert text.startswith("1 contract finding(s) at or above 'violation' (2 in all):\n")
    assert "openai.done (violation)" in text
    assert "sse.data-space (note)" in text


def test_fail_on_a_note_fails_on_notes_too() -> None:
    body = GOOD.replace(b"data: ", b"data:", 1)
    assert_conforms(t(body))
    with pytest.raises(AssertionError, match=r"^1 contract finding"):
        assert_conforms(t(body), fail_on="note")


def test_unknown_profile_or_provider_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        check(t(GOOD), "openai-chatt")
    with pytest.raises(ConfigError):
        check(t(GOOD), as_="no-such-provider")
