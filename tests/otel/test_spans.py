"""otel/_spans: OTLP export requests, protobuf and JSON, read into Span records."""

from __future__ import annotations

import base64
import gzip
import json
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

from mockhttp.otel import OTLPError, Span, from_json, from_protobuf, read_export


def sdk_spans() -> Any:
    """Two real SDK spans: a client chat span (with a list attribute and an event) and
    its child tool span."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource({"service.name": "agent"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test.scope")
    with tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT) as span:
        span.set_attribute("gen_ai.usage.input_tokens", 7)
        span.set_attribute("gen_ai.response.finish_reasons", ["stop"])
        span.set_attribute("ratio", 0.5)
        span.set_attribute("ok", True)
        span.add_event("gen_ai.choice", {"index": 0})
        with tracer.start_as_current_span("execute_tool get_weather") as tool:
            tool.set_status(Status(StatusCode.ERROR, "boom"))
    return exporter.get_finished_spans()


def test_protobuf_as_the_sdk_encodes_it() -> None:
    finished = sdk_spans()
    body = encode_spans(finished).SerializeToString()
    tool, chat = from_protobuf(body)
    original = finished[1]
    assert chat.name == "chat gpt-4o"
    assert chat.kind == "client"
    assert chat.trace_id == f"{original.context.trace_id:032x}"
    assert chat.span_id == f"{original.context.span_id:016x}"
    assert chat.parent_id == ""
    assert chat.start == original.start_time / 1e9
    assert chat.end == original.end_time / 1e9
    assert dict(chat.attributes) == {
        "gen_ai.usage.input_tokens": 7,
        "gen_ai.response.finish_reasons": ["stop"],
        "ratio": 0.5,
        "ok": True,
    }
    assert [(e[0], dict(e[2])) for e in chat.events] == [("gen_ai.choice", {"index": 0})]
    assert chat.resource["service.name"] == "agent"
    assert chat.scope == "test.scope"
    assert tool.parent_id == chat.span_id
    assert tool.status == "error"
    assert tool.kind == "internal"
    assert tool.describe() == f"span 'execute_tool get_weather' ({tool.span_id})"


def otlp_json(span: dict[str, Any]) -> bytes:
    return json.dumps(
        {
            "resourceSpans": [
                {
                    "resource": {
                        "attributes": [{"key": "service.name", "value": {"stringValue": "a"}}]
                    },
                    "scopeSpans": [{"scope": {"name": "s"}, "spans": [span]}],
                }
            ]
        }
    ).encode()


SPAN = {
    "traceId": "5B8EFFF798038103D269B633813FC60C",
    "spanId": "EEE19B7EC3C1B174",
    "parentSpanId": "",
    "name": "chat gpt-4o",
    "kind": 3,
    "startTimeUnixNano": "1544712660000000000",
    "endTimeUnixNano": 1544712661000000000,
    "attributes": [
        {"key": "gen_ai.usage.input_tokens", "value": {"intValue": "7"}},
        {"key": "r", "value": {"doubleValue": 0.5}},
        {"key": "b", "value": {"boolValue": True}},
        {"key": "l", "value": {"arrayValue": {"values": [{"stringValue": "stop"}]}}},
        {
            "key": "m",
            "value": {"kvlistValue": {"values": [{"key": "k", "value": {"intValue": 1}}]}},
        },
        {"key": "raw", "value": {"bytesValue": "AQI="}},
        {"key": "empty", "value": {}},
    ],
    "events": [{"name": "e", "timeUnixNano": "1544712660500000000", "attributes": []}],
    "status": {"code": 2},
}


def test_json_as_the_otlp_json_mapping_says() -> None:
    (span,) = from_json(otlp_json(SPAN))
    assert span == Span(
        name="chat gpt-4o",
        trace_id="5b8efff798038103d269b633813fc60c",
        span_id="eee19b7ec3c1b174",
        parent_id="",
        kind="client",
        start=1544712660.0,
        end=1544712661.0,
        attributes={
            "gen_ai.usage.input_tokens": 7,
            "r": 0.5,
            "b": True,
            "l": ["stop"],
            "m": {"k": 1},
            "raw": "AQI=",
            "empty": None,
        },
        status="error",
        events=(("e", 1544712660.5, {}),),
        resource={"service.name": "a"},
        scope="s",
    )
    assert span.get("gen_ai.usage.input_tokens") == 7
    assert span.get("nope", 1) == 1


def test_json_kind_by_its_enum_name() -> None:
    (span,) = from_json(otlp_json({**SPAN, "kind": "SPAN_KIND_SERVER"}))
    assert span.kind == "server"


def test_read_export_by_content_type_and_gzip() -> None:
    body = otlp_json(SPAN)
    assert read_export(body, "application/json; charset=utf-8")[0].name == "chat gpt-4o"
    assert read_export(gzip.compress(body), "application/json", "gzip")[0].kind == "client"
    proto = encode_spans(sdk_spans()).SerializeToString()
    assert len(read_export(proto, "application/x-protobuf")) == 2


@pytest.mark.parametrize(
    ("body", "content_type", "encoding", "message"),
    [
        (b"{}", "text/plain", "", "OTLP/HTTP sends application/x-protobuf or application/json"),
        (b"{}", "application/json", "gzip", "Content-Encoding: gzip, but the body is not gzip"),
        (b"{nope", "application/json", "", "the body is not JSON"),
        (b"[]", "application/json", "", "an export request is a JSON object"),
        (b'{"resourceSpans": {}}', "application/json", "", "resourceSpans must be a list"),
        (
            b"\xff\xff\xff",
            "application/x-protobuf",
            "",
            "is not a protobuf ExportTraceServiceRequest",
        ),
    ],
)
def test_what_is_no_export_request_says_why(
    body: bytes, content_type: str, encoding: str, message: str
) -> None:
    """Rule 1."""
    with pytest.raises(OTLPError, match=message.replace("(", r"\(")):
        read_export(body, content_type, encoding)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"traceId": "xyz"}, r"traceId='xyz' is not hex"),
        ({"spanId": ""}, r"spanId must be a hex id"),
        ({"startTimeUnixNano": "soon"}, r"a time is nanoseconds"),
        ({"status": []}, r"status must be an object"),
        ({"attributes": {}}, r"attributes must be a list"),
    ],
)
def test_a_bad_span_says_where(change: dict[str, Any], message: str) -> None:
    with pytest.raises(OTLPError, match=r"resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]"):
        from_json(otlp_json({**SPAN, **change}))
    with pytest.raises(OTLPError, match=message):
        from_json(otlp_json({**SPAN, **change}))


def test_json_and_protobuf_read_the_same_spans() -> None:
    """The SDK's spans as protobuf, and as protobuf's own JSON form with the ids made hex
    (OTLP/JSON's one difference): the two readers agree, enum names and 64-bit integers
    as text included."""
    from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]

    request = encode_spans(sdk_spans())
    as_json = MessageToDict(request)
    for resource in as_json["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for key in ("traceId", "spanId", "parentSpanId"):
                    if key in span:
                        span[key] = base64.b64decode(span[key]).hex()
    assert isinstance(as_json["resourceSpans"][0]["scopeSpans"][0]["spans"][1]["kind"], str)
    assert from_json(json.dumps(as_json).encode()) == from_protobuf(request.SerializeToString())
