"""Contract rules on pure transcripts: references pass, each breaking stream names its rule."""

from __future__ import annotations

from collections import Counter

import pytest

from mockhttp.contract import PROFILES, Transcript, check, rules
from mockhttp.contract._rule import Hit
from mockhttp.contract._stream import Stream
from tests.helpers.contract_streams import (
    ANTHROPIC_REFERENCE,
    BREAKING,
    OPENAI,
    OPENAI_REFERENCE,
    REFERENCE_BY_NAME,
    REFERENCES,
    Case,
)


def reference_for(case: Case) -> Case:
    """The reference stream a breaking case was made from."""
    return REFERENCE_BY_NAME[case.reference]


def new_rules(case: Case) -> set[str]:
    """The rules whose findings the case adds to those of its reference."""
    base = Counter(f.rule for f in check(reference_for(case).transcript(), case.profile))
    found = Counter(f.rule for f in check(case.transcript(), case.profile))
    return set(found - base)


@pytest.mark.parametrize("case", REFERENCES, ids=lambda c: c.name)
def test_reference_stream_passes_every_rule(case: Case) -> None:
    """A reference-shaped stream draws no finding at all, not even a note."""
    assert check(case.transcript(), case.profile) == []


@pytest.mark.parametrize("rule", sorted(BREAKING))
def test_breaking_stream_names_exactly_its_rule(rule: str) -> None:
    """Each rule has a stream that breaks it, and the check names exactly that rule."""
    assert new_rules(BREAKING[rule]) == {rule}


def test_every_rule_has_a_breaking_stream() -> None:
    """No rule in any profile goes without a stream that breaks it (http.transport aside)."""
    from tests.contract.test_agui import BROKEN as AG_UI_BROKEN  # its streams are lists

    every = {rule.id for table in PROFILES.values() for rule in table}
    assert every - set(BREAKING) - {rule for _, rule, _ in AG_UI_BROKEN} == {"http.transport"}


def test_transport_failure_is_a_finding_and_skips_stream_rules() -> None:
    """A failed exchange yields http.transport alone; stream rules are not run on nothing."""
    findings = check(Transcript(status=None, error="ConnectError: refused"), "openai-chat")
    assert [(f.rule, f.severity) for f in findings] == [("http.transport", "violation")]
    assert "ConnectError: refused" in findings[0].message


def test_non_200_status_skips_stream_rules() -> None:
    """A 500 with a JSON body is reported as http.status, not as a broken stream."""
    case = BREAKING["http.status"]
    findings = check(case.transcript(), case.profile)
    assert [f.rule for f in findings] == ["http.status"]
    assert "status was 500, expected 200" in findings[0].message


def test_json_reply_to_a_stream_request_is_one_finding() -> None:
    """A buffered JSON reply is reported by http.content-type only."""
    case = BREAKING["http.content-type"]
    (finding,) = check(case.transcript(), case.profile)
    assert 'content-type was "application/json", expected text/event-stream' in finding.message


def test_findings_carry_event_index_and_byte_offset() -> None:
    """A finding about one event says which event and at which byte it starts."""
    case = BREAKING["openai.stable-id"]
    (finding,) = [f for f in check(case.transcript()) if f.rule == "openai.stable-id"]
    offset = case.body.index(b'data: {"id":"x"')
    assert (finding.event, finding.offset, finding.where) == (3, offset, f"event 3, byte {offset}")
    assert finding.message == 'id was "x", expected "chatcmpl-1" as on event 0'


def test_stream_closing_without_done_points_at_the_end() -> None:
    """openai.done names the last event and points at the end of the body."""
    case = BREAKING["openai.done"]
    (finding,) = [f for f in check(case.transcript()) if f.rule == "openai.done"]
    assert (finding.offset, finding.event) == (len(case.body), None)
    assert "closed after event 5 without data: [DONE]" in finding.message


def test_request_unknown_is_a_note_about_usage() -> None:
    """Without the request, usage opt-in is not judged, and a note says so."""
    transcript = Transcript.from_body(OPENAI_REFERENCE.body)
    notes = [f for f in check(transcript) if f.rule == "openai.usage-opt-in"]
    assert [(f.severity, f.message) for f in notes] == [
        ("note", "the request is not known, so usage opt-in was not checked")
    ]


def test_many_hits_are_capped_with_a_count() -> None:
    """A rule that fires on every chunk reports five, then how many more."""
    body = b"".join(b"data: nope %d\n\n" % i for i in range(9)) + b"data: [DONE]\n\n"
    found = [f for f in check(Transcript.from_body(body)) if f.rule == "openai.json"]
    assert len(found) == 6
    assert found[-1].message.startswith("4 more like the above, the next: data is not")


def test_profiles_combine_without_duplicate_rules() -> None:
    """Several profiles run the shared rules once, in table order."""
    ids = [r.id for r in rules(["openai-chat", "stream-equals-buffered"])]
    assert len(ids) == len(set(ids))
    assert ids[:3] == ["http.transport", "http.status", "http.content-type"]
    assert ids[-1] == "buffered.finish-reason"


def test_unknown_profile_is_a_config_error() -> None:
    """An unknown profile name raises ConfigError listing the known ones."""
    from mockhttp import ConfigError

    with pytest.raises(ConfigError, match="unknown profile 'openai' — did you mean 'openai-chat'"):
        check(OPENAI_REFERENCE.transcript(), "openai")


def test_anthropic_order_reports_state_and_event() -> None:
    """An out-of-order event names what came, what it followed and what was allowed."""
    case = BREAKING["anthropic.order"]
    messages = [f.message for f in check(case.transcript(), case.profile)]
    assert (
        "message_delta came after content_block_delta; expected content_block_delta, "
        "content_block_stop"
    ) in messages


def test_no_chunk_with_a_choice_never_finishes() -> None:
    """A stream of choice-less chunks is reported by finish-once."""
    body = OPENAI[-2].encode() + OPENAI[-1].encode()
    found = [f.message for f in check(Transcript.from_body(body)) if f.rule == "openai.finish-once"]
    assert found == ["no chunk carries a choice, so no choice ever finished"]


def test_anthropic_reference_without_buffered_notes_the_skip() -> None:
    """Without a buffered answer the text comparison is a note, not a silent pass."""
    transcript = Transcript.from_body(ANTHROPIC_REFERENCE.body)
    (finding,) = check(transcript, "anthropic-messages")
    assert (finding.rule, finding.severity) == ("anthropic.buffered-text", "note")


def test_rule_finders_are_pure_functions_of_the_stream() -> None:
    """Running every rule twice on one decoded stream gives the same hits."""
    stream = Stream(BREAKING["openai.after-finish"].transcript())
    for rule in rules(list(PROFILES)):
        first: list[Hit] = list(rule.find(stream))
        assert first == list(rule.find(stream)), rule.id


@pytest.mark.parametrize(
    ("profile", "rule", "end"),
    [
        ("openai-chat", "openai.done", "without data: [DONE]"),
        ("anthropic-messages", "anthropic.message-stop", "without message_stop"),
    ],
)
def test_empty_stream_never_ended(profile: str, rule: str, end: str) -> None:
    """A 200 event stream with no events at all is reported as never ending."""
    findings = check(Transcript.from_body(b""), profile)
    (violation,) = [f for f in findings if f.severity == "violation"]
    assert violation.rule == rule
    assert violation.message.startswith(f"the stream closed before any event {end}")
