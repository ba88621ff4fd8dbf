"""``otel.verify`` for one test (per-test isolation): the openai SDK, instrumented by
opentelemetry-instrumentation-openai-v2, exports its spans by OTLP/HTTP to mockhttp's own
collector while two tests share one server; each test's verification judges its own calls
and the spans that tell of them, not the other test's."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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
from mockhttp._core._errors import ConfigError, VerificationError  # noqa: E402

MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]


class Switch(SpanExporter):
    """The process's one exporter (as an application has), sending to ``target`` the
    spans as ``tokens`` says (None: as they are; a number: the output tokens claimed)."""

    def __init__(self) -> None:
        self.target: SpanExporter | None = None
        self.tokens: int | None = None

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        assert self.target is not None
        return self.target.export([self._edit(s) for s in spans])

    def _edit(self, span: ReadableSpan) -> ReadableSpan:
        if self.tokens is None or span.attributes is None:
            return span
        values = {**span.attributes, "gen_ai.usage.output_tokens": self.tokens}
        return ReadableSpan(
            name=span.name,
            context=span.context,
            parent=span.parent,
            resource=span.resource,
            attributes=values,
            events=span.events,
            links=span.links,
            kind=span.kind,
            status=span.status,
            start_time=span.start_time,
            end_time=span.end_time,
            instrumentation_scope=span.instrumentation_scope,
        )

    def shutdown(self) -> None:
        pass


@pytest.fixture(scope="module")
def switch() -> Iterator[Switch]:
    switch = Switch()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(switch))  # (posted as each span ends)
    instrumentor = openai_v2.OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        yield switch
    finally:
        instrumentor.uninstrument()
        provider.shutdown()


@pytest.fixture
def server(switch: Switch) -> Iterator[mockhttp.Server]:
    switch.tokens = None
    with mockhttp.Server() as server:
        server.mock(otel.collector())  # shared: every test's exports come here
        server.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Shared.")))
        yield server
        if switch.target is not None:
            switch.target.shutdown()
            switch.target = None


def export_to(switch: Switch, url: str, headers: dict[str, str] | None = None) -> None:
    if switch.target is not None:
        switch.target.shutdown()
    switch.target = OTLPSpanExporter(endpoint=url + otel.TRACES_PATH, headers=headers)


def ask(base_url: str, headers: dict[str, str] | None = None, *, stream: bool = False) -> str:
    with openai.OpenAI(
        base_url=base_url + "/v1", api_key="sk-test", max_retries=0, default_headers=headers
    ) as client:
        if not stream:
            answer = client.chat.completions.create(model="gpt-4o", messages=MESSAGES)
            return str(answer.choices[0].message.content)
        chunks = client.chat.completions.create(
            model="gpt-4o", messages=MESSAGES, stream=True, stream_options={"include_usage": True}
        )
        with chunks:
            return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def two_tests(server: mockhttp.Server, switch: Switch) -> tuple[Any, Any]:
    """Test ``a`` (its own mock, its exports name it by the header) and test ``b`` (the
    shared mock, by the URL prefix, its exports name no test), one call each."""
    a, b = server.test("a"), server.test("b")
    a.mock(mockhttp.post("/v1/chat/completions").reply(llm.openai_chat("Sunny, 18 °C.")))
    export_to(switch, server.url, a.headers)
    assert ask(a.url, a.headers, stream=True) == "Sunny, 18 °C."
    export_to(switch, server.url)  # (an application's exporter, which names no test)
    assert ask(b.prefix_url) == "Shared."
    return a, b


def test_each_test_judges_its_own_calls_and_spans(server: mockhttp.Server, switch: Switch) -> None:
    a, b = two_tests(server, switch)
    assert len(otel.spans(server)) == 2
    assert [s.get("gen_ai.response.id") for s in otel.spans(a)] == [
        otel.served(a)[0].facts.response_id
    ]  # (b's span named no test: it is not a's)
    assert otel.spans(b) == []  # (named no test: it counts for b when it tells of b's call)
    assert otel.verify(a) == []
    assert otel.verify(b) == []
    otel.assert_telemetry(a)
    otel.assert_telemetry(server, test="b")
    assert [c.facts.response_id for c in otel.served(server, test="a")] == [
        c.facts.response_id for c in otel.served(a)
    ]


def test_a_false_span_is_found_in_its_test_only(server: mockhttp.Server, switch: Switch) -> None:
    a, b = two_tests(server, switch)
    switch.tokens = 99  # b's second call: a span that claims 99 output tokens
    assert ask(b.prefix_url) == "Shared."
    assert otel.verify(a) == []
    (finding,) = otel.verify(b)
    assert finding.check == "output_tokens"
    assert "gen_ai.usage.output_tokens is 99, but the reply carried" in finding.message
    assert finding.call.startswith("call 2 (POST /v1/chat/completions")
    with pytest.raises(VerificationError, match=r"\[output_tokens\]"):
        otel.assert_telemetry(b)


def test_a_named_span_of_no_call_of_its_test_is_a_finding(
    server: mockhttp.Server, switch: Switch
) -> None:
    """A span exported under test ``a``'s name that tells of no call of ``a`` (its call
    named test ``c``): a finding for ``a``; the span named no test's ``c`` is not seen."""
    a, c = server.test("a"), server.test("c")
    export_to(switch, server.url, a.headers)
    assert ask(c.prefix_url) == "Shared."
    (finding,) = otel.verify(a)
    assert finding.check == "span"
    assert "the span tells of a call mockhttp never served" in finding.message
    (missing,) = otel.verify(c)  # (c's call: its span was exported under a's name)
    assert missing.check == "span"
    assert missing.message.startswith("no span tells of this chat call")


def test_the_shared_verification_judges_the_shared_journal(
    server: mockhttp.Server, switch: Switch
) -> None:
    two_tests(server, switch)
    assert otel.served(server) == []  # (the tests' calls are not in the shared journal)
    found = otel.verify(server)  # b's span named no test: the shared side sees no call for it
    assert [f.check for f in found] == ["span"]
    assert "never served" in found[0].message
    export_to(switch, server.url)
    assert ask(server.url) == "Shared."
    assert len(otel.served(server)) == 1
    assert [f.check for f in otel.verify(server)] == ["span"]  # (still b's, only)


def test_a_tests_own_collector(server: mockhttp.Server, switch: Switch) -> None:
    """A collector mocked for the test takes the exports that name it."""
    a = server.test("a")
    own = otel.collector()
    a.mock(own)
    export_to(switch, a.prefix_url)  # (the prefix names the test: no header needed)
    assert ask(a.url, a.headers) == "Shared."
    assert len(own.spans) == 1
    assert otel.spans(server) == []  # (the shared collector got nothing)
    assert otel.verify(a) == []


def test_a_test_id_that_is_not_the_scoped_servers_is_refused(server: mockhttp.Server) -> None:
    with pytest.raises(ConfigError, match=r"test='b', but the ScopedServer given is test 'a'"):
        otel.verify(server.test("a"), test="b")
    assert otel.verify(server.test("a"), test="a") == []
