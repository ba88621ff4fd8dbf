"""The contract harness against mockhttp's own server on 127.0.0.1 (loopback only)."""

from __future__ import annotations

import socket
from collections import Counter
from dataclasses import replace

import pytest

import mockhttp
from mockhttp import Event, fault
from mockhttp.contract import Transcript, assert_conforms, check, record
from mockhttp.contract._stream import Stream
from mockhttp.sse import Message, decode
from tests.helpers.contract_streams import BREAKING, OPENAI, REFERENCE_BY_NAME, REFERENCES, Case

PATH = "/v1/chat/completions"


def served(server: mockhttp.Server, case: Case, *faults: fault.Fault) -> Transcript:
    """Serve ``case`` from the mock server and record the exchange over loopback."""
    server.reset()
    server.mock(mockhttp.post(PATH).pipe(*faults).reply(case.reply()))
    transcript = record(server.url + PATH, case.request, timeout=10)
    transcript = replace(transcript, buffered=case.buffered)
    if case.before is None:
        return transcript
    return replace(transcript, before=case.transcript().before)  # sse-resume: its first read


def rule_counts(transcript: Transcript, case: Case) -> Counter[str]:
    """How many findings each rule made."""
    return Counter(f.rule for f in check(transcript, case.profile))


@pytest.mark.parametrize("case", REFERENCES, ids=lambda c: c.name)
def test_reference_served_by_mockhttp_passes(server: mockhttp.Server, case: Case) -> None:
    """A reference-shaped stream recorded off the wire draws no violation or warning."""
    transcript = served(server, case)
    assert transcript.body == case.body
    assert [f for f in check(transcript, case.profile) if f.severity != "note"] == []
    assert_conforms(transcript, case.profile, fail_on="warning")


@pytest.mark.parametrize("rule", sorted(BREAKING))
def test_breaking_stream_on_the_wire_names_exactly_its_rule(
    server: mockhttp.Server, rule: str
) -> None:
    """Each breaking stream, served and recorded, is reported under exactly its rule."""
    case = BREAKING[rule]
    base = rule_counts(served(server, REFERENCE_BY_NAME[case.reference]), case)
    assert set(rule_counts(served(server, case), case) - base) == {rule}


def test_comments_crlf_and_one_byte_writes_pass(server: mockhttp.Server) -> None:
    """Keep-alive comments, CRLF framing and 1-byte writes break no rule."""
    events = (
        Event(comment="OPENROUTER PROCESSING"),
        *OPENAI[:3],
        Event(comment="ping"),
        *OPENAI[3:],
    )
    case = replace(REFERENCE_BY_NAME["openai reference"], events=events, line_ending="\r\n")
    transcript = served(server, case, fault.slice(1))
    assert len(transcript.chunks) > len(events)
    findings = check(transcript)
    assert {f.rule for f in findings} == {"sse.comments", "sse.line-endings"}
    assert {f.severity for f in findings} == {"note"}


def test_one_byte_writes_decode_like_the_whole_body(server: mockhttp.Server) -> None:
    """The events read in 1-byte pieces equal the events of the whole body."""
    case = REFERENCE_BY_NAME["openai reference"]
    transcript = served(server, case, fault.slice(1))
    stream = Stream(transcript)
    assert [m.data for m in stream.messages] == [
        m.data for m in decode(case.body) if isinstance(m, Message)
    ]


def test_arrival_times_are_recorded_per_read(server: mockhttp.Server) -> None:
    """Reads of a stream with 30 ms between events carry increasing arrival times."""
    server.mock(mockhttp.post(PATH).reply(mockhttp.ok().event_stream(*OPENAI, event_delay=0.03)))
    transcript = record(server.url + PATH, {"stream": True}, timeout=10)
    times = [c.at for c in transcript.chunks if c.at is not None]
    assert len(times) == len(transcript.chunks) >= 2
    assert times == sorted(times)
    assert times[-1] - times[0] >= 0.1


def test_connection_refused_is_a_finding_not_a_traceback() -> None:
    """Recording against a closed port gives a transcript whose check is http.transport."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    transcript = record(f"http://127.0.0.1:{port}{PATH}", {"stream": True}, timeout=5)
    (finding,) = check(transcript)
    assert (finding.rule, transcript.status) == ("http.transport", None)
    assert "ConnectError" in finding.message


def test_connection_cut_mid_stream_is_a_transport_finding(server: mockhttp.Server) -> None:
    """A body cut after 300 bytes: http.transport, and the rules check what arrived."""
    transcript = served(server, REFERENCE_BY_NAME["openai reference"], fault.limit_data(300))
    assert len(transcript.body) == 300
    assert transcript.error is not None
    assert [f.rule for f in check(transcript)] == [
        "http.transport",  # the cut itself, then what it cost:
        "sse.unterminated",
        "openai.done",
        "openai.finish-once",
        "openai.usage-once",
    ]


def test_assert_conforms_lists_every_finding(server: mockhttp.Server) -> None:
    """assert_conforms raises one AssertionError naming each finding's rule and place."""
    case = BREAKING["openai.after-finish"]
    transcript = served(server, replace(case, events=(Event(comment="hi"), *case.events)))
    with pytest.raises(AssertionError) as raised:
        assert_conforms(transcript)
    text = str(raised.value)
    assert text.startswith("1 contract finding(s) at or above 'violation' (2 in all):")
    assert "openai.after-finish (violation) at event 4" in text
    assert "sse.comments (note)" in text
