"""``mockhttp serve --otel`` in its own process, exporting to a mockhttp collector."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import otel
from tests.helpers.cli_process import Serving

CHAT = {
    "model": "gpt-4o",
    "messages": [{"role": "user", "content": "Say hello"}],
    "stream": True,
    "stream_options": {"include_usage": True},
}


def test_serve_otel_exports_to_a_collector(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """``serve --otel`` in its own process, exporting to a mockhttp collector."""
    mocks = tmp_path / "llm.yaml"
    mocks.write_text(
        "request: {method: POST, path: /v1/chat/completions}\n"
        "response: {openai_chat: {text: Hello there}}\n"
    )
    with mockhttp.Server() as collector_server:
        collector = otel.collector()
        collector_server.mock(collector)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector_server.url)
        monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
        with Serving(str(mocks), "--otel") as serving:
            httpx.post(serving.url + "/v1/chat/completions", json=CHAT)
            httpx.get(serving.url + "/nothing")
            deadline = time.monotonic() + 30
            while len(collector.spans) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert serving.stop() == 0
        chat, missed = sorted(collector.spans, key=lambda s: s.start)
    assert chat.name == "chat gpt-4o"
    assert chat.resource["service.name"] == "mockhttp"
    assert chat.get("gen_ai.response.finish_reasons") == ["stop"]
    assert chat.get("gen_ai.usage.input_tokens") == 2
    assert missed.get("http.response.status_code") == 404
