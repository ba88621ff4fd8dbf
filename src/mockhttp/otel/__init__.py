"""OpenTelemetry and mockhttp: the GenAI telemetry contract (docs/telemetry.md).

- ``serve --otel`` / ``Server(otel=True)``: a span per call, with the GenAI semantic
  conventions for LLM replies, through the OpenTelemetry SDK and its OTLP/HTTP exporter
  (configured by the ``OTEL_*`` variables);
- :func:`collector`: a mock that receives a client's own OTLP/HTTP traces;
- :func:`verify` / :func:`assert_telemetry`: those spans held against what was served.

``pip install 'mockhttp[otel]'`` for the SDK, the exporter and ``opentelemetry-proto``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._core._errors import VerificationError
from .._core._genai import genai_of
from .._core._registry import register_reply_kind
from ._collector import TRACES_PATH, Collector, collector
from ._spans import OTLPError, Span, from_json, from_protobuf, read_export
from ._verify import CHECKS, Finding, Served, check

if TYPE_CHECKING:
    from .._server._journal import Call
    from .._server._server import Server

__all__ = [
    "CHECKS",
    "TRACES_PATH",
    "Collector",
    "Finding",
    "OTLPError",
    "Served",
    "Span",
    "assert_telemetry",
    "collector",
    "from_json",
    "from_protobuf",
    "read_export",
    "served",
    "spans",
    "verify",
]


def spans(server: Server) -> list[Span]:
    """The spans every collector of ``server`` has received."""
    found: list[Span] = []
    for active in server.mocks:
        kind = active.mock.kind
        if isinstance(kind, Collector):
            found += kind.spans
    return found


def served(server: Server) -> list[Served]:
    """The GenAI calls of ``server``'s journal, with what each reply said."""
    found = []
    for number, call in enumerate(server.journal, 1):
        if call.mock is not None and isinstance(call.mock.kind, Collector):
            continue
        facts = genai_of(
            call.request.method, call.request.path, call.request.body, bytes(call.body_sent)
        )
        if facts is not None:
            found.append(Served(number, call.summary(), call.time, _end(call), call.outcome, facts))
    return found


def _end(call: Call) -> float | None:
    """When the reply ended (its last byte, or the hang-up), if the journal knows: a reply
    the fast lane wrote in one write ended when it came (``Call.end_time``)."""
    if call.end_time is not None:
        return call.end_time
    if call.cut_time is not None:
        return call.cut_time
    return call.time if call.outcome == "complete" else None


def verify(
    server: Server, *, received: Sequence[Span] | None = None, tolerance: float = 0.25
) -> list[Finding]:
    """The findings of the client's telemetry against what ``server`` served: the spans
    its collectors received (or ``received``); empty when the telemetry tells the truth.

    Flush the client's exporter first (``provider.force_flush()``): spans exported after
    this call are not seen.  ``tolerance``: seconds a span's end may be off the journal's
    (a stream's last chunk, a hang-up)."""
    found = spans(server) if received is None else list(received)
    return check(served(server), found, tolerance)


def assert_telemetry(
    server: Server, *, received: Sequence[Span] | None = None, tolerance: float = 0.25
) -> None:
    """Raise when the client's telemetry differs from what ``server`` served.

    Raises:
        VerificationError: the findings, one a line, each with its explanation.
    """
    findings = verify(server, received=received, tolerance=tolerance)
    if findings:
        lines = [f"  {i}. {f}" for i, f in enumerate(findings, 1)]
        head = f"the telemetry does not match what mockhttp served ({len(findings)} findings):"
        raise VerificationError("\n".join([head, *lines]))


register_reply_kind(Collector.file_key, Collector)
