"""OpenTelemetry and mockhttp: the GenAI telemetry contract (docs/telemetry.md).

- ``serve --otel`` / ``Server(otel=True)``: a span per call, with the GenAI semantic
  conventions for LLM replies, through the OpenTelemetry SDK and its OTLP/HTTP exporter
  (configured by the ``OTEL_*`` variables);
- :func:`collector`: a mock that receives a client's own OTLP/HTTP traces;
- :func:`verify` / :func:`assert_telemetry`: those spans held against what was served,
  by the whole server or by one test (per-test isolation: a ``ScopedServer``).

``pip install 'mockhttp[otel]'`` for the SDK, the exporter and ``opentelemetry-proto``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._core._errors import ConfigError, VerificationError
from .._core._genai import genai_of
from .._core._registry import register_reply_kind
from .._server._tests import ScopedServer
from ._collector import TRACES_PATH, Collector, collector
from ._spans import OTLPError, Span, from_json, from_protobuf, read_export
from ._verify import CHECKS, Finding, Served, check

if TYPE_CHECKING:
    from .._server._journal import Call
    from .._server._server import Server
    from .._server._verify import ActiveMock

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


def spans(server: Server | ScopedServer, *, test: str | None = None) -> list[Span]:
    """The spans the collectors of ``server`` have received: every one; for one test
    (``server.test(id)``, or ``test=id``) those its own collectors received and those the
    shared ones received on an export that named it (its header or its prefix)."""
    judged = judged_by(server, test)
    if isinstance(judged, ScopedServer):
        return _collected(judged.mocks) + _named(judged.shared_mocks, judged.id)
    return _collected(judged.mocks)


def _collectors(mocks: Sequence[ActiveMock]) -> list[Collector]:
    return [a.mock.kind for a in mocks if isinstance(a.mock.kind, Collector)]


def _collected(mocks: Sequence[ActiveMock]) -> list[Span]:
    """Every span the collectors among ``mocks`` received."""
    return [span for kind in _collectors(mocks) for span in kind.spans]


def _named(mocks: Sequence[ActiveMock], test: str | None) -> list[Span]:
    """The spans of the exports that named ``test`` (None: that named no test)."""
    return [span for kind in _collectors(mocks) for span in kind.spans_for(test)]


def judged_by(server: Server | ScopedServer, test: str | None) -> Server | ScopedServer:
    """``server``, or its test ``test`` (a ``ScopedServer``).

    Raises:
        ConfigError: ``test`` names another test than the ``ScopedServer`` given."""
    if test is None:
        return server
    if isinstance(server, ScopedServer):
        if server.id != test:
            raise ConfigError(f"test={test!r}, but the ScopedServer given is test {server.id!r}")
        return server
    return server.test(test)


def served(server: Server | ScopedServer, *, test: str | None = None) -> list[Served]:
    """The GenAI calls of ``server``'s journal (or one test's: ``server.test(id)``, or
    ``test=id``), with what each reply said."""
    found = []
    for number, call in enumerate(judged_by(server, test).journal, 1):
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
    server: Server | ScopedServer,
    *,
    test: str | None = None,
    received: Sequence[Span] | None = None,
    tolerance: float = 0.25,
) -> list[Finding]:
    """The findings of the client's telemetry against what ``server`` served: the spans
    its collectors received (or ``received``); empty when the telemetry tells the truth.

    One test's calls alone (per-test isolation): pass its ``ScopedServer``
    (``server.test(id)``) or ``test=id``.  Its spans are those of its own collectors and
    of the exports that named it; a span whose export named no test counts when it tells
    of one of the test's calls and is no finding otherwise (it may be another test's).
    The whole server's verification judges the shared journal and the spans whose export
    named no test.

    Flush the client's exporter first (``provider.force_flush()``): spans exported after
    this call are not seen.  ``tolerance``: seconds a span's end may be off the journal's
    (a stream's last chunk, a hang-up)."""
    judged = judged_by(server, test)
    calls = served(judged)
    if received is not None:
        return check(calls, list(received), tolerance)
    if isinstance(judged, ScopedServer):
        unnamed = _named(judged.shared_mocks, None)
        return check(calls, spans(judged), tolerance, others=unnamed)
    return check(calls, _named(judged.mocks, None), tolerance)


def assert_telemetry(
    server: Server | ScopedServer,
    *,
    test: str | None = None,
    received: Sequence[Span] | None = None,
    tolerance: float = 0.25,
) -> None:
    """Raise when the client's telemetry differs from what ``server`` (or one test, as
    :func:`verify` says) served.

    Raises:
        VerificationError: the findings, one a line, each with its explanation.
    """
    findings = verify(server, test=test, received=received, tolerance=tolerance)
    if findings:
        lines = [f"  {i}. {f}" for i, f in enumerate(findings, 1)]
        head = f"the telemetry does not match what mockhttp served ({len(findings)} findings):"
        raise VerificationError("\n".join([head, *lines]))


register_reply_kind(Collector.file_key, Collector)
