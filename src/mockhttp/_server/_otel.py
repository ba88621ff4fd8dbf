"""``serve --otel``: a span per call, through the OpenTelemetry SDK.

``Tracing`` turns each finished call into a server span: the HTTP server attributes, and
for a GenAI exchange (``_core._genai``: what the reply's bytes said) the GenAI semantic
conventions (operation, provider, models, response id, usage, finish reasons, time to
the first chunk).  It exports through the SDK's ``BatchSpanProcessor`` and OTLP/HTTP
exporter, which read the standard ``OTEL_*`` variables (``OTEL_EXPORTER_OTLP_ENDPOINT``,
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, ``OTEL_EXPORTER_OTLP_HEADERS``,
``OTEL_SERVICE_NAME``, ``OTEL_RESOURCE_ATTRIBUTES``, ...); or through a
``TracerProvider`` the caller gives (``Server(otel=provider)``: an in-memory exporter).

Rule 1: off, it costs nothing: the server's end-of-call function is only wrapped when
tracing is on (``Server.__init__``), and the fast lane, which answers without a call
end, is off then too (every call gets its span).
Rule 2: a span is made on the loop thread when the call ends, with its start and end
times given (the request's arrival, the reply's end); exporting happens on the SDK's
thread.  A failure to make one is kept in ``server.errors``, never raised into the loop.
Rule 3: the calls an OTLP collector mock takes (``mockhttp.otel.collector()``, reply kind
``otel_collector``) make no span: a server exporting to itself would otherwise trace its
own exports, forever.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .._core._errors import ConfigError
from .._core._genai import attributes, genai_of, http_attributes, span_name
from ._journal import Call

__all__ = ["Tracing", "require"]

_SERVICE = "mockhttp"
_COLLECTOR = "otel_collector"  # (mockhttp.otel.Collector.file_key: Rule 3)


def require() -> None:
    """Raise unless the OpenTelemetry SDK and its OTLP/HTTP exporter can be imported.

    Raises:
        ConfigError: they are not installed (``pip install 'mockhttp[otel]'``).
    """
    try:
        import opentelemetry.exporter.otlp.proto.http.trace_exporter
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError:
        raise ConfigError(
            "otel needs the OpenTelemetry SDK and its OTLP/HTTP exporter: "
            "pip install 'mockhttp[otel]'"
        ) from None


def _provider() -> Any:
    """A ``TracerProvider`` exporting by OTLP/HTTP as the ``OTEL_*`` variables say; the
    service is ``mockhttp`` unless ``OTEL_SERVICE_NAME`` (or the resource) names one."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create()
    if str(resource.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        resource = resource.merge(Resource({SERVICE_NAME: _SERVICE}))
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return provider


def trace(
    otel: Any,
    address: Callable[[], tuple[str, int, str]],
    finished: Callable[[Call], None],
    errors: list[BaseException],
) -> tuple[Tracing, Callable[[Call], None]]:
    """A server's spans (``otel``: True, or a ``TracerProvider``) and its end-of-call
    function ``finished`` wrapped to end each call in a span (the server turns its lane
    off: Rule 1)."""
    tracing = Tracing(None if otel is True else otel, address)
    ended = tracing.ended

    def traced(call: Call) -> None:
        finished(call)
        try:
            ended(call)
        except Exception as exc:  # (Rule 2)
            errors.append(exc)

    return tracing, traced


class Tracing:
    """The spans of one server (see the module's docstring).

    Args:
        provider: a ``TracerProvider`` to use (kept open: its owner shuts it down), or
            None for one made from the ``OTEL_*`` variables (shut down by :meth:`close`).
        server: the host, port and scheme served, for ``server.address`` and friends.
    """

    def __init__(self, provider: Any, server: Callable[[], tuple[str, int, str]]) -> None:
        require()
        from opentelemetry.trace import SpanKind, Status, StatusCode

        self._owned = provider is None
        self.provider = _provider() if provider is None else provider
        self._tracer = self.provider.get_tracer("mockhttp", _version())
        self._kind, self._status, self._error = SpanKind.SERVER, Status, StatusCode.ERROR
        self._server = server

    def ended(self, call: Call) -> None:
        """Make and end the span of ``call`` (its reply has ended)."""
        request = call.request
        mock = call.mock
        if mock is not None and getattr(mock.kind, "file_key", None) == _COLLECTOR:
            return  # (Rule 3)
        route = mock.path if mock is not None and isinstance(mock.path, str) else None
        facts = genai_of(request.method, request.path, request.body, bytes(call.body_sent))
        found = http_attributes(
            request.method, request.path, call.status, request.http_version, route, self._server()
        )
        if facts is not None:
            found.update(attributes(facts, _first_chunk(call) if facts.streamed else None))
        found["mockhttp.outcome"] = call.outcome
        if mock is not None and mock.name:
            found["mockhttp.mock"] = mock.name
        end = call.end_time or call.cut_time or time.time()
        span = self._tracer.start_span(
            span_name(request.method, route, facts),
            kind=self._kind,
            attributes=found,
            start_time=int(call.time * 1e9),
        )
        if "error.type" in found or call.outcome not in ("complete", "in progress"):
            span.set_status(self._status(self._error, found.get("error.type", call.outcome)))
        span.end(end_time=max(int(end * 1e9), int(call.time * 1e9)))

    def flush(self, timeout: float = 5.0) -> bool:
        """Export the spans made so far; False when it did not finish in ``timeout``."""
        return bool(self.provider.force_flush(int(timeout * 1000)))

    def close(self) -> None:
        """Export what is left; shut the provider down when it is this one's own."""
        self.flush()
        if self._owned:
            self.provider.shutdown()


def _version() -> str | None:
    """mockhttp's version, for the instrumentation scope (None when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mockhttp")
    except PackageNotFoundError:
        return None


def _first_chunk(call: Call) -> float | None:
    """Seconds from the request's arrival to its reply's first event (the journal's
    event times), or None when no event was written."""
    times = call.event_times
    return max(0.0, times[0] - call.time) if times else None
