"""Transcripts, findings and reports: pure data in, text out."""

from __future__ import annotations

import ast
import json
import re
import types
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import mockhttp.contract as contract
import mockhttp.sse as sse
from mockhttp.contract import (
    Chunk,
    Finding,
    Transcript,
    evaluate,
    format_json,
    format_junit,
    format_summary,
    format_table,
    parse_head,
)
from mockhttp.contract._report import summary
from tests.helpers.contract_streams import BREAKING

SRC = Path(contract.__file__).resolve().parent


def test_parse_head_takes_the_last_head() -> None:
    """A curl -D file with 100 Continue and an HTTP/2 head yields the final status."""
    text = (
        "HTTP/1.1 100 Continue\r\n\r\n"
        "HTTP/2 200\r\nContent-Type: text/event-stream\r\nx-a: 1:2\r\n\r\n"
    )
    assert parse_head(text) == (200, (("Content-Type", "text/event-stream"), ("x-a", "1:2")))


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "head file is empty"), ("200 OK\n", "not a status line: '200 OK'")],
)
def test_parse_head_rejects_what_is_not_a_head(text: str, message: str) -> None:
    """Text without a status line raises ValueError quoting what was found."""
    with pytest.raises(ValueError, match=message):
        parse_head(text)


def test_transcript_from_body_and_header_lookup() -> None:
    """from_body keeps chunks in order; header lookup ignores case; json parses the body."""
    t = Transcript.from_body([b'{"a":', b"1}"], headers=[("Content-Type", "application/json")])
    assert t.chunks == (Chunk(b'{"a":'), Chunk(b"1}"))
    assert (t.header("content-type"), t.header("x-missing"), t.json()) == (
        "application/json",
        None,
        {"a": 1},
    )


def test_finding_where_and_text() -> None:
    """A finding prints its exchange, rule, severity, place and message on one line."""
    finding = Finding("openai.done", "violation", "no [DONE]", None, 120, "stream")
    assert finding.where == "byte 120"
    assert str(finding) == "[stream] openai.done (violation) at byte 120: no [DONE]"
    assert Finding("x.y", "note", "m").where == "stream"


def test_table_lists_every_rule_with_its_result() -> None:
    """The table has a row per rule (pass, or each finding) and a summary line."""
    case = BREAKING["openai.finish-once"]
    table = format_table([evaluate(case.transcript(), case.profile, "demo")])
    lines = table.splitlines()
    assert lines[0] == "== demo"
    assert lines[1].split() == ["rule", "result", "where", "message"]
    assert any(line.startswith("openai.finish-once") and "violation" in line for line in lines)
    assert any(line.split() == ["openai.done", "pass"] for line in lines)
    assert lines[-1] == "1 violation, 0 warnings, 0 notes in 1 exchange(s)"


def test_table_and_junit_show_skipped_rules_when_there_is_no_stream() -> None:
    """Rules that need a stream are shown as skipped after a failed exchange; so are the
    status and content-type rules when no response arrived (not checked, not a pass)."""
    outcome = evaluate(Transcript(status=None, error="ReadTimeout"), "openai-chat")
    table = format_table([outcome])
    for rule in ("openai.done", "http.status", "http.content-type"):
        assert re.search(rf"^{re.escape(rule)} +skipped", table, re.M), rule
    suite = ET.fromstring(format_junit([outcome])).find("testsuite")
    assert suite is not None
    assert suite.get("skipped") == str(len(outcome.skipped))
    assert len(outcome.skipped) == len(outcome.rules) - 1  # all but http.transport


def test_json_report_has_every_finding_with_its_location() -> None:
    """--json output carries rule, severity, exchange, event, offset, where and message."""
    outcome = evaluate(BREAKING["openai.stable-id"].transcript(), exchange="stream")
    document = json.loads(format_json([outcome]))
    assert document["ok"] is False
    (finding,) = [f for f in document["exchanges"][0]["findings"] if f["severity"] != "note"]
    assert finding == {
        "rule": "openai.stable-id",
        "severity": "violation",
        "exchange": "stream",
        "event": 3,
        "offset": finding["offset"],
        "where": f"event 3, byte {finding['offset']}",
        "message": 'id was "x", expected "chatcmpl-1" as on event 0',
    }


def test_junit_puts_notes_in_system_out() -> None:
    """Notes and warnings do not fail a JUnit test case; they go to its output."""
    outcome = evaluate(BREAKING["openai.empty-choices"].transcript())
    root = ET.fromstring(format_junit([outcome]))
    case = next(c for c in root.iter("testcase") if c.get("name") == "openai.empty-choices")
    assert case.find("failure") is None
    out = case.find("system-out")
    assert out is not None
    assert "empty choices list" in (out.text or "")


@pytest.mark.parametrize("module", [contract, sse])
def test_public_names_are_exported_and_documented(module: types.ModuleType) -> None:
    """__all__ lists every public name once; each public callable has a docstring."""
    public = {n for n in vars(module) if not n.startswith("_")} - {"annotations"}
    public = {n for n in public if not isinstance(getattr(module, n), types.ModuleType)}
    assert set(module.__all__) == public
    assert len(module.__all__) == len(set(module.__all__))
    for name in module.__all__:
        value = getattr(module, name)
        if isinstance(value, (type, types.FunctionType)):
            assert getattr(value, "__doc__", None), name


PURE = ["_transcript", "_finding", "_stream", "_rule", "_common", "_openai", "_buffered"]
PURE += ["_anthropic", "_profiles", "_check", "_report", "_openai_shape", "_responses", "_gemini"]


@pytest.mark.parametrize("name", PURE)
def test_rule_modules_are_pure(name: str) -> None:
    """The rules and reports import no socket, thread, clock, OS or HTTP client module."""
    tree = ast.parse((SRC / f"{name}.py").read_text())
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 0
    }
    assert not imported & {"socket", "threading", "asyncio", "time", "os", "select", "httpx"}


def test_the_summary_leads_with_what_failed_and_gives_each_profile_a_line() -> None:
    """Violations, then warnings, with where and why in JSON terms; notes only counted;
    one line per profile; --verbose (format_table) keeps every rule."""
    outcome = evaluate(BREAKING["openai.stable-id"].transcript(), exchange="stream")
    text = format_summary([outcome])
    lines = text.splitlines()
    assert lines[0] == "== stream"
    assert lines[1].startswith("violation  openai.stable-id at event 3, byte ")
    assert lines[1].endswith(': id was "x", expected "chatcmpl-1" as on event 0')
    assert lines[-3].startswith("fail       openai-chat: 40 rules checked, 1 violation")
    assert lines[-1] == summary([outcome])
    assert "'" not in text
    assert "None" not in text
    assert " pass " not in text
    assert len(format_table([outcome]).splitlines()) > 40


def test_a_refused_request_is_one_line_and_the_rules_not_checked_are_counted() -> None:
    """A 401: the status finding, then the profile line says how many rules were not run."""
    refused = Transcript.from_body(b'{"error": "no key"}', status=401)
    text = format_summary([evaluate(refused, exchange="stream")])
    assert text.count("\n") == 5
    assert "violation  http.status at stream: " in text
    assert "not checked (no stream to check)" in text
