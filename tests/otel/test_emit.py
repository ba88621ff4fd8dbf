"""_server/_otel: ``Server(otel=...)`` and ``serve --otel`` make a span per call."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

import mockhttp
from mockhttp import fault, llm, otel
from mockhttp._core._errors import ConfigError
from mockhttp._server import _otel

CHAT = {
    "model": "gpt-4o",
    "messages": [{"role": "user", "content": "Say hello"}],
    "stream": True,
    "stream_options": {"include_usage": True},
}


@pytest.fixture
def memory() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def finished(exporter: InMemorySpanExporter, n: int, timeout: float = 10) -> list[Any]:
    """The first ``n`` spans, waiting for them (a span is made when its call ends)."""
    deadline = time.monotonic() + timeout
    while len(exporter.get_finished_spans()) < n and time.monotonic() < deadline:
        time.sleep(0.01)
    spans = exporter.get_finished_spans()
    assert len(spans) >= n, spans
    return list(spans)


def test_a_streamed_llm_reply_gets_the_genai_attributes(memory: Any) -> None:
    provider, exporter = memory
    with mockhttp.Server(otel=provider) as server:
        active = server.mock(
            mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hello, world", ttft=0.1))
        )
        httpx.post(server.url + "/v1/chat/completions", json=CHAT)
        (span,) = finished(exporter, 1)
        call = active.calls.last
    (facts,) = [s.facts for s in otel.served(server)]
    assert (span.name, span.kind) == ("chat gpt-4o", SpanKind.SERVER)
    attributes = dict(span.attributes)
    first = attributes.pop("gen_ai.response.time_to_first_chunk")
    assert 0.1 <= first < 5
    assert attributes == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.response.model": "gpt-4o",
        "gen_ai.response.id": facts.response_id,
        "gen_ai.usage.input_tokens": 2,
        "gen_ai.usage.output_tokens": 3,
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.request.stream": True,
        "http.request.method": "POST",
        "url.path": "/v1/chat/completions",
        "url.scheme": "http",
        "http.route": "/v1/chat/completions",
        "http.response.status_code": 200,
        "network.protocol.version": "1.1",
        "server.address": "127.0.0.1",
        "server.port": server.port,
        "mockhttp.outcome": "complete",
    }
    assert span.start_time == int(call.time * 1e9)
    assert call.end_time is not None
    assert span.end_time == int(call.end_time * 1e9)
    assert span.status.status_code is StatusCode.UNSET
    assert span.instrumentation_scope.name == "mockhttp"


def test_other_calls_get_the_http_attributes(memory: Any) -> None:
    provider, exporter = memory
    with mockhttp.Server(otel=provider) as server:
        server.mock(mockhttp.get("/things/{id}", name="thing").reply(mockhttp.ok().json({})))
        server.mock(mockhttp.get("/broken").reply(mockhttp.status(503)))
        assert httpx.get(server.url + "/things/7").status_code == 200
        assert httpx.get(server.url + "/nothing").status_code == 404
        assert httpx.get(server.url + "/broken").status_code == 503
        thing, missed, broken = finished(exporter, 3)
    assert thing.name == "GET /things/{id}"
    assert thing.attributes["http.route"] == "/things/{id}"
    assert thing.attributes["url.path"] == "/things/7"
    assert thing.attributes["mockhttp.mock"] == "thing"
    assert not any(k.startswith("gen_ai.") for k in thing.attributes)
    assert missed.name == "GET"
    assert missed.attributes["http.response.status_code"] == 404
    assert "http.route" not in missed.attributes
    assert broken.attributes["error.type"] == "503"
    assert broken.status.status_code is StatusCode.ERROR


def read_all(url: str) -> None:
    with httpx.stream("POST", url, json=CHAT) as answer:
        for _ in answer.iter_bytes():
            pass


def test_a_cut_reply_is_an_error_span(memory: Any) -> None:
    provider, exporter = memory
    with mockhttp.Server(otel=provider) as server:
        reply = llm.openai_chat("one two three", chunks_per_second=50)
        server.mock(
            mockhttp.post("/v1/chat/completions").reply(reply).pipe(fault.close_after_events(2))
        )
        with pytest.raises(httpx.HTTPError):
            read_all(server.url + "/v1/chat/completions")
        (span,) = finished(exporter, 1)
    assert span.attributes["mockhttp.outcome"] in ("closed", "reset")
    assert span.status.status_code is StatusCode.ERROR
    assert "gen_ai.response.finish_reasons" not in span.attributes  # (cut before it)


def test_off_nothing_is_wrapped() -> None:
    """Rule 1: the end-of-call function is the server's own and the lane is on."""
    with mockhttp.Server() as server:
        assert server._tracing is None
        assert server._finished == server._answers.finished
        assert server._lane is not None
    with mockhttp.Server(otel=TracerProvider()) as traced:
        assert traced._tracing is not None
        assert traced._lane is None
        assert traced._finished != traced._answers.finished


class Broken:
    """A provider whose tracer cannot make a span."""

    def get_tracer(self, *args: Any) -> Broken:
        return self

    def start_span(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("no span")

    def force_flush(self, timeout: int) -> bool:
        return True


def test_a_span_that_cannot_be_made_is_kept_in_errors() -> None:
    """Rule 2: the reply is sent; the error is the server's, for check()."""
    with mockhttp.Server(otel=Broken()) as server:
        server.mock(mockhttp.get("/x").reply(mockhttp.ok()))
        assert httpx.get(server.url + "/x").status_code == 200
        assert httpx.get(server.url + "/x").status_code == 200
        deadline = time.monotonic() + 10
        while len(server.errors) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert [str(e) for e in server.errors] == ["no span", "no span"]


def test_otel_true_exports_as_the_otel_variables_say(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's OTLP/HTTP exporter, by OTEL_EXPORTER_OTLP_ENDPOINT, to a mockhttp
    collector; OTEL_SERVICE_NAME names the service."""
    with mockhttp.Server() as collector_server:
        collector = otel.collector()
        collector_server.mock(collector)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector_server.url)
        monkeypatch.setenv("OTEL_SERVICE_NAME", "llm-mock")
        with mockhttp.Server(otel=True) as server:
            server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Hi")))
            httpx.post(server.url + "/v1/chat/completions", json=CHAT)
        # (close() flushed and shut the provider down)
        (span,) = collector.spans
    assert span.name == "chat gpt-4o"
    assert span.kind == "server"
    assert span.resource["service.name"] == "llm-mock"
    assert span.get("gen_ai.usage.output_tokens") == 1


def test_the_service_is_mockhttp_unless_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_SERVICE_NAME", raising=False)
    monkeypatch.delenv("OTEL_RESOURCE_ATTRIBUTES", raising=False)
    tracing = _otel.Tracing(None, lambda: ("127.0.0.1", 1, "http"))
    assert tracing.provider.resource.attributes["service.name"] == "mockhttp"
    tracing.close()


def test_without_the_sdk_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    with pytest.raises(ConfigError, match=r"pip install 'mockhttp\[otel\]'"):
        mockhttp.Server(otel=True)


def test_a_server_exporting_to_itself_does_not_trace_its_exports(memory: Any) -> None:
    """Rule 3: the collector's own calls make no span (else each export makes a span,
    which is exported, which makes a span...)."""
    provider, exporter = memory
    with mockhttp.Server(otel=provider) as server:
        collector = otel.collector()
        server.mock(collector)
        server.mock(mockhttp.get("/x").reply(mockhttp.ok()))
        assert httpx.get(server.url + "/x").status_code == 200
        (span,) = finished(exporter, 1)
        export = encode_spans([span]).SerializeToString()
        headers = {"content-type": "application/x-protobuf"}
        assert httpx.post(server.url + "/v1/traces", content=export, headers=headers).is_success
        assert httpx.get(server.url + "/x").status_code == 200
        spans = finished(exporter, 2)
    assert [s.name for s in spans] == ["GET /x", "GET /x"]
    assert [s.name for s in collector.spans] == ["GET /x"]
