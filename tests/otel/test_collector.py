"""otel.collector(): OTLP/HTTP exports posted to a real server, on loopback."""

from __future__ import annotations

import gzip
import json

import httpx
import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExportResult

import mockhttp
from mockhttp import otel
from mockhttp._core._errors import ConfigError
from mockhttp._mockfile._load import loads

from .test_spans import SPAN, otlp_json, sdk_spans


def test_the_sdk_exporter_posts_protobuf_and_the_spans_are_kept() -> None:
    with mockhttp.Server() as server:
        collector = otel.collector()
        active = server.mock(collector)
        exporter = OTLPSpanExporter(endpoint=server.url + otel.TRACES_PATH)
        assert exporter.export(sdk_spans()) is SpanExportResult.SUCCESS
        names = [s.name for s in collector.spans]
        assert names == ["execute_tool get_weather", "chat gpt-4o"]
        assert [s.name for s in otel.spans(server)] == names
        call = active.calls.last
        assert call.status == 200
        assert call.request.headers["content-type"] == "application/x-protobuf"
        assert ExportTraceServiceResponse.FromString(bytes(call.body_sent)) == (
            ExportTraceServiceResponse()
        )
        collector.clear()
        assert collector.spans == []


def test_the_exporter_compressed_with_gzip() -> None:
    from opentelemetry.exporter.otlp.proto.http import Compression

    with mockhttp.Server() as server:
        collector = server.mock(otel.collector()).mock.kind
        assert isinstance(collector, otel.Collector)
        exporter = OTLPSpanExporter(
            endpoint=server.url + "/v1/traces", compression=Compression.Gzip
        )
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        with provider.get_tracer("t").start_as_current_span("one"):
            pass
        provider.shutdown()
        assert [s.name for s in collector.spans] == ["one"]
        assert server.journal[-1].request.headers["content-encoding"] == "gzip"


def test_json_gets_json_back() -> None:
    with mockhttp.Server() as server:
        collector = otel.collector()
        server.mock(collector)
        answer = httpx.post(
            server.url + "/v1/traces",
            content=gzip.compress(otlp_json(SPAN)),
            headers={"content-type": "application/json", "content-encoding": "gzip"},
        )
        assert (answer.status_code, answer.json()) == (200, {})
        assert [s.span_id for s in collector.spans] == ["eee19b7ec3c1b174"]


def test_a_bad_export_gets_400_with_the_reason_and_keeps_nothing() -> None:
    """Rule 1."""
    with mockhttp.Server() as server:
        collector = otel.collector()
        server.mock(collector)
        answer = httpx.post(
            server.url + "/v1/traces", content=b"{}", headers={"content-type": "text/plain"}
        )
        assert answer.status_code == 400
        assert (
            "OTLP/HTTP sends application/x-protobuf or application/json" in answer.json()["message"]
        )
        answer = httpx.post(
            server.url + "/v1/traces",
            content=b"\xff\xff",
            headers={"content-type": "application/x-protobuf"},
        )
        assert answer.status_code == 400
        assert "ExportTraceServiceRequest" in answer.text
        assert collector.spans == []
        assert server.errors == []


def test_a_path_of_its_own_and_the_mock_file_form() -> None:
    assert otel.collector("/otlp/v1/traces").to_args() == {"path": "/otlp/v1/traces"}
    assert otel.collector().to_args() == {}
    assert otel.collector().describe() == "otel collector at /v1/traces"
    with pytest.raises(ConfigError, match="path='v1' must be a path starting with '/'"):
        otel.collector("v1")
    (mock,) = loads("- otel_collector: {path: /otlp/v1/traces}\n")
    assert isinstance(mock.kind, otel.Collector)
    assert mock.path == "/otlp/v1/traces"
    with mockhttp.Server() as server:
        server.mock(mock)
        answer = httpx.post(
            server.url + "/otlp/v1/traces",
            content=json.dumps({"resourceSpans": []}),
            headers={"content-type": "application/json"},
        )
        assert answer.status_code == 200
        assert otel.spans(server) == []


def test_each_span_keeps_the_test_its_export_named() -> None:
    """Per-test isolation: the header or the ``/__test/ID/`` prefix names the export's
    test (``spans_for``); an export that names none is ``spans_for(None)``."""
    with mockhttp.Server() as server:
        collector = otel.collector()
        server.mock(collector)
        a = server.test("a")
        sent = [
            OTLPSpanExporter(endpoint=server.url + otel.TRACES_PATH, headers=a.headers),
            OTLPSpanExporter(endpoint=server.test("b").prefix_url + otel.TRACES_PATH),
            OTLPSpanExporter(endpoint=server.url + otel.TRACES_PATH),
        ]
        for exporter in sent:
            assert exporter.export(sdk_spans()[1:]) is SpanExportResult.SUCCESS
        assert len(collector.spans) == 3
        for test in ("a", "b", None):
            assert [s.name for s in collector.spans_for(test)] == ["chat gpt-4o"]
        assert collector.spans_for("c") == []
        assert len(otel.spans(server)) == 3  # (the server's: every one)
        assert [s.name for s in otel.spans(a)] == ["chat gpt-4o"]
        collector.clear()
        assert collector.spans_for("a") == []
