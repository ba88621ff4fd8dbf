"""Reports over checked exchanges: a terminal table, JSON, and JUnit XML for CI."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from ._check import Outcome
from ._finding import SEVERITIES, Finding
from ._profiles import PROFILES
from ._rule import Rule

__all__ = ["format_json", "format_junit", "format_summary", "format_table", "summary"]

_HEADINGS = ("rule", "result", "where", "message")


def _rows(outcome: Outcome) -> list[tuple[str, str, str, str]]:
    rows: list[tuple[str, str, str, str]] = []
    for rule in outcome.rules:
        found = [f for f in outcome.findings if f.rule == rule.id]
        if rule.id in outcome.skipped:
            rows.append((rule.id, "skipped", "", _why_skipped(rule, outcome)))
        elif not found:
            rows.append((rule.id, "pass", "", ""))
        rows += [(f.rule, f.severity, f.where, f.message) for f in found]
    return rows


def _why_skipped(rule: Rule, outcome: Outcome) -> str:
    if outcome.why_skipped is not None:
        return outcome.why_skipped
    # a rule that runs without a stream is skipped only when no response arrived at all
    return "not checked: no response arrived" if rule.always else "no stream to check"


def summary(outcomes: Sequence[Outcome]) -> str:
    """``"1 violation, 0 warnings, 2 notes in 2 exchange(s)"``."""
    findings = [f for o in outcomes for f in o.findings]
    counts = [sum(f.severity == s for f in findings) for s in SEVERITIES]
    parts = [f"{n} {s}{'' if n == 1 else 's'}" for n, s in zip(counts, SEVERITIES, strict=True)]
    return f"{', '.join(parts)} in {len(outcomes)} exchange(s)"


def format_table(outcomes: Sequence[Outcome]) -> str:
    """One aligned table per exchange (rule, result, where, message), then a summary line."""
    blocks = []
    for outcome in outcomes:
        rows = [_HEADINGS, *_rows(outcome)]
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        lines = [
            "  ".join(cell.ljust(width) for cell, width in zip(row[:3], widths, strict=True))
            + "  "
            + row[3]
            for row in rows
        ]
        blocks.append(f"== {outcome.exchange}\n" + "\n".join(line.rstrip() for line in lines))
    return "\n\n".join([*blocks, summary(outcomes)]) + "\n"


def format_summary(outcomes: Sequence[Outcome]) -> str:
    """What failed first: per exchange, each violation and warning with where and why, then
    one line per profile (``pass`` when it found neither); the summary line last.  Notes
    are counted, not listed (``format_table`` lists every rule)."""
    blocks = []
    for outcome in outcomes:
        shown = sorted(
            (f for f in outcome.findings if f.severity != "note"),
            key=lambda f: SEVERITIES.index(f.severity),
        )
        lines = [f"== {outcome.exchange}"]
        lines += [f"{f.severity:<9}  {f.rule} at {f.where}: {f.message}" for f in shown]
        lines += [_profile_line(outcome, name) for name in outcome.profiles or ("rules",)]
        blocks.append("\n".join(lines))
    return "\n\n".join([*blocks, summary(outcomes)]) + "\n"


def _profile_line(outcome: Outcome, name: str) -> str:
    """``pass       openai-chat: 31 rules, 2 notes`` (or its violations and warnings)."""
    ids = {r.id for r in (PROFILES.get(name) if name in PROFILES else outcome.rules)}
    found = [f for f in outcome.findings if f.rule in ids]
    counts = {s: sum(f.severity == s for f in found) for s in SEVERITIES}
    skipped = [r for r in outcome.skipped if r in ids]
    verdict = "fail" if counts["violation"] else "warn" if counts["warning"] else "pass"
    parts = [_count(len(ids) - len(skipped), "rule") + " checked"]
    parts += [_count(n, s) for s, n in counts.items() if n]
    if skipped:
        why = _why_skipped(next(r for r in outcome.rules if r.id == skipped[0]), outcome)
        parts.append(f"{len(skipped)} not checked ({why})")
    return f"{verdict:<9}  {name}: {', '.join(parts)}"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _finding_json(finding: Finding) -> dict[str, Any]:
    return {
        "rule": finding.rule,
        "severity": finding.severity,
        "exchange": finding.exchange,
        "event": finding.event,
        "offset": finding.offset,
        "where": finding.where,
        "message": finding.message,
    }


def format_json(outcomes: Sequence[Outcome]) -> str:
    """Every finding with its rule id, severity, location and message, as a JSON document."""
    document = {
        "ok": not any(o.violations for o in outcomes),
        "summary": summary(outcomes),
        "exchanges": [
            {
                "exchange": o.exchange,
                "profiles": list(o.profiles),
                "rules": [rule.id for rule in o.rules],
                "skipped": list(o.skipped),
                **({"why_skipped": o.why_skipped} if o.why_skipped else {}),
                "findings": [_finding_json(f) for f in o.findings],
            }
            for o in outcomes
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def format_junit(outcomes: Sequence[Outcome]) -> str:
    """JUnit XML: a test suite per exchange, a test case per rule, violations as failures."""
    suites = ET.Element("testsuites", name="mockhttp check")
    for outcome in outcomes:
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=outcome.exchange,
            tests=str(len(outcome.rules)),
            failures=str(len({f.rule for f in outcome.violations})),
            skipped=str(len(outcome.skipped)),
        )
        for rule in outcome.rules:
            _testcase(suite, outcome, rule.id)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _testcase(suite: ET.Element, outcome: Outcome, rule_id: str) -> None:
    case = ET.SubElement(suite, "testcase", classname=outcome.exchange, name=rule_id)
    found = [f for f in outcome.findings if f.rule == rule_id]
    if rule_id in outcome.skipped:
        rule = next(r for r in outcome.rules if r.id == rule_id)
        ET.SubElement(case, "skipped", message=_why_skipped(rule, outcome))
    violations = [f for f in found if f.severity == "violation"]
    if violations:
        failure = ET.SubElement(case, "failure", message=violations[0].message)
        failure.text = "\n".join(str(f) for f in violations)
    others = [f for f in found if f.severity != "violation"]
    if others:
        ET.SubElement(case, "system-out").text = "\n".join(str(f) for f in others)
