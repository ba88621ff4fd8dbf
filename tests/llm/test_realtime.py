"""OpenAI Realtime over a WebSocket mock, read by the ``openai`` SDK's realtime client."""

from __future__ import annotations

import json

import pytest
from websockets.sync.client import connect

import mockhttp
from mockhttp import ConfigError, llm

openai = pytest.importorskip("openai")


def test_the_openai_sdk_reads_a_text_response() -> None:
    with mockhttp.Server() as server:
        realtime = llm.openai_realtime("Hello from the mock")
        server.mock(realtime.mock())
        client = openai.OpenAI(api_key="sk-test", base_url=f"{server.url.rstrip('/')}/v1")
        with client.realtime.connect(model="gpt-realtime") as conn:
            assert conn.recv().type == "session.created"
            conn.session.update(session={"type": "realtime", "instructions": "be brief"})
            updated = conn.recv()
            assert updated.type == "session.updated"
            assert updated.session.instructions == "be brief"
            conn.conversation.item.create(
                item={
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "Hi"}],
                }
            )
            assert conn.recv().type == "conversation.item.created"
            conn.response.create()
            types, text = [], ""
            for event in conn:
                types.append(event.type)
                if event.type == "response.output_text.delta":
                    text += event.delta
                if event.type == "response.done":
                    done = event
                    break
        assert text == "Hello from the mock"
        assert types[0] == "response.created"
        assert "rate_limits.updated" in types
        assert done.response.usage.output_tokens == 4
        assert done.response.status == "completed"
        (session,) = realtime.wait_ended()
        assert json.loads(session.received[0])["type"] == "session.update"
        assert session.request.query == (("model", "gpt-realtime"),)


def test_an_unknown_event_gets_an_error_in_the_providers_shape() -> None:
    with mockhttp.Server() as server:
        server.mock(llm.openai_realtime().mock())
        with connect(f"ws://127.0.0.1:{server.port}/v1/realtime") as client:
            assert json.loads(client.recv(timeout=10))["type"] == "session.created"
            client.send(json.dumps({"type": "response.creat", "event_id": "e1"}))
            error = json.loads(client.recv(timeout=10))
            client.send("not json")
            second = json.loads(client.recv(timeout=10))
            client.send(json.dumps({"type": "input_audio_buffer.commit"}))
            committed = json.loads(client.recv(timeout=10))
    assert error["type"] == "error"
    assert error["error"]["type"] == "invalid_request_error"
    assert error["error"]["event_id"] == "e1"
    assert "response.creat" in error["error"]["message"]
    assert second["type"] == "error"
    assert committed["type"] == "input_audio_buffer.committed"


def test_the_kind_checks_its_arguments_and_reads_from_files() -> None:
    with pytest.raises(ConfigError, match="text"):
        llm.openai_realtime(3)  # type: ignore[arg-type]
    (mock,) = mockhttp.loads(
        "- request: {method: GET, path: /v1/realtime}\n"
        "  response: {openai_realtime: {text: Hi there}}\n"
    )
    assert mock.kind == llm.openai_realtime("Hi there")
    assert mock.kind.to_args() == {"text": "Hi there"}


def test_a_tool_call_then_text_through_the_sdk() -> None:
    with mockhttp.Server() as server:
        call = {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}
        realtime = llm.openai_realtime("It is sunny", tool_call=call)
        server.mock(realtime.mock())
        client = openai.OpenAI(api_key="sk-test", base_url=server.url_for("/v1"))
        with client.realtime.connect(model="gpt-realtime") as conn:
            assert conn.recv().type == "session.created"
            conn.response.create()
            deltas, done_args, call_id = "", None, None
            for event in conn:
                if event.type == "response.function_call_arguments.delta":
                    deltas += event.delta
                if event.type == "response.function_call_arguments.done":
                    done_args, call_id = event.arguments, event.call_id
                if event.type == "response.done":
                    break
            assert json.loads(deltas) == call["arguments"]
            assert done_args == deltas
            conn.conversation.item.create(
                item={"type": "function_call_output", "call_id": call_id, "output": "sunny"}
            )
            assert conn.recv().type == "conversation.item.created"
            conn.response.create()
            text = ""
            for event in conn:
                if event.type == "response.output_text.delta":
                    text += event.delta
                if event.type == "response.done":
                    break
        assert text == "It is sunny"


def test_a_bad_tool_call_says_its_shape() -> None:
    with pytest.raises(ConfigError, match="tool_call"):
        llm.openai_realtime(tool_call={"arguments": {}})
    made = llm.openai_realtime("x", tool_call={"name": "f"})
    assert made.to_args() == {"text": "x", "tool_call": {"name": "f", "arguments": {}}}


def test_audio_deltas_are_the_transcripts_pcm() -> None:
    import base64

    from mockhttp.llm._media import pcm

    with mockhttp.Server() as server:
        server.mock(llm.openai_realtime("Hello there").mock())
        client = openai.OpenAI(api_key="sk-test", base_url=server.url_for("/v1"))
        with client.realtime.connect(model="gpt-realtime") as conn:
            assert conn.recv().type == "session.created"
            conn.session.update(session={"type": "realtime", "output_modalities": ["audio"]})
            assert conn.recv().type == "session.updated"
            conn.response.create()
            sound, transcript, types = b"", "", []
            for event in conn:
                types.append(event.type)
                if event.type == "response.output_audio.delta":
                    sound += base64.b64decode(event.delta)
                if event.type == "response.output_audio_transcript.delta":
                    transcript += event.delta
                if event.type == "response.done":
                    break
    assert transcript == "Hello there"
    assert sound == pcm("Hello") + pcm(" there")
    assert len(sound) % 2 == 0
    assert sound  # 16-bit samples, not silence
    assert "response.output_text.delta" not in types
    assert "response.output_audio_transcript.done" in types
