"""Spans as OTLP/HTTP brings them: protobuf or JSON export requests, read into ``Span``.

An OTLP/HTTP client posts an ``ExportTraceServiceRequest`` to ``/v1/traces``: protobuf
(``application/x-protobuf``, read with ``opentelemetry-proto``) or its JSON mapping
(``application/json``: ids as hex, 64-bit integers as text or numbers, camelCase keys),
either maybe gzip-compressed (``Content-Encoding: gzip``).  Both become the same plain
``Span`` records.

Rule 1: a body that is no export request raises ``OTLPError`` with what was wrong (the
collector answers it 400 with that message); spans are never half-read.
Rule 2: times are seconds since the epoch (floats), as the journal keeps them.
"""

from __future__ import annotations

import gzip
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._core._errors import MockHTTPError

__all__ = ["KINDS", "OTLPError", "Span", "from_json", "from_protobuf", "read_export"]

#: OTLP's ``Span.SpanKind`` numbers, by name.
KINDS = {0: "unspecified", 1: "internal", 2: "server", 3: "client", 4: "producer", 5: "consumer"}


class OTLPError(MockHTTPError):
    """A body that is no OTLP trace export request (Rule 1)."""


@dataclass(frozen=True)
class Span:
    """One span a client exported.

    Attributes:
        name: the span's name (``chat gpt-4o``).
        trace_id, span_id, parent_id: hex ids (``parent_id`` empty for a root span).
        kind: ``client``, ``server``, ``internal``, ``producer``, ``consumer`` or
            ``unspecified``.
        start, end: seconds since the epoch (Rule 2).
        attributes: the span's attributes (lists for array values).
        status: ``unset``, ``ok`` or ``error``.
        events: the span's events: (name, seconds, attributes).
        resource: the resource's attributes (``service.name``, ...).
        scope: the instrumentation scope's name.
    """

    name: str
    trace_id: str
    span_id: str
    parent_id: str = ""
    kind: str = "internal"
    start: float = 0.0
    end: float = 0.0
    attributes: Mapping[str, Any] = field(default_factory=dict)
    status: str = "unset"
    events: tuple[tuple[str, float, Mapping[str, Any]], ...] = ()
    resource: Mapping[str, Any] = field(default_factory=dict)
    scope: str = ""

    def get(self, key: str, default: Any = None) -> Any:
        """An attribute's value, or ``default``."""
        return self.attributes.get(key, default)

    def describe(self) -> str:
        """``span 'chat gpt-4o' (5b8aa5a2d2c872e8)``."""
        return f"span {self.name!r} ({self.span_id})"


_STATUS = {0: "unset", 1: "ok", 2: "error"}


def read_export(body: bytes, content_type: str, encoding: str = "") -> list[Span]:
    """The spans of an export request body, by its content type and encoding.

    Raises:
        OTLPError: not gzip when it says so, not an export request, or a content type
            that is neither protobuf nor JSON.
    """
    if encoding.strip().lower() == "gzip":
        try:
            body = gzip.decompress(body)
        except (OSError, EOFError, zlib.error) as exc:
            raise OTLPError(f"Content-Encoding: gzip, but the body is not gzip: {exc}") from None
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "application/x-protobuf":
        return from_protobuf(body)
    if media == "application/json":
        return from_json(body)
    raise OTLPError(
        f"Content-Type {content_type!r}: OTLP/HTTP sends application/x-protobuf or application/json"
    )


# -- JSON ---------------------------------------------------------------------------------


def from_json(body: bytes) -> list[Span]:
    """The spans of an OTLP/JSON ``ExportTraceServiceRequest``.

    Raises:
        OTLPError: not JSON, or not shaped as an export request.
    """
    try:
        request = json.loads(body)
    except ValueError as exc:
        raise OTLPError(f"the body is not JSON: {exc}") from None
    if not isinstance(request, Mapping):
        raise OTLPError("an export request is a JSON object with resourceSpans")
    found: list[Span] = []
    for i, resource_spans in enumerate(_list(request, "resourceSpans", "")):
        where = f"resourceSpans[{i}]"
        resource = _attributes(_map(resource_spans, "resource", where), where + ".resource")
        for j, scope_spans in enumerate(_list(resource_spans, "scopeSpans", where)):
            inner = f"{where}.scopeSpans[{j}]"
            scope = _map(scope_spans, "scope", inner).get("name", "")
            for k, span in enumerate(_list(scope_spans, "spans", inner)):
                found.append(_json_span(span, f"{inner}.spans[{k}]", resource, str(scope)))
    return found


def _list(value: Any, key: str, where: str) -> list[Any]:
    items = value.get(key, []) if isinstance(value, Mapping) else None
    if not isinstance(items, list):
        raise OTLPError(f"{where + '.' if where else ''}{key} must be a list")
    return items


def _map(value: Any, key: str, where: str) -> Mapping[str, Any]:
    item = value.get(key, {}) if isinstance(value, Mapping) else None
    if not isinstance(item, Mapping):
        raise OTLPError(f"{where}.{key} must be an object")
    return item


def _json_span(span: Any, where: str, resource: dict[str, Any], scope: str) -> Span:
    if not isinstance(span, Mapping):
        raise OTLPError(f"{where} must be an object")
    events = tuple(
        (str(e.get("name", "")), _seconds(e.get("timeUnixNano"), where), _attributes(e, where))
        for e in _list(span, "events", where)
        if isinstance(e, Mapping)
    )
    kind = span.get("kind", 0)
    return Span(
        name=str(span.get("name", "")),
        trace_id=_hex(span.get("traceId"), where + ".traceId"),
        span_id=_hex(span.get("spanId"), where + ".spanId"),
        parent_id=_hex(span.get("parentSpanId") or "", where + ".parentSpanId", empty=True),
        kind=KINDS.get(kind, "unspecified") if isinstance(kind, int) else _kind_name(kind),
        start=_seconds(span.get("startTimeUnixNano"), where),
        end=_seconds(span.get("endTimeUnixNano"), where),
        attributes=_attributes(span, where),
        status=_status(_map(span, "status", where).get("code", 0)),
        events=events,
        resource=resource,
        scope=scope,
    )


def _status(code: Any) -> str:
    """A status code: its number, or its enum name (``STATUS_CODE_ERROR``)."""
    if isinstance(code, str):
        return code.removeprefix("STATUS_CODE_").lower()
    return _STATUS.get(code, "unset")


def _kind_name(kind: Any) -> str:
    """``SPAN_KIND_CLIENT`` (the enum's name, which OTLP/JSON also allows) → ``client``."""
    return str(kind).removeprefix("SPAN_KIND_").lower()


def _hex(value: Any, where: str, empty: bool = False) -> str:
    if isinstance(value, str) and (value or empty):
        try:
            bytes.fromhex(value)
        except ValueError:
            raise OTLPError(f"{where}={value!r} is not hex (OTLP/JSON ids are hex)") from None
        return value.lower()
    raise OTLPError(f"{where} must be a hex id, got {value!r}")


def _seconds(value: Any, where: str) -> float:
    try:
        return int(value or 0) / 1e9
    except (TypeError, ValueError):
        raise OTLPError(f"{where}: a time is nanoseconds (text or number), got {value!r}") from None


def _attributes(value: Mapping[str, Any], where: str) -> dict[str, Any]:
    found = {}
    for item in _list(value, "attributes", where):
        if isinstance(item, Mapping) and isinstance(item.get("key"), str):
            found[item["key"]] = _any(item.get("value"))
    return found


def _any(value: Any) -> Any:
    """An OTLP/JSON ``AnyValue`` as a Python value."""
    if not isinstance(value, Mapping):
        return None
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_any(v) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        pairs = (value["kvlistValue"] or {}).get("values", [])
        return {p.get("key"): _any(p.get("value")) for p in pairs if isinstance(p, Mapping)}
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


# -- protobuf -----------------------------------------------------------------------------


def from_protobuf(body: bytes) -> list[Span]:
    """The spans of a protobuf ``ExportTraceServiceRequest`` (``opentelemetry-proto``).

    Raises:
        OTLPError: not an export request, or opentelemetry-proto is not installed.
    """
    try:
        from google.protobuf.message import DecodeError  # type: ignore[import-untyped]
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )
    except ImportError:
        raise OTLPError(
            "reading protobuf OTLP needs opentelemetry-proto: pip install 'mockhttp[otel]'"
        ) from None
    try:
        request = ExportTraceServiceRequest.FromString(body)
    except DecodeError as exc:
        raise OTLPError(f"the body is not a protobuf ExportTraceServiceRequest: {exc}") from None
    found: list[Span] = []
    for resource_spans in request.resource_spans:
        resource = _pb_attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                found.append(_pb_span(span, resource, scope_spans.scope.name))
    return found


def _pb_span(span: Any, resource: dict[str, Any], scope: str) -> Span:
    return Span(
        name=span.name,
        trace_id=span.trace_id.hex(),
        span_id=span.span_id.hex(),
        parent_id=span.parent_span_id.hex(),
        kind=KINDS.get(span.kind, "unspecified"),
        start=span.start_time_unix_nano / 1e9,
        end=span.end_time_unix_nano / 1e9,
        attributes=_pb_attributes(span.attributes),
        status=_STATUS.get(span.status.code, "unset"),
        events=tuple(
            (e.name, e.time_unix_nano / 1e9, _pb_attributes(e.attributes)) for e in span.events
        ),
        resource=resource,
        scope=scope,
    )


def _pb_attributes(items: Any) -> dict[str, Any]:
    return {item.key: _pb_any(item.value) for item in items}


def _pb_any(value: Any) -> Any:
    which = value.WhichOneof("value")
    if which is None:
        return None
    if which == "array_value":
        return [_pb_any(v) for v in value.array_value.values]
    if which == "kvlist_value":
        return {p.key: _pb_any(p.value) for p in value.kvlist_value.values}
    return getattr(value, which)
