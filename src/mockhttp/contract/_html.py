"""An HTML report of checked exchanges (``mockhttp check --html FILE``): one page, no script.

Per exchange, the findings come first (violations, then warnings, then notes), each with
the rule's explanation and **the bytes around it** (control characters shown greyed:
``\\r`` for CR, ``\\n`` for LF), then **the stream's timeline**: every event at its
arrival time (or at its byte offset when the capture has no times), the events a finding
concerns marked, and the table of events.  The rules that passed or were skipped close the section.

Rule 1: everything from the wire is escaped (``html.escape``); the page loads nothing and
runs nothing.  Rule 2: pure: outcomes in, text out; the caller redacts and writes it.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from .._core._sse_decode import Message
from ._check import Outcome
from ._finding import SEVERITIES, Finding
from ._report import summary
from ._rule import Rule
from ._stream import Stream
from ._transcript import Transcript

__all__ = ["format_html"]

_AROUND = 96  # bytes shown either side of a finding's offset
_WIDTH, _HEIGHT, _PAD = 760, 64, 24  # the timeline's drawing
_CONTROLS = (("\r", "\\r"), ("\n", "\\n"), ("\t", "\\t"), ("\0", "\\0"))

_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;
color:#1b1b1b}
h1{font-size:1.5rem}h2{font-size:1.2rem;border-top:1px solid #ccc;padding-top:1rem}
.violation .badge,tr.violation{color:#a40000}.warning .badge{color:#7a4b00}
.note .badge{color:#245}.ctl{color:#888}
.badge{font-weight:600;text-transform:uppercase;font-size:.8rem;letter-spacing:.03em}
pre{background:#f5f5f5;padding:.6rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
mark{background:#ffd54f}table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
td.data{font-family:monospace;word-break:break-all}
svg .tick{stroke:#1565c0;stroke-width:2}svg .hit{stroke:#c62828;stroke-width:4}
svg text{font:11px system-ui,sans-serif;fill:#444}
"""


def format_html(outcomes: Sequence[Outcome], title: str = "mockhttp check") -> str:
    """The report as one HTML document."""
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>",
        f"<header><h1>{html.escape(title)}</h1>",
        f'<p id="summary">{html.escape(summary(outcomes))}</p></header><main>',
    ]
    parts += [_exchange(i, o) for i, o in enumerate(outcomes)]
    parts.append("</main></body></html>\n")
    return "\n".join(parts)


def _exchange(index: int, outcome: Outcome) -> str:
    stream = Stream(outcome.transcript) if outcome.transcript is not None else None
    rules = {r.id: r for r in outcome.rules}
    shown = sorted(outcome.findings, key=lambda f: SEVERITIES.index(f.severity))
    label = html.escape(outcome.exchange)
    profiles = html.escape(", ".join(outcome.profiles) or "rules")
    parts = [
        f'<section aria-labelledby="x{index}"><h2 id="x{index}">{label}</h2>',
        f"<p>Profiles: {profiles}. {_status(outcome.transcript)}</p>",
        f"<h3>Findings ({len(shown)})</h3>",
    ]
    if shown:
        parts.append("<ol class=findings>")
        parts += [_finding(f, rules.get(f.rule), stream) for f in shown]
        parts.append("</ol>")
    else:
        parts.append("<p>None: every rule that ran passed.</p>")
    if stream is not None:
        parts.append(_timeline(stream, {f.event for f in shown if f.event is not None}))
    parts.append(_rules_run(outcome))
    parts.append("</section>")
    return "\n".join(parts)


def _status(transcript: Transcript | None) -> str:
    if transcript is None:
        return ""
    if transcript.status is None:
        return f"No response: {html.escape(transcript.error or 'unknown')}."
    kind = html.escape(transcript.header("content-type") or "no content type")
    size = sum(len(c.data) for c in transcript.chunks)
    return f"Status {transcript.status}, {kind}, {size} body bytes."


def _finding(finding: Finding, rule: Rule | None, stream: Stream | None) -> str:
    sev = finding.severity
    parts = [
        f'<li class="{sev}"><p><span class="badge">{sev}</span> ',
        f"<code>{html.escape(finding.rule)}</code> at {html.escape(finding.where)}: ",
        f"{html.escape(finding.message)}</p>",
    ]
    if rule is not None:
        parts.append(f"<p>Checks: {html.escape(rule.checks)} Why: {html.escape(rule.why)}</p>")
    if stream is not None:
        around = _around(finding, stream)
        if around:
            parts.append(f'<pre aria-label="the bytes around it">{around}</pre>')
    parts.append("</li>")
    return "".join(parts)


def _body(stream: Stream) -> bytes:
    return b"".join(c.data for c in stream.transcript.chunks)


def _around(finding: Finding, stream: Stream) -> str:
    """The bytes around the finding, its event (or else its byte) marked; a finding at
    the end of the body marks the end (``[end]``)."""
    body = _body(stream)
    if finding.event is not None and finding.event < len(stream.messages):
        message = stream.messages[finding.event]
        start, end = message.offset, message.end
    elif finding.offset is not None:
        start, end = finding.offset, min(len(body), finding.offset + 1)
    else:
        return ""
    lo, hi = max(0, start - _AROUND), min(len(body), end + _AROUND)
    marked = _visible(body[start:end]) if end > start else "[end]"
    return f"{_visible(body[lo:start])}<mark>{marked}</mark>{_visible(body[end:hi])}"


def _visible(data: bytes) -> str:
    """``data`` as escaped text, its control characters shown (``\\r``, ``\\n``: greyed)."""
    text = html.escape(data.decode("utf-8", "replace"))
    for char, shown in _CONTROLS:
        after = "\n" if char == "\n" else ""
        text = text.replace(char, f'<span class="ctl">{shown}</span>{after}')
    return text


def _timeline(stream: Stream, hits: set[int]) -> str:
    messages = stream.messages
    if not messages:
        return "<h3>Timeline</h3><p>No event was dispatched.</p>"
    timed = all(m.at is not None for m in messages)
    marks = [(m.at if timed else m.offset) or 0.0 for m in messages]
    span = max(marks) or 1.0
    unit = "arrival time" if timed else "byte offset (the capture has no times)"
    ticks = []
    for m, mark in zip(messages, marks, strict=True):
        x = _PAD + (_WIDTH - 2 * _PAD) * mark / span
        cls = "hit" if m.index in hits else "tick"
        ticks.append(
            f'<line class="{cls}" x1="{x:.1f}" x2="{x:.1f}" y1="12" y2="{_HEIGHT - 22}">'
            f"<title>event {m.index}: {html.escape(m.event)} at {_at(m, timed)}</title></line>"
        )
    end = f"{span * 1000:.1f} ms" if timed else f"byte {int(span)}"
    label = f"{len(messages)} events by {unit}; {len(hits)} with findings, marked red"
    svg = (
        f'<svg role="img" aria-label="{html.escape(label)}" width="{_WIDTH}" '
        f'height="{_HEIGHT}" viewBox="0 0 {_WIDTH} {_HEIGHT}">'
        f'<line x1="{_PAD}" x2="{_WIDTH - _PAD}" y1="{_HEIGHT - 22}" y2="{_HEIGHT - 22}" '
        f'stroke="#999"/>{"".join(ticks)}'
        f'<text x="{_PAD}" y="{_HEIGHT - 6}">0</text>'
        f'<text x="{_WIDTH - _PAD}" y="{_HEIGHT - 6}" text-anchor="end">{end}</text></svg>'
    )
    rows = "".join(_event_row(m, timed, m.index in hits) for m in messages)
    table = (
        "<table><caption>Events</caption><thead><tr><th scope=col>#</th>"
        "<th scope=col>at</th><th scope=col>event</th><th scope=col>id</th>"
        f"<th scope=col>data</th></tr></thead><tbody>{rows}</tbody></table>"
    )
    figure = f"<figure>{svg}<figcaption>{html.escape(label)}</figcaption></figure>"
    return f"<h3>Timeline</h3>{figure}{table}"


def _at(message: Message, timed: bool) -> str:
    return f"{(message.at or 0.0) * 1000:.1f} ms" if timed else f"byte {message.offset}"


def _event_row(message: Message, timed: bool, hit: bool) -> str:
    data = message.data if len(message.data) <= 160 else message.data[:157] + "…"
    cls = ' class="violation"' if hit else ""
    return (
        f"<tr{cls}><td>{message.index}</td><td>{_at(message, timed)}</td>"
        f"<td>{html.escape(message.event)}</td><td>{html.escape(message.id)}</td>"
        f'<td class="data">{html.escape(data)}</td></tr>'
    )


def _rules_run(outcome: Outcome) -> str:
    found = {f.rule for f in outcome.findings}
    rows = []
    for rule in outcome.rules:
        state = (
            "skipped" if rule.id in outcome.skipped else "finding" if rule.id in found else "pass"
        )
        rows.append(
            f"<tr><td><code>{html.escape(rule.id)}</code></td><td>{state}</td>"
            f"<td>{html.escape(rule.checks)}</td></tr>"
        )
    return (
        f"<details><summary>Rules run ({len(outcome.rules)})</summary><table>"
        "<thead><tr><th scope=col>rule</th><th scope=col>result</th>"
        f"<th scope=col>checks</th></tr></thead><tbody>{''.join(rows)}</tbody></table></details>"
    )
