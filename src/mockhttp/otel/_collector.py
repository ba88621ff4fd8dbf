"""``otel.collector()``: a mock that receives OTLP/HTTP traces and keeps their spans.

Registered with ``server.mock(otel.collector())`` (or ``otel_collector: {}`` in a mock
file), it answers ``POST /v1/traces`` as an OpenTelemetry collector does: 200 with an
empty ``ExportTraceServiceResponse`` (protobuf or ``{}``, as the request came), and keeps
the spans (``collector.spans``), which ``otel.verify`` holds against the journal, each
with the test its export named (per-test isolation: ``spans_for``).

Rule 1: a body that is no export request gets 400 with the reason (as JSON, or as plain
text for a protobuf client) and keeps nothing.
Rule 2: spans are appended under a lock (the loop thread writes; tests read).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .._core._errors import ConfigError
from .._core._mock import Mock
from .._core._registry import ReplyKind
from .._core._reply import Reply, status
from .._core._request import Request
from ._spans import OTLPError, Span, read_export

__all__ = ["TRACES_PATH", "Collector", "collector"]

#: Where OTLP/HTTP exporters post traces (``OTEL_EXPORTER_OTLP_ENDPOINT`` + this).
TRACES_PATH = "/v1/traces"


@dataclass(eq=False)
class Collector(ReplyKind):
    """An OTLP/HTTP trace receiver (see the module's docstring).

    Attributes:
        path: where it takes exports (``/v1/traces``).
        spans: the spans received, in the order they came.
    """

    file_key: ClassVar[str] = "otel_collector"
    standalone: ClassVar[bool] = True

    path: str = TRACES_PATH
    _spans: list[tuple[str | None, Span]] = field(default_factory=list, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.path, str) or not self.path.startswith("/"):
            raise ConfigError(f"path={self.path!r} must be a path starting with '/'")

    @property
    def spans(self) -> list[Span]:
        """The spans received so far (a copy)."""
        with self._lock:
            return [span for _, span in self._spans]

    def spans_for(self, test: str | None) -> list[Span]:
        """The spans of the exports that named test ``test`` (its header or its
        ``/__test/ID/`` prefix, as the server routed them); None: those that named none."""
        with self._lock:
            return [span for named, span in self._spans if named == test]

    def clear(self) -> None:
        """Forget the spans received."""
        with self._lock:
            self._spans.clear()

    def build(self, request: Request) -> Reply:
        content_type = request.headers.get("content-type") or ""
        protobuf = content_type.split(";", 1)[0].strip().lower() == "application/x-protobuf"
        try:
            found = read_export(
                request.body, content_type, request.headers.get("content-encoding") or ""
            )
        except OTLPError as exc:
            if protobuf:
                return status(400).header("content-type", "text/plain").body(str(exc))
            return status(400).json({"code": 3, "message": str(exc)})
        test = request.test
        with self._lock:
            self._spans.extend((test, span) for span in found)
        if protobuf:  # an empty ExportTraceServiceResponse is no bytes at all
            return status(200).header("content-type", "application/x-protobuf").body(b"")
        return status(200).json({})

    def to_args(self) -> dict[str, Any]:
        return {} if self.path == TRACES_PATH else {"path": self.path}

    def own_mock(self) -> Mock:
        return Mock("POST", self.path, response=None, kind=self, name="otel collector")

    def describe(self) -> str:
        return f"otel collector at {self.path}"


def collector(path: str = TRACES_PATH) -> Collector:
    """An OTLP/HTTP trace receiver for ``server.mock(...)``: point the client's exporter
    at the server (``OTEL_EXPORTER_OTLP_ENDPOINT=server.url``) and read ``.spans``."""
    return Collector(path)
