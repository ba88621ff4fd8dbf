"""Gemini Live (llm/_gemini_live.py): the session's answers (pure), then google-genai's live
client over a loopback wss:// connection."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

import mockhttp
from mockhttp import ConfigError, llm, ws
from mockhttp.llm._gemini_live import PATH
from mockhttp.llm._media import pcm


def _session(**options: Any) -> Any:
    return llm.gemini_live(**options).responder()


def _say(live: Any, message: Any) -> list[Any]:
    """What the mock sends for ``message``: JSON frames decoded, closes as they are."""
    out = live.answer(json.dumps(message) if not isinstance(message, str) else message)
    return [json.loads(m) if isinstance(m, str) else m for m in out]


SETUP_TEXT = {"setup": {"model": "models/m", "generationConfig": {"responseModalities": ["TEXT"]}}}


# -- the session, pure --------------------------------------------------------------------------


def test_setup_then_a_text_turn_word_by_word_with_usage() -> None:
    live = _session(text="Hello there")
    assert _say(live, SETUP_TEXT) == [{"setupComplete": {}}]
    turn = {"turns": [{"role": "user", "parts": [{"text": "hi you"}]}], "turnComplete": True}
    out = _say(live, {"client_content": turn})
    parts = [m["serverContent"]["modelTurn"]["parts"][0]["text"] for m in out[:2]]
    assert parts == ["Hello", " there"]
    assert out[2] == {"serverContent": {"generationComplete": True}}
    assert out[3]["serverContent"] == {"turnComplete": True}
    usage = out[3]["usageMetadata"]
    assert (usage["promptTokenCount"], usage["responseTokenCount"]) == (2, 2)
    assert usage["totalTokenCount"] == 4
    assert usage["responseTokensDetails"] == [{"modality": "TEXT", "tokenCount": 2}]


def test_a_turn_waits_for_turn_complete() -> None:
    live = _session()
    _say(live, SETUP_TEXT)
    assert _say(live, {"clientContent": {"turns": [{"parts": [{"text": "a"}]}]}}) == []
    assert _say(live, {"clientContent": {"turnComplete": True}})[-1]["serverContent"] == {
        "turnComplete": True
    }


def test_audio_is_the_default_modality_with_transcription_when_asked() -> None:
    live = _session(text="Hi there")
    _say(live, {"setup": {"model": "m", "outputAudioTranscription": {}}})
    out = _say(live, {"realtimeInput": {"text": "hello"}})
    assert out[0] == {"serverContent": {"outputTranscription": {"text": "Hi"}}}
    blob = out[1]["serverContent"]["modelTurn"]["parts"][0]["inlineData"]
    assert blob["mimeType"] == "audio/pcm;rate=24000"
    assert base64.b64decode(blob["data"]) == pcm("Hi")
    assert out[2]["serverContent"]["outputTranscription"]["text"] == " there"
    assert out[-1]["usageMetadata"]["responseTokensDetails"][0]["modality"] == "AUDIO"


def test_audio_input_answers_at_the_end_of_the_stream() -> None:
    live = _session()
    _say(live, SETUP_TEXT)
    audio = {"data": base64.b64encode(b"\0\0").decode(), "mime_type": "audio/pcm;rate=16000"}
    assert _say(live, {"realtime_input": {"audio": audio}}) == []
    assert _say(live, {"realtime_input": {"audioStreamEnd": True}})[-1]["serverContent"] == {
        "turnComplete": True
    }
    assert _say(live, {"realtime_input": {"audioStreamEnd": True}}) == []  # no audio since
    _say(live, {"realtimeInput": {"mediaChunks": [audio]}})
    assert _say(live, {"realtimeInput": {"activityEnd": {}}})


def test_a_tool_call_then_the_tool_response_then_text() -> None:
    call = {"name": "get_weather", "arguments": {"city": "Paris"}}
    live = _session(text="Sunny", tool_calls=[call])
    _say(live, SETUP_TEXT)
    (made,) = _say(live, {"realtimeInput": {"text": "weather?"}})
    (fc,) = made["toolCall"]["functionCalls"]
    assert (fc["name"], fc["args"], fc["id"]) == (
        "get_weather",
        {"city": "Paris"},
        "function-call-1",
    )
    response = {"functionResponses": [{"id": fc["id"], "name": fc["name"], "response": {"t": 18}}]}
    out = _say(live, {"tool_response": response})
    assert out[0]["serverContent"]["modelTurn"]["parts"] == [{"text": "Sunny"}]


def test_go_away_follows_the_nth_turn() -> None:
    live = _session(go_away_after=2)
    _say(live, SETUP_TEXT)
    first = _say(live, {"realtimeInput": {"text": "a"}})
    second = _say(live, {"realtimeInput": {"text": "b"}})
    assert all("goAway" not in m for m in first)
    assert second[-1] == {"goAway": {"timeLeft": "10s"}}


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ("not json", "Invalid JSON payload received."),
        ({"setup": {}, "clientContent": {}}, "exactly one field"),
        ({"clientContnet": {}}, 'Unknown name "clientContnet"'),
        ({"clientContent": {"turnComplete": True}}, "setup must be the first message"),
    ],
)
def test_a_bad_message_closes_1007_with_its_reason(message: Any, reason: str) -> None:
    (close,) = _say(_session(), message)
    assert isinstance(close, ws.Close)
    assert close.code == 1007
    assert reason in close.reason


def test_a_second_setup_closes_1007() -> None:
    live = _session()
    _say(live, SETUP_TEXT)
    (close,) = _say(live, SETUP_TEXT)
    assert (close.code, close.reason) == (
        1007,
        "Request contains an invalid argument: setup came twice.",
    )


def test_a_conversation_drives_the_turns_and_refuses_with_1008() -> None:
    script = llm.conversation(
        llm.turn(tool_calls=[llm.tool_call("lookup", {"q": "x"})]),
        llm.turn("Found it", expect={"tool_result": {"name": "lookup", "content": "ok"}}),
    )
    live = _session(conversation=script)
    _say(live, SETUP_TEXT)
    (made,) = _say(live, {"realtimeInput": {"text": "find x"}})
    (fc,) = made["toolCall"]["functionCalls"]
    assert fc["id"] == script.call_id(0, 0, "gemini")
    bad = {"functionResponses": [{"id": fc["id"], "name": "lookup", "response": {"r": "no"}}]}
    with pytest.raises(llm.ConversationError) as refused:
        _say(live, {"toolResponse": bad})
    (close,) = refused.value.reply
    assert close.code == 1008
    assert "turn 2 of 2" in close.reason
    assert len(close.reason.encode()) <= 123


def test_an_error_turn_closes_1011_with_the_providers_status() -> None:
    live = _session(conversation=llm.conversation(llm.turn(error="rate_limit")))
    _say(live, SETUP_TEXT)
    (close,) = _say(live, {"realtimeInput": {"text": "a"}})
    assert close.code == 1011
    assert close.reason.startswith("RESOURCE_EXHAUSTED: ")


def test_the_kind_checks_its_arguments_and_reads_from_files() -> None:
    with pytest.raises(ConfigError, match="text"):
        llm.gemini_live(3)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="go_away_after"):
        llm.gemini_live(go_away_after=0)
    with pytest.raises(ConfigError, match="tool_calls"):
        llm.gemini_live(tool_calls="f")
    (mock,) = mockhttp.loads(
        f"- request: {{method: GET, path: '{PATH}'}}\n"
        "  response:\n"
        "    gemini_live:\n"
        "      text: Hi there\n"
        "      tool_calls: [{name: f, arguments: {a: 1}}]\n"
        "      go_away_after: 2\n"
    )
    made = llm.gemini_live(
        "Hi there", tool_calls=[{"name": "f", "arguments": {"a": 1}}], go_away_after=2
    )
    assert mock.kind == made
    assert mock.kind.to_args() == {
        "text": "Hi there",
        "tool_calls": [{"name": "f", "arguments": {"a": 1}}],
        "go_away_after": 2,
    }
    script = {"turns": [{"text": "a"}]}
    assert llm.gemini_live(conversation=script).to_args()["conversation"]["turns"] == [
        {"text": "a"}
    ]


# -- google-genai's live client ------------------------------------------------------------------

genai = pytest.importorskip("google.genai")
types = pytest.importorskip("google.genai.types")


@contextlib.asynccontextmanager
async def _live(server: mockhttp.Server, model: str, config: Any) -> AsyncIterator[Any]:
    """A live session of google-genai's client of ``server``; the client (both of its
    sides) closed after it, not left to the garbage collector."""
    options = types.HttpOptions(
        base_url=server.url.rstrip("/"), async_client_args={"ssl": server.ssl_context()}
    )
    with genai.Client(api_key="test-key", http_options=options) as client:
        async with client.aio as aio, aio.live.connect(model=model, config=config) as session:
            yield session


def _run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 30))


def test_the_sdk_reads_a_text_turn_with_usage() -> None:
    live = llm.gemini_live("Hello from the mock")
    with mockhttp.Server(tls=True) as server:
        server.mock(live.mock())

        async def talk() -> tuple[str, Any, Any]:
            config = {"response_modalities": ["TEXT"], "system_instruction": "be brief"}
            async with _live(server, "gemini-live-2.5-flash-preview", config) as session:
                setup = session.setup_complete
                await session.send_client_content(
                    turns=types.Content(role="user", parts=[types.Part(text="Hi")])
                )
                text, usage = "", None
                async for message in session.receive():
                    text += message.text or ""
                    usage = message.usage_metadata or usage
                return text, usage, setup

        text, usage, setup = _run(talk())
        (session,) = live.wait_ended()
    assert text == "Hello from the mock"
    assert setup is not None
    assert usage.response_token_count == 4
    assert usage.total_token_count == usage.prompt_token_count + 4
    assert session.request.headers["x-goog-api-key"] == "test-key"
    first = json.loads(session.received[0])
    assert first["setup"]["model"] == "models/gemini-live-2.5-flash-preview"
    assert first["setup"]["systemInstruction"]["parts"] == [{"text": "be brief"}]


def test_the_sdk_decodes_audio_with_its_transcription() -> None:
    live = llm.gemini_live("Hi there")
    with mockhttp.Server(tls=True) as server:
        server.mock(live.mock())

        async def talk() -> tuple[bytes, str]:
            config = {"response_modalities": ["AUDIO"], "output_audio_transcription": {}}
            async with _live(server, "m", config) as session:
                await session.send_realtime_input(text="Hello")
                sound, words = b"", ""
                async for message in session.receive():
                    sound += message.data or b""
                    content = message.server_content
                    if content and content.output_transcription:
                        words += content.output_transcription.text
                return sound, words

        sound, words = _run(talk())
    assert sound == pcm("Hi") + pcm(" there")
    assert words == "Hi there"


def test_the_sdk_runs_a_tool_loop_from_a_conversation_then_sees_go_away() -> None:
    script = llm.conversation(
        llm.turn(tool_calls=[llm.tool_call("get_weather", {"city": "Paris"})]),
        llm.turn(
            "It is 18 C in Paris.",
            expect={"tool_result": {"name": "get_weather", "content": "18"}},
        ),
        name="weather",
    )
    live = llm.gemini_live(conversation=script, go_away_after=1)
    with mockhttp.Server(tls=True) as server:
        server.mock(live.mock())

        async def talk() -> tuple[list[Any], str, Any]:
            tool = {"function_declarations": [{"name": "get_weather"}]}
            config = {"response_modalities": ["TEXT"], "tools": [tool]}
            async with _live(server, "m", config) as session:
                await session.send_client_content(
                    turns=types.Content(role="user", parts=[types.Part(text="Weather?")])
                )
                calls, text = [], ""
                async for message in session.receive():
                    if message.tool_call:
                        calls += message.tool_call.function_calls
                        answers = [
                            types.FunctionResponse(id=c.id, name=c.name, response={"celsius": 18})
                            for c in message.tool_call.function_calls
                        ]
                        await session.send_tool_response(function_responses=answers)
                    text += message.text or ""
                away = None
                async for message in session.receive():
                    away = message.go_away
                    break
                return calls, text, away

        calls, text, away = _run(talk())
        (session,) = live.wait_ended()
    assert [(c.name, c.args) for c in calls] == [("get_weather", {"city": "Paris"})]
    assert text == "It is 18 C in Paris."
    assert away is not None
    assert away.time_left == "10s"
    assert session.errors == []
    live.check()


def test_a_refused_turn_reaches_the_sdk_as_its_error_and_check_raises_it() -> None:
    script = llm.conversation(llm.turn("one"))
    live = llm.gemini_live(conversation=script)
    with mockhttp.Server(tls=True) as server:
        server.mock(live.mock())

        async def talk() -> Any:
            config = {"response_modalities": ["TEXT"]}
            async with _live(server, "m", config) as session:
                for word in ("a", "b"):
                    await session.send_realtime_input(text=word)
                    try:
                        async for _message in session.receive():
                            pass
                    except genai.errors.APIError as error:
                        return error
            return None

        error = _run(talk())
        live.wait_ended()
    assert error is not None
    assert error.code == 1008
    assert "has 1 turn" in str(error)
    with pytest.raises(llm.ConversationError, match="has 1 turn"):
        live.check()


def test_input_transcription_before_the_turn_when_the_setup_asks() -> None:
    live = _session(text="Sunny", input_transcript="weather?")
    _say(live, {"setup": {"model": "m", "inputAudioTranscription": {}, **SETUP_TEXT["setup"]}})
    _say(live, {"realtimeInput": {"audio": {"data": "AAA=", "mimeType": "audio/pcm"}}})
    out = _say(live, {"realtimeInput": {"audioStreamEnd": True}})
    assert out[0] == {"serverContent": {"inputTranscription": {"text": "weather?"}}}
    assert out[1]["serverContent"]["modelTurn"]["parts"] == [{"text": "Sunny"}]
    plain = _session(input_transcript="x")
    _say(plain, SETUP_TEXT)
    _say(plain, {"realtimeInput": {"audio": {"data": "AAA="}}})
    assert "inputTranscription" not in _say(plain, {"realtimeInput": {"activityEnd": {}}})[0].get(
        "serverContent", {}
    )
    with pytest.raises(ConfigError, match="input_transcript"):
        llm.gemini_live(input_transcript=1)  # type: ignore[arg-type]


def test_the_sdk_reads_the_input_transcription_and_a_conversation_hears_it() -> None:
    script = llm.conversation(llm.turn("Sunny.", expect={"last_user_message": "weather"}))
    live = llm.gemini_live(conversation=script, input_transcript="How is the weather?")
    with mockhttp.Server(tls=True) as server:
        server.mock(live.mock())

        async def talk() -> tuple[str, str]:
            config = {"response_modalities": ["TEXT"], "input_audio_transcription": {}}
            async with _live(server, "m", config) as session:
                blob = types.Blob(data=b"\x00\x00" * 160, mime_type="audio/pcm;rate=16000")
                await session.send_realtime_input(audio=blob)
                await session.send_realtime_input(audio_stream_end=True)
                heard, text = "", ""
                async for message in session.receive():
                    content = message.server_content
                    if content and content.input_transcription:
                        heard += content.input_transcription.text or ""
                    text += message.text or ""
                return heard, text

        heard, text = _run(talk())
        live.wait_ended()
    assert heard == "How is the weather?"
    assert text == "Sunny."
    live.check()
