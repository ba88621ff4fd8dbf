"""Run the rules of a profile over a transcript: ``check``, ``assert_conforms``, ``evaluate``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from ._finding import SEVERITIES, Finding, Severity
from ._profiles import rules
from ._providers import documented, provider
from ._rule import Hit, Rule
from ._signs import shows
from ._stream import Stream
from ._transcript import Transcript

__all__ = ["Outcome", "assert_conforms", "check", "evaluate"]

MAX_PER_RULE = 5  # beyond this, one finding says how many more a rule found


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of checking one exchange: which rules ran, and what they found.

    Attributes:
        exchange: a label for the exchange (``"stream"``, ``"stream with include_usage"``).
        rules: the rules of the profile(s), in table order.
        findings: what they found.
        skipped: ids of rules not run because there was no stream (or no response) to
            check; reports show them as not checked.
        profiles: the profiles checked (reports give each a line).
        why_skipped: why the skipped rules were not run, when a probe knows better than
            "no stream to check" (``sse-resume``: the stream's events carry no id).
        transcript: the exchange checked, when one transcript was (the HTML report shows
            its bytes and timeline).
    """

    exchange: str
    rules: tuple[Rule, ...]
    findings: tuple[Finding, ...]
    skipped: tuple[str, ...] = ()
    profiles: tuple[str, ...] = ()
    why_skipped: str | None = None
    transcript: Transcript | None = field(default=None, compare=False, repr=False)

    @property
    def violations(self) -> tuple[Finding, ...]:
        """The findings with severity ``"violation"``."""
        return tuple(f for f in self.findings if f.severity == "violation")


def evaluate(
    transcript: Transcript,
    profile: str | Sequence[str] = "openai-chat",
    exchange: str | None = None,
    *,
    as_: str | None = None,
) -> Outcome:
    """Check ``transcript`` against ``profile`` and keep which rules ran (for reports).

    ``exchange`` labels the findings when one check sends several requests; ``as_`` names
    the provider the stream comes from (see ``check``).

    Raises:
        ConfigError: an unknown profile or provider name.
    """
    notes = documented(as_) if as_ is not None else {}
    stream = Stream(transcript)
    chosen = rules(profile)
    findings: list[Finding] = []
    skipped: list[str] = []
    no_response = transcript.status is None
    for rule in chosen:
        if (stream.failed and not rule.always) or (no_response and rule.needs_response):
            skipped.append(rule.id)
            continue
        findings += _findings(rule, list(rule.find(stream)), exchange)
    if as_ is not None:
        options = provider(as_).options
        findings = [_as_note(f, notes, as_, stream, options) for f in findings]
    names = (profile,) if isinstance(profile, str) else tuple(profile)
    return Outcome(
        exchange or "stream", chosen, tuple(findings), tuple(skipped), names, transcript=transcript
    )


def _as_note(
    finding: Finding,
    notes: dict[str, tuple[str, ...]],
    as_: str,
    stream: Stream,
    options: Mapping[str, Mapping[str, str | int]],
) -> Finding:
    """``finding`` as a note naming the provider's quirks its event shows (``_signs``)."""
    quirks = [
        q
        for q in notes.get(finding.rule, ())
        if shows(q, stream, finding.event, options.get(q, {}))
    ]
    if not quirks:
        return finding
    return replace(
        finding,
        severity="note",
        message=f"{', '.join(quirks)} (documented for {as_.lower()}): {finding.message}",
    )


def check(
    transcript: Transcript,
    profile: str | Sequence[str] = "openai-chat",
    *,
    as_: str | None = None,
) -> list[Finding]:
    """Every finding of ``profile``'s rules on ``transcript``, in rule-table order.

    Args:
        transcript: the recorded exchange (see ``record`` and ``Transcript.from_body``).
        profile: ``"openai-chat"``, ``"openai-responses"``, ``"anthropic-messages"``,
            ``"gemini"``, ``"stream-equals-buffered"``, or a list of them.
        as_: the provider the stream comes from (``"groq"``, see
            ``mockhttp.llm.PROVIDERS``): what the rules find of its documented quirks is
            reported as a note naming the quirk; everything else as usual.

    Raises:
        ConfigError: an unknown profile or provider name; the message lists the known ones.
    """
    return list(evaluate(transcript, profile, as_=as_).findings)


def assert_conforms(
    transcript: Transcript,
    profile: str | Sequence[str] = "openai-chat",
    *,
    fail_on: Severity = "violation",
    as_: str | None = None,
) -> None:
    """Raise one AssertionError listing every finding if any is at least ``fail_on``.

    ``as_`` names the provider the stream comes from, as for ``check``.

    Raises:
        AssertionError: the stream breaks the contract; the message lists each finding with
            its rule id, where it is, and what was seen against what was expected.
    """
    __tracebackhide__ = True
    findings = check(transcript, profile, as_=as_)
    worst = SEVERITIES.index(fail_on)
    failing = [f for f in findings if SEVERITIES.index(f.severity) <= worst]
    if failing:
        lines = "\n".join(f"  {finding}" for finding in findings)
        raise AssertionError(
            f"{len(failing)} contract finding(s) at or above {fail_on!r} "
            f"({len(findings)} in all):\n{lines}"
        )


def _findings(rule: Rule, hits: list[Hit], exchange: str | None) -> list[Finding]:
    found = [
        Finding(rule.id, h.severity or rule.severity, h.message, h.event, h.offset, exchange)
        for h in hits[:MAX_PER_RULE]
    ]
    if len(hits) > MAX_PER_RULE:
        extra = hits[MAX_PER_RULE]
        more = len(hits) - MAX_PER_RULE
        found.append(
            Finding(
                rule.id,
                extra.severity or rule.severity,
                f"{more} more like the above, the next: {extra.message}",
                extra.event,
                extra.offset,
                exchange,
            )
        )
    return found
