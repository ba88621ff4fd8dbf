"""A framework's telemetry: openai-agents traced by the OpenTelemetry contrib
instrumentation ``opentelemetry-instrumentation-openai-agents-v2`` (its spans for the
model calls, the agent and each tool run), exported by OTLP/HTTP to mockhttp, held against
mockhttp's replies to a tool loop over the Responses API."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

pytest.importorskip("agents")
agents_otel = pytest.importorskip(
    "opentelemetry.instrumentation.openai_agents",
    reason="needs opentelemetry-instrumentation-openai-agents-v2 (the test extra)",
)

import openai  # noqa: E402
from agents import (  # noqa: E402
    Agent,
    OpenAIResponsesModel,
    Runner,
    function_tool,
    set_trace_processors,
    set_tracing_disabled,
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

SCRIPT = llm.conversation(
    llm.turn(tool_calls=[llm.tool_call("get_weather", {"city": "Paris"})]),
    llm.turn("It is 18 °C in Paris."),
)


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"18 °C in {city}"


class Dropping(SpanExporter):
    """Posts the spans to ``target`` but those named in ``drop``."""

    def __init__(self, target: SpanExporter, drop: str | None) -> None:
        self.target, self.drop = target, drop

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        kept = [s for s in spans if self.drop is None or not s.name.startswith(self.drop)]
        return self.target.export(kept) if kept else SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.target.shutdown()


@pytest.fixture
def traced() -> Iterator[Any]:
    """A server with a collector; openai-agents traced into it (``traced(drop)``)."""
    made: list[Any] = []

    def start(drop: str | None = None) -> mockhttp.Server:
        server = mockhttp.Server().start()
        server.mock(otel.collector())
        server.mock(SCRIPT)
        provider = TracerProvider()
        exporter = OTLPSpanExporter(endpoint=server.url + otel.TRACES_PATH)
        provider.add_span_processor(SimpleSpanProcessor(Dropping(exporter, drop)))
        set_tracing_disabled(False)
        set_trace_processors([])  # (none to the OpenAI backend: loopback only)
        instrumentor = agents_otel.OpenAIAgentsInstrumentor()
        instrumentor.instrument(tracer_provider=provider)
        made.append((server, provider, instrumentor))
        return server

    try:
        yield start
    finally:
        for server, provider, instrumentor in made:
            instrumentor.uninstrument()
            provider.shutdown()
            server.close()
        set_tracing_disabled(True)


def run(server: mockhttp.Server) -> str:
    async def go() -> str:
        async with openai.AsyncOpenAI(
            base_url=server.url + "/v1", api_key="sk-test", max_retries=0
        ) as client:
            model = OpenAIResponsesModel("gpt-4o", openai_client=client)
            agent = Agent(name="weather", model=model, tools=[function_tool(get_weather)])
            return str((await Runner.run(agent, "Weather in Paris?")).final_output)

    return asyncio.run(go())


def test_an_agents_telemetry_tells_the_truth(traced: Any) -> None:
    server = traced()
    assert run(server) == "It is 18 °C in Paris."
    spans = otel.spans(server)
    operations = sorted(str(s.get("gen_ai.operation.name")) for s in spans)
    assert operations.count("chat") == 2
    assert "execute_tool" in operations
    assert [s.get("gen_ai.tool.name") for s in spans if s.name.startswith("execute_tool")] == [
        "get_weather"
    ]
    assert otel.verify(server) == []


def test_an_agent_without_its_tool_span_is_found(traced: Any) -> None:
    server = traced(drop="execute_tool")
    assert run(server) == "It is 18 °C in Paris."
    (finding,) = otel.verify(server)
    assert finding.check == "tool_call"
    assert finding.message.startswith("the reply asked for the tool 'get_weather', but no")
    assert finding.call.startswith("call 1 (POST /v1/responses")
