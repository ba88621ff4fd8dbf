"""The referee: opentelemetry-instrumentation-openai-v2 on the openai SDK, exporting its
spans by OTLP/HTTP (protobuf) to mockhttp itself, against mockhttp's own replies.

Truthful telemetry passes every check; each check fails, with its explanation, on a span
deliberately edited before it is posted (``Editing``, an exporter in front of the SDK's
OTLP/HTTP exporter)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

openai = pytest.importorskip("openai")
openai_v2 = pytest.importorskip(
    "opentelemetry.instrumentation.openai_v2",
    reason="needs opentelemetry-instrumentation-openai-v2 (the test extra)",
)

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import (  # noqa: E402
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

import mockhttp  # noqa: E402
from mockhttp import llm, otel  # noqa: E402
from mockhttp._core._errors import VerificationError  # noqa: E402

Edit = Callable[[ReadableSpan], ReadableSpan | None]
MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


class Editing(SpanExporter):
    """Posts to ``target`` the spans as ``edit`` changes them (None drops one)."""

    def __init__(self) -> None:
        self.target: SpanExporter | None = None
        self.edit: Edit = lambda span: span

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        assert self.target is not None
        edited = [e for e in map(self.edit, spans) if e is not None]
        return self.target.export(edited) if edited else SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass


@pytest.fixture(scope="module")
def instrumented() -> Iterator[tuple[TracerProvider, Editing]]:
    editing = Editing()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(editing))  # (posted as each span ends)
    instrumentor = openai_v2.OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield provider, editing
    finally:
        instrumentor.uninstrument()
        provider.shutdown()


@pytest.fixture
def server(instrumented: tuple[TracerProvider, Editing]) -> Iterator[mockhttp.Server]:
    provider, editing = instrumented
    with mockhttp.Server() as server:
        server.mock(otel.collector())
        editing.target = OTLPSpanExporter(endpoint=server.url + otel.TRACES_PATH)
        editing.edit = lambda span: span
        server.tracer = provider.get_tracer("agent")  # type: ignore[attr-defined]
        server.client = openai.OpenAI(  # type: ignore[attr-defined]
            base_url=server.url + "/v1", api_key="sk-test", max_retries=0
        )
        try:
            yield server
        finally:
            server.client.close()  # type: ignore[attr-defined]
            editing.target.shutdown()  # type: ignore[no-untyped-call]


def edit(server: mockhttp.Server, change: Edit) -> None:
    """Edit the spans from now on, before they are posted."""
    assert server.running
    server_editing(server).edit = change


def server_editing(server: mockhttp.Server) -> Editing:
    return _EDITING[0]


_EDITING: list[Editing] = []


@pytest.fixture(autouse=True)
def _keep_editing(instrumented: tuple[TracerProvider, Editing]) -> None:
    _EDITING[:] = [instrumented[1]]


def attributes(**changes: Any) -> Edit:
    """An edit of a model call's span: its attributes changed (None: removed)."""

    def change(span: ReadableSpan) -> ReadableSpan:
        if span.attributes is None or span.attributes.get("gen_ai.operation.name") != "chat":
            return span
        values = {**span.attributes, **{k.replace("__", "."): v for k, v in changes.items()}}
        values = {k: v for k, v in values.items() if v is not None}
        return _copy(span, attributes=values)

    return change


def _copy(span: ReadableSpan, **fields: Any) -> ReadableSpan:
    """A ReadableSpan like ``span`` with ``fields`` replaced."""
    kept = {
        "name": span.name,
        "context": span.context,
        "parent": span.parent,
        "resource": span.resource,
        "attributes": span.attributes,
        "events": span.events,
        "links": span.links,
        "kind": span.kind,
        "status": span.status,
        "start_time": span.start_time,
        "end_time": span.end_time,
        "instrumentation_scope": span.instrumentation_scope,
    }
    return ReadableSpan(**{**kept, **fields})


def client(server: mockhttp.Server) -> Any:
    return server.client  # type: ignore[attr-defined]


def chat(server: mockhttp.Server) -> None:
    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Sunny, 18 °C.")))
    answer = client(server).chat.completions.create(model="gpt-4o", messages=MESSAGES)
    assert answer.choices[0].message.content == "Sunny, 18 °C."


def streamed(server: mockhttp.Server, reply: Any = None) -> None:
    reply = reply or llm.openai_chat("Sunny, 18 °C.", chunks_per_second=50)
    server.mock(mockhttp.post("/v1/chat/completions").reply(reply))
    stream = client(server).chat.completions.create(
        model="gpt-4o", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
    )
    with stream:
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == "Sunny, 18 °C."


def hang_up(server: mockhttp.Server) -> None:
    """The client reads the first chunk of a slow stream, then closes it."""
    reply = llm.openai_chat("one two three four five six", chunks_per_second=5)
    active = server.mock(mockhttp.post("/v1/chat/completions").reply(reply))
    stream = client(server).chat.completions.create(model="gpt-4o", messages=MESSAGES, stream=True)
    next(iter(stream))
    stream.close()
    assert active.calls.last.wait(10) == "client hung up"


def agent(server: mockhttp.Server, *, run_tool: bool = True) -> None:
    """A tool loop as an agent writes it: the tool runs in an ``execute_tool`` span."""
    server.mock(
        llm.conversation(
            llm.turn(tool_calls=[llm.tool_call("get_weather", {"city": "Paris"})]),
            llm.turn("It is 18 °C in Paris."),
        )
    )
    messages: list[Any] = list(MESSAGES)
    tracer = server.tracer  # type: ignore[attr-defined]
    for _ in range(2):
        answer = client(server).chat.completions.create(
            model="gpt-4o", messages=messages, tools=TOOLS
        )
        message = answer.choices[0].message
        if not message.tool_calls:
            assert message.content == "It is 18 °C in Paris."
            return
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            if run_tool:
                with tracer.start_as_current_span(f"execute_tool {call.function.name}") as span:
                    span.set_attribute("gen_ai.operation.name", "execute_tool")
                    span.set_attribute("gen_ai.tool.name", call.function.name)
                    span.set_attribute("gen_ai.tool.call.id", call.id)
            content = json.dumps({"city": "Paris", "celsius": 18})
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    raise AssertionError("the loop did not end")


# -- truthful telemetry passes ----------------------------------------------------------


def test_sync_chat_span_tells_the_truth(server: mockhttp.Server) -> None:
    chat(server)
    (span,) = otel.spans(server)
    assert span.get("gen_ai.operation.name") == "chat"
    assert span.kind == "client"
    assert span.get("gen_ai.response.id") == otel.served(server)[0].facts.response_id
    assert span.get("gen_ai.usage.input_tokens") == 7  # (words and marks of MESSAGES)
    assert otel.verify(server) == []
    otel.assert_telemetry(server)


def test_streamed_chat_span_tells_the_truth(server: mockhttp.Server) -> None:
    streamed(server)
    (span,) = otel.spans(server)
    (call,) = otel.served(server)
    assert call.facts.streamed
    assert call.end is not None
    assert span.end >= call.end  # (after the last chunk, as it should)
    assert otel.verify(server) == []


def test_a_tool_loop_tells_the_truth(server: mockhttp.Server) -> None:
    agent(server)
    chats = [s for s in otel.spans(server) if s.get("gen_ai.operation.name") == "chat"]
    assert [s.get("gen_ai.response.finish_reasons") for s in chats] == [["tool_calls"], ["stop"]]
    assert otel.verify(server) == []


def test_a_stream_the_client_hangs_up_on(server: mockhttp.Server) -> None:
    """The client reads one chunk and closes: the span ends at the hang-up."""
    hang_up(server)
    assert otel.verify(server) == []


# -- each check fails on a deliberately wrong span --------------------------------------


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"gen_ai.request.model": "gpt-4"},
            "[model] gen_ai.request.model is 'gpt-4', but the request asked for 'gpt-4o'",
        ),
        (
            {"gen_ai.response.model": "gpt-4o-mini"},
            "[model] gen_ai.response.model is 'gpt-4o-mini', but mockhttp served 'gpt-4o'",
        ),
        (
            {"gen_ai.provider.name": "azure.ai.openai"},
            "[provider] gen_ai.provider.name is 'azure.ai.openai', but mockhttp served 'openai'",
        ),
        (
            {"gen_ai.usage.input_tokens": 70},
            "[input_tokens] gen_ai.usage.input_tokens is 70, but the reply carried 7",
        ),
        (
            {"gen_ai.usage.output_tokens": 2},
            "[output_tokens] gen_ai.usage.output_tokens is 2, but the reply carried 6",
        ),
        (
            {"gen_ai.response.finish_reasons": ("length",)},
            "[finish_reasons] gen_ai.response.finish_reasons is ['length'], but mockhttp "
            "served ['stop']",
        ),
        (
            {"gen_ai.response.id": "chatcmpl-made-up"},
            "[response_id] gen_ai.response.id is 'chatcmpl-made-up', but mockhttp served",
        ),
    ],
)
def test_each_attribute_check_fails_on_a_wrong_span(
    server: mockhttp.Server, change: dict[str, Any], expected: str
) -> None:
    edit(server, attributes(**{k.replace(".", "__"): v for k, v in change.items()}))
    chat(server)
    (finding,) = otel.verify(server)
    assert str(finding).startswith(expected)
    with pytest.raises(VerificationError) as raised:
        otel.assert_telemetry(server)
    assert str(raised.value).startswith(
        "the telemetry does not match what mockhttp served (1 findings):\n  1. " + expected
    )


def test_a_missing_span_fails(server: mockhttp.Server) -> None:
    edit(server, lambda span: None)
    chat(server)
    (finding,) = otel.verify(server)
    assert finding.check == "span"
    assert finding.message.startswith("no span tells of this chat call")


def test_a_span_that_ends_at_the_first_chunk_fails(server: mockhttp.Server) -> None:
    """As an instrumentation that ends the span when ``create()`` returns would."""

    def early(span: ReadableSpan) -> ReadableSpan:
        assert span.start_time is not None
        return _copy(span, end_time=span.start_time + 5_000_000)  # 5 ms after it began

    edit(server, early)
    streamed(server, llm.openai_chat("Sunny, 18 °C.", chunks_per_second=8))  # (> 0.5 s)
    (finding,) = otel.verify(server)
    assert finding.check == "stream_end"
    assert "before the stream's last chunk was written" in finding.message


def test_a_span_that_outlives_the_hang_up_fails(server: mockhttp.Server) -> None:
    def late(span: ReadableSpan) -> ReadableSpan:
        assert span.end_time is not None
        return _copy(span, end_time=span.end_time + 3_000_000_000)  # 3 s later

    edit(server, late)
    hang_up(server)
    (finding,) = otel.verify(server)
    assert finding.check == "stream_end"
    assert finding.message.startswith("the client hung up on the stream (the journal saw it)")


def test_a_tool_call_without_its_tool_span_fails(server: mockhttp.Server) -> None:
    agent(server, run_tool=False)
    (finding,) = otel.verify(server)
    assert finding.check == "tool_call"
    assert finding.message.startswith(
        "the reply asked for the tool 'get_weather', but no execute_tool span has "
        "gen_ai.tool.call.id 'call_"
    )


def test_a_provider_error_without_an_error_span_fails(server: mockhttp.Server) -> None:
    def quiet(span: ReadableSpan) -> ReadableSpan:
        values = {k: v for k, v in (span.attributes or {}).items() if k != "error.type"}
        from opentelemetry.trace import Status, StatusCode

        return _copy(span, attributes=values, status=Status(StatusCode.UNSET))

    server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat(error="rate_limit")))
    with pytest.raises(openai.RateLimitError):
        client(server).chat.completions.create(model="gpt-4o", messages=MESSAGES)
    assert otel.verify(server) == []  # (the instrumentation marks it: error.type)
    edit(server, quiet)
    with pytest.raises(openai.RateLimitError):
        client(server).chat.completions.create(model="gpt-4o", messages=MESSAGES)
    (finding,) = otel.verify(server)
    assert finding.check == "error"
    assert "'rate_limit_exceeded'" in finding.message


def test_dataclass_copy_keeps_what_it_does_not_change(server: mockhttp.Server) -> None:
    """(The editing exporter is honest: an edit that changes nothing passes.)"""
    edit(server, lambda span: _copy(span))
    chat(server)
    assert otel.verify(server) == []
    assert dataclasses.is_dataclass(otel.Span)
