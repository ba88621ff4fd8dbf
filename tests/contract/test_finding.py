"""A finding as a report shows it (``contract._finding``): the rule, its severity, where in
the stream (event, byte, or the whole stream) and which exchange."""

from __future__ import annotations

import pytest

from mockhttp.contract import Finding
from mockhttp.contract._finding import SEVERITIES


@pytest.mark.parametrize(
    ("event", "offset", "where"),
    [
        (3, 120, "event 3, byte 120"),
        (None, 40, "byte 40"),
        (0, None, "event 0"),
        (None, None, "stream"),
    ],
)
def test_where_is_the_event_and_byte_or_the_stream(event, offset, where: str) -> None:
    assert Finding("openai.done", "violation", "m", event=event, offset=offset).where == where


def test_a_finding_reads_as_one_line() -> None:
    finding = Finding("openai.done", "violation", "no [DONE] after the last chunk", 7, 812)
    assert str(finding) == (
        "openai.done (violation) at event 7, byte 812: no [DONE] after the last chunk"
    )


def test_the_exchange_comes_first_when_there_are_several() -> None:
    finding = Finding("http.status", "warning", "got 201", exchange="stream")
    assert str(finding) == "[stream] http.status (warning) at stream: got 201"


def test_severities_are_ordered_from_the_worst() -> None:
    assert SEVERITIES == ("violation", "warning", "note")


def test_findings_are_values() -> None:
    assert Finding("a.b", "note", "x", 1) == Finding("a.b", "note", "x", 1)
    assert len({Finding("a.b", "note", "x", 1), Finding("a.b", "note", "x", 1)}) == 1
