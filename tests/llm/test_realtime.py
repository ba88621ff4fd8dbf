"""OpenAI Realtime over a WebSocket mock, read by the ``openai`` SDK's realtime client."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.sync.client import connect
from websockets.typing import Subprotocol

import mockhttp
from mockhttp import ConfigError, llm

openai = pytest.importorskip("openai")


def test_the_openai_sdk_reads_a_text_response() -> None:
    with mockhttp.Server() as server:
        realtime = llm.openai_realtime("Hello from the mock")
        server.mock(realtime.mock())
        with (
            openai.OpenAI(api_key="sk-test", base_url=f"{server.url.rstrip('/')}/v1") as client,
            client.realtime.connect(model="gpt-realtime") as conn,
        ):
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
        with (
            openai.OpenAI(api_key="sk-test", base_url=server.url_for("/v1")) as client,
            client.realtime.connect(model="gpt-realtime") as conn,
        ):
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
        with (
            openai.OpenAI(api_key="sk-test", base_url=server.url_for("/v1")) as client,
            client.realtime.connect(model="gpt-realtime") as conn,
        ):
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


def _weather_script() -> llm.Conversation:
    return llm.conversation(
        llm.turn(tool_calls=[llm.tool_call("get_weather", {"city": "Paris"})]),
        llm.turn("It is 18 C.", expect={"tool_result": {"name": "get_weather", "content": "18"}}),
        name="weather",
    )


def test_a_conversation_drives_a_tool_loop_through_the_sdk() -> None:
    realtime = llm.openai_realtime(conversation=_weather_script())
    with mockhttp.Server() as server:
        server.mock(realtime.mock())
        with (
            openai.OpenAI(api_key="sk-test", base_url=server.url_for("/v1")) as client,
            client.realtime.connect(model="gpt-realtime") as conn,
        ):
            assert conn.recv().type == "session.created"
            tool = {"type": "function", "name": "get_weather", "parameters": {"type": "object"}}
            conn.session.update(session={"type": "realtime", "tools": [tool]})
            assert conn.recv().type == "session.updated"
            user = {"type": "input_text", "text": "Weather in Paris?"}
            conn.conversation.item.create(
                item={"type": "message", "role": "user", "content": [user]}
            )
            assert conn.recv().type == "conversation.item.created"
            text, calls = "", []
            for _ in range(2):
                conn.response.create()
                for event in conn:
                    if event.type == "response.output_text.delta":
                        text += event.delta
                    if event.type == "response.function_call_arguments.done":
                        calls.append((event.name, json.loads(event.arguments), event.call_id))
                        output = {"type": "function_call_output", "call_id": event.call_id}
                        conn.conversation.item.create(item={**output, "output": "18 C"})
                    if event.type == "response.done":
                        break
    assert [c[:2] for c in calls] == [("get_weather", {"city": "Paris"})]
    assert calls[0][2] == realtime.conversation.call_id(0, 0, "openai_responses")
    assert text == "It is 18 C."
    realtime.wait_ended()
    realtime.check()


def test_a_refused_turn_is_an_error_event_and_check_raises_it() -> None:
    realtime = llm.openai_realtime(conversation=_weather_script())
    with mockhttp.Server() as server:
        server.mock(realtime.mock())
        with connect(f"ws://127.0.0.1:{server.port}/v1/realtime") as client:
            assert json.loads(client.recv(timeout=10))["type"] == "session.created"
            client.send(json.dumps({"type": "response.create"}))
            events: list[dict[str, Any]] = []
            while not events or events[-1]["type"] != "response.done":
                events.append(json.loads(client.recv(timeout=10)))
            (call_item,) = events[-1]["response"]["output"]
            output = {
                "type": "function_call_output",
                "call_id": call_item["call_id"],
                "output": "rain",
            }
            client.send(json.dumps({"type": "conversation.item.create", "item": output}))
            assert json.loads(client.recv(timeout=10))["type"] == "conversation.item.created"
            client.send(json.dumps({"type": "response.create", "event_id": "e9"}))
            error = json.loads(client.recv(timeout=10))
    assert error["type"] == "error"
    assert error["error"]["code"] == "conversation_refused"
    assert "turn 2 of 2" in error["error"]["message"]
    realtime.wait_ended()
    with pytest.raises(llm.ConversationError, match="turn 2 of 2"):
        realtime.check()


def test_an_error_turn_fails_its_response() -> None:
    realtime = llm.openai_realtime(conversation=llm.conversation(llm.turn(error="rate_limit")))
    with mockhttp.Server() as server:
        server.mock(realtime.mock())
        with connect(f"ws://127.0.0.1:{server.port}/v1/realtime") as client:
            client.recv(timeout=10)
            client.send(json.dumps({"type": "response.create"}))
            created = json.loads(client.recv(timeout=10))
            done = json.loads(client.recv(timeout=10))
    assert created["type"] == "response.created"
    assert done["type"] == "response.done"
    assert done["response"]["status"] == "failed"
    assert done["response"]["status_details"]["error"]["code"] == "rate_limit_exceeded"


def test_the_conversation_has_a_file_form() -> None:
    (mock,) = mockhttp.loads(
        "- request: {method: GET, path: /v1/realtime}\n"
        "  response:\n"
        "    openai_realtime:\n"
        "      conversation: {turns: [{tool_calls: [{name: f, arguments: {}}]}, {text: ok}]}\n"
    )
    kind = mock.kind
    assert isinstance(kind, llm.OpenAIRealtime)
    assert kind.conversation.turns[1].text == "ok"
    assert kind.to_args()["conversation"]["turns"][1] == {"text": "ok"}


def test_committed_audio_is_transcribed_when_the_session_asks_and_a_conversation_reads_it() -> None:
    import base64

    script = llm.conversation(
        llm.turn("It is sunny.", expect={"last_user_message": "weather in Paris"})
    )
    realtime = llm.openai_realtime(
        conversation=script, input_transcript="What is the weather in Paris?"
    )
    with mockhttp.Server() as server:
        server.mock(realtime.mock())
        with (
            openai.OpenAI(api_key="sk-test", base_url=server.url_for("/v1")) as client,
            client.realtime.connect(model="gpt-realtime") as conn,
        ):
            assert conn.recv().type == "session.created"
            transcription = {"model": "gpt-4o-transcribe"}
            conn.session.update(
                session={"type": "realtime", "audio": {"input": {"transcription": transcription}}}
            )
            assert conn.recv().type == "session.updated"
            conn.input_audio_buffer.append(audio=base64.b64encode(b"\x00\x00" * 240).decode())
            conn.input_audio_buffer.commit()
            committed = conn.recv()
            deltas, completed = "", None
            for event in conn:
                if event.type == "conversation.item.input_audio_transcription.delta":
                    deltas += event.delta or ""
                if event.type == "conversation.item.input_audio_transcription.completed":
                    completed = event
                    break
            conn.response.create()
            text = ""
            for event in conn:
                if event.type == "response.output_text.delta":
                    text += event.delta
                if event.type == "response.done":
                    break
    assert committed.type == "input_audio_buffer.committed"
    assert completed is not None
    assert completed.item_id == committed.item_id
    assert completed.transcript == deltas == "What is the weather in Paris?"
    assert (
        completed.usage.total_tokens == completed.usage.input_tokens + completed.usage.output_tokens
    )
    assert text == "It is sunny."
    realtime.wait_ended()
    realtime.check()


def test_no_transcription_events_unless_asked() -> None:
    with mockhttp.Server() as server:
        server.mock(llm.openai_realtime(input_transcript="hi").mock())
        with connect(f"ws://127.0.0.1:{server.port}/v1/realtime") as client:
            client.recv(timeout=10)
            client.send(json.dumps({"type": "input_audio_buffer.commit"}))
            client.send(json.dumps({"type": "input_audio_buffer.clear"}))
            kinds = [json.loads(client.recv(timeout=10))["type"] for _ in range(2)]
    assert kinds == ["input_audio_buffer.committed", "input_audio_buffer.cleared"]
    with pytest.raises(ConfigError, match="input_transcript"):
        llm.openai_realtime(input_transcript=3)  # type: ignore[arg-type]
    assert llm.openai_realtime(input_transcript="hi").to_args()["input_transcript"] == "hi"


def test_the_realtime_subprotocol_is_chosen_when_a_browser_offers_it() -> None:
    """As OpenAI's API answers openai-node's browser client (``realtime`` and the key's
    protocol offered); a client that offers none gets none."""
    offers = [Subprotocol("realtime"), Subprotocol("openai-insecure-api-key.sk-test-1234")]
    with mockhttp.Server() as server:
        server.mock(llm.openai_realtime("Hi").mock())
        url = f"ws://127.0.0.1:{server.port}/v1/realtime"
        with connect(url, subprotocols=offers) as client:
            assert client.subprotocol == "realtime"
            assert json.loads(client.recv(timeout=10))["type"] == "session.created"
        with connect(url) as client:
            assert client.subprotocol is None
        with connect(url, subprotocols=[Subprotocol("chat")]) as client:
            assert client.subprotocol is None
