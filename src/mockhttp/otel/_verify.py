"""Does a client's telemetry tell the truth?  Its spans held against what mockhttp served.

Each GenAI call in the journal (``_core._genai``: what the reply's bytes said) is paired
with the client's span for it: by ``gen_ai.response.id`` first, else by the span that was
open when the request arrived (same model).  Then, per pair, the checks:

- ``span``: every GenAI call has a span, and every GenAI span a call;
- ``response_id``, ``model``, ``provider``: ``gen_ai.response.id``,
  ``gen_ai.request.model`` / ``gen_ai.response.model``, ``gen_ai.provider.name`` (or the
  older ``gen_ai.system``) say what was asked and served;
- ``input_tokens``, ``output_tokens``: ``gen_ai.usage.*`` are the counts the reply carried
  (and absent when it carried none);
- ``finish_reasons``: ``gen_ai.response.finish_reasons`` are the reply's;
- ``stream_end``: a streamed span ends after the last chunk was written (not when the
  first arrived), or, for a stream the client hung up, no later than the hang-up the
  journal saw (``tolerance`` seconds either way);
- ``error``: a reply that carried a provider error has a span marked as one;
- ``tool_call``: each tool call a reply asked for has an ``execute_tool`` span (its
  ``gen_ai.tool.call.id``, else its ``gen_ai.tool.name``).

Rule 1: pure: calls and spans in, findings out; each finding says what the span says,
what was served, and where (the call and the span).
Rule 2: an attribute the span leaves out is no finding (it says less, nothing false);
a span that says what was not served is one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .._core._genai import GenAI, ToolUse
from ._spans import Span

__all__ = ["CHECKS", "Finding", "Served", "check"]

#: The checks, in the order findings are listed.
CHECKS = (
    "span",
    "response_id",
    "model",
    "provider",
    "input_tokens",
    "output_tokens",
    "finish_reasons",
    "stream_end",
    "error",
    "tool_call",
)
#: ``gen_ai.operation.name`` of a model call's span.
MODEL_CALLS = frozenset({"chat", "generate_content", "text_completion"})


@dataclass(frozen=True)
class Served:
    """One GenAI call as the journal saw it.

    Attributes:
        number: its place in the journal (1 for the first call).
        summary: ``POST /v1/chat/completions → mock ... (200), complete``.
        start: when the request arrived; end: when the reply ended (its last byte, or
            the hang-up), None when the journal does not know.
        outcome: how it ended (``complete``, ``client hung up``, ...).
        facts: what the reply said (``_core._genai``).
    """

    number: int
    summary: str
    start: float
    end: float | None
    outcome: str
    facts: GenAI

    def describe(self) -> str:
        return f"call {self.number} ({self.summary})"


@dataclass(frozen=True)
class Finding:
    """One way the telemetry differs from what was served.

    Attributes:
        check: which check (``CHECKS``).
        message: what the span says and what was served.
        call: the call it is about (``call 2 (POST ...)``), or empty.
        span: the span it is about (``span 'chat gpt-4o' (…)``), or empty.
    """

    check: str
    message: str
    call: str = ""
    span: str = ""

    def __str__(self) -> str:
        where = "; ".join(x for x in (self.span, self.call) if x)
        return f"[{self.check}] {self.message}" + (f"\n      ({where})" if where else "")


def check(
    served: Sequence[Served],
    spans: Sequence[Span],
    tolerance: float = 0.25,
    *,
    others: Sequence[Span] = (),
) -> list[Finding]:
    """The findings of ``spans`` against ``served`` (empty: the telemetry is truthful).

    ``others``: spans that may tell of these calls, or of calls judged elsewhere (one
    test's calls judged, the spans whose export named no test): those that pair with a
    call are checked like ``spans``, the rest are no finding (another test's span is
    not this test's to judge)."""
    every = [*spans, *others]
    model_spans = [s for s in every if s.get("gen_ai.operation.name") in MODEL_CALLS]
    pairs, lonely_calls, lonely_spans = pair(served, model_spans, tolerance)
    own = {id(s) for s in spans}
    findings: list[Finding] = []
    for call in lonely_calls:
        findings.append(Finding("span", _no_span(call), call.describe()))
    for span in lonely_spans:
        if id(span) in own:
            findings.append(Finding("span", _no_call(span), span=span.describe()))
    for call, span in pairs:
        findings += check_pair(call, span, tolerance)
    tools = [s for s in every if s.get("gen_ai.operation.name") == "execute_tool"]
    findings += check_tools([c for c, _ in pairs] + list(lonely_calls), tools)
    return sorted(findings, key=lambda f: CHECKS.index(f.check))


def pair(
    served: Sequence[Served], spans: Sequence[Span], tolerance: float
) -> tuple[list[tuple[Served, Span]], list[Served], list[Span]]:
    """Calls and spans paired: by response id, then by time (the span open at the
    request's arrival, the model the same); and those left of each."""
    by_id = {s.get("gen_ai.response.id"): s for s in spans if s.get("gen_ai.response.id")}
    pairs: list[tuple[Served, Span]] = []
    taken: set[str] = set()
    rest: list[Served] = []
    for call in served:
        span = by_id.get(call.facts.response_id) if call.facts.response_id else None
        if span is not None and span.span_id not in taken:
            pairs.append((call, span))
            taken.add(span.span_id)
        else:
            rest.append(call)
    lonely: list[Served] = []
    for call in rest:
        span = _open_at(call, [s for s in spans if s.span_id not in taken], tolerance)
        if span is None:
            lonely.append(call)
            continue
        pairs.append((call, span))
        taken.add(span.span_id)
    pairs.sort(key=lambda p: p[0].number)
    return pairs, lonely, [s for s in spans if s.span_id not in taken]


def _open_at(call: Served, spans: Iterable[Span], tolerance: float) -> Span | None:
    """The earliest span open when ``call`` arrived, of the model it asked for."""
    model = call.facts.request_model
    found = [
        s
        for s in spans
        if s.start - tolerance <= call.start <= s.end + tolerance
        and (model is None or s.get("gen_ai.request.model") in (None, model))
    ]
    return min(found, key=lambda s: s.start) if found else None


def _no_span(call: Served) -> str:
    facts = call.facts
    what = ", ".join(
        x
        for x in (
            f"model {facts.response_model or facts.request_model!r}",
            f"id {facts.response_id!r}" if facts.response_id else "",
        )
        if x
    )
    return (
        f"no span tells of this {facts.operation} call ({what}): no span has its "
        "gen_ai.response.id, and none was open when the request arrived"
    )


def _no_call(span: Span) -> str:
    said = span.get("gen_ai.response.id")
    told = f" (gen_ai.response.id {said!r})" if said else ""
    return f"the span tells of a call mockhttp never served{told}"


# -- the checks of a pair ---------------------------------------------------------------


def check_pair(call: Served, span: Span, tolerance: float) -> list[Finding]:
    """The findings of one call and its span."""
    facts = call.facts
    found: list[tuple[str, str]] = []
    said_id = span.get("gen_ai.response.id")
    if said_id is not None and facts.response_id is not None and said_id != facts.response_id:
        found.append(("response_id", _differs("gen_ai.response.id", said_id, facts.response_id)))
    found += _models(span, facts)
    provider = span.get("gen_ai.provider.name", span.get("gen_ai.system"))
    if provider is not None and provider != facts.provider:
        found.append(("provider", _differs("gen_ai.provider.name", provider, facts.provider)))
    found += _usage(span, facts)
    found += _finish(span, facts)
    found += _stream_end(call, span, tolerance)
    if facts.error is not None and span.status != "error" and not span.get("error.type"):
        found.append((
            "error",
            f"the reply carried the provider error {facts.error!r}, but the span is not "
            "marked as an error (status unset/ok and no error.type)",
        ))  # fmt: skip
    return [Finding(c, m, call.describe(), span.describe()) for c, m in found]


def _differs(key: str, said: Any, served: Any) -> str:
    return f"{key} is {said!r}, but mockhttp served {served!r}"


def _models(span: Span, facts: GenAI) -> list[tuple[str, str]]:
    found = []
    asked = span.get("gen_ai.request.model")
    if facts.request_model is not None and asked is not None and asked != facts.request_model:
        message = (
            f"gen_ai.request.model is {asked!r}, but the request asked for {facts.request_model!r}"
        )
        found.append(("model", message))
    said = span.get("gen_ai.response.model")
    if facts.response_model is not None and said is not None and said != facts.response_model:
        found.append(("model", _differs("gen_ai.response.model", said, facts.response_model)))
    return found


_USAGE = (
    ("input_tokens", "gen_ai.usage.input_tokens"),
    ("output_tokens", "gen_ai.usage.output_tokens"),
)


def _usage(span: Span, facts: GenAI) -> list[tuple[str, str]]:
    found = []
    for name, key in _USAGE:
        served, said = getattr(facts, name), span.get(key)
        if said is None:
            continue  # (Rule 2: it says less, nothing false)
        if served is None:
            found.append((name, f"{key} is {said!r}, but the reply carried no token usage"))
        elif said != served:
            found.append((name, f"{key} is {said!r}, but the reply carried {served}"))
    return found


def _finish(span: Span, facts: GenAI) -> list[tuple[str, str]]:
    said = span.get("gen_ai.response.finish_reasons")
    if said is None:
        return []
    said = list(said) if isinstance(said, list | tuple) else [said]
    if said == facts.finish_reasons:
        return []
    if not facts.finish_reasons:
        why = "the reply ended before any finish reason was sent"
        return [("finish_reasons", f"gen_ai.response.finish_reasons is {said!r}, but {why}")]
    key = "gen_ai.response.finish_reasons"
    return [("finish_reasons", _differs(key, said, facts.finish_reasons))]


def _stream_end(call: Served, span: Span, tolerance: float) -> list[tuple[str, str]]:
    if not call.facts.streamed or call.end is None:
        return []
    if call.outcome == "complete" and span.end < call.end - tolerance:
        return [(
            "stream_end",
            f"the span ended {_ms(call.end - span.end)} before the stream's last chunk was "
            f"written ({call.facts.chunks} chunks): a streamed span ends after the last one",
        )]  # fmt: skip
    if call.outcome == "client hung up" and span.end > call.end + tolerance:
        return [(
            "stream_end",
            f"the client hung up on the stream (the journal saw it), but its span ended "
            f"{_ms(span.end - call.end)} later",
        )]  # fmt: skip
    return []


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def check_tools(calls: Sequence[Served], tools: Sequence[Span]) -> list[Finding]:
    """Each tool call a reply asked for has an ``execute_tool`` span: by its call id, else
    by its name (a span without a call id, or any when the reply gave none); each span
    counts once."""
    unused = list(tools)
    findings: list[Finding] = []
    for call in calls:
        for use in call.facts.tool_calls:
            found = _tool_span(use, unused)
            if found is None:
                findings.append(Finding("tool_call", _no_tool(use), call.describe()))
                continue
            unused.remove(found)
            _check_tool_name(findings, call, use, found)
    return findings


def _tool_span(use: ToolUse, spans: Sequence[Span]) -> Span | None:
    if use.id is not None:
        for span in spans:
            if span.get("gen_ai.tool.call.id") == use.id:
                return span
    for span in spans:
        if span.get("gen_ai.tool.name") == use.name and (
            use.id is None or span.get("gen_ai.tool.call.id") is None
        ):
            return span
    return None


def _check_tool_name(findings: list[Finding], call: Served, use: ToolUse, span: Span) -> None:
    said = span.get("gen_ai.tool.name")
    if said is not None and said != use.name:
        message = f"gen_ai.tool.name is {said!r}, but the reply asked for {use.name!r} ({use.id})"
        findings.append(Finding("tool_call", message, call.describe(), span.describe()))


def _no_tool(use: ToolUse) -> str:
    which = f"gen_ai.tool.call.id {use.id!r} or " if use.id else ""
    return (
        f"the reply asked for the tool {use.name!r}, but no execute_tool span has "
        f"{which}gen_ai.tool.name {use.name!r}"
    )
