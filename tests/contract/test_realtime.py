"""Realtime sessions' event contracts (contract/_realtime.py): each rule broken and kept,
on frames built here (pure); then our own mocks' sessions pass."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockhttp import ConfigError, ws
from mockhttp.contract._realtime import (
    REALTIME,
    WsFrame,
    check_frames,
    frames_of,
    loads_frames,
)


def _frames(*events: Any) -> list[WsFrame]:
    return [WsFrame("server", "text", e if isinstance(e, str) else json.dumps(e)) for e in events]


def _ids(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**e, "event_id": e.get("event_id", f"event_{i}")} for i, e in enumerate(events)]


def _rules(frames: list[WsFrame], profile: str = "openai-realtime") -> list[str]:
    return [f.rule for f in check_frames(frames, profile).findings]


CREATED = {"type": "session.created", "session": {}}
WHERE = {"response_id": "r1", "item_id": "i1", "output_index": 0, "content_index": 0}
USAGE = {"total_tokens": 12, "input_tokens": 10, "output_tokens": 2}


def _response(*middle: dict[str, Any], usage: Any = USAGE, rid: str = "r1") -> list[dict[str, Any]]:
    shell = {"id": rid, "status": "completed", "output": []}
    done = {"type": "response.done", "response": {**shell, "usage": usage}}
    return [
        {"type": "response.created", "response": {**shell, "status": "in_progress"}},
        *middle,
        done,
    ]


def _good() -> list[dict[str, Any]]:
    return _ids(
        [
            CREATED,
            *_response(
                {"type": "response.output_text.delta", **WHERE, "delta": "Hel"},
                {"type": "response.output_text.delta", **WHERE, "delta": "lo"},
                {"type": "response.output_text.done", **WHERE, "text": "Hello"},
            ),
        ]
    )


# -- openai-realtime, each rule broken and kept --


def test_a_good_session_passes_every_rule() -> None:
    outcome = check_frames(_frames(*_good()), "openai-realtime")
    assert outcome.findings == ()
    assert [r.id for r in outcome.rules] == [r.id for r in REALTIME.get("openai-realtime")]
    assert outcome.skipped == ()


def test_json_a_frame_that_is_no_event() -> None:
    assert _rules(_frames(*_good(), "not json")) == ["realtime.json"]
    assert "realtime.json" in _rules(_frames(*_good(), {"no": "type", "event_id": "x"}))


def test_event_id_missing_or_repeated() -> None:
    events = _good()
    del events[1]["event_id"]
    assert _rules(_frames(*events)) == ["realtime.event-id"]
    events = _good()
    events[2]["event_id"] = events[1]["event_id"]
    (finding,) = check_frames(_frames(*events), "openai-realtime").findings
    assert "again (first at message 1)" in finding.message
    assert finding.event == 2


def test_session_created_first() -> None:
    assert _rules(_frames(*_good()[1:])) == ["realtime.session-created"]


def test_deltas_that_do_not_make_their_done() -> None:
    events = _good()
    events[3]["delta"] = "LO"
    (finding,) = check_frames(_frames(*events), "openai-realtime").findings
    assert finding.rule == "realtime.deltas"
    assert '"Hello" but its deltas make "HelLO"' in finding.message


def test_deltas_after_done_and_without_done() -> None:
    events = _good()
    late = {"type": "response.output_text.delta", **WHERE, "delta": "!", "event_id": "late"}
    events.insert(5, late)
    rules = _rules(_frames(*events))
    assert rules.count("realtime.deltas") == 2  # after its done, and never done again


def test_function_call_argument_deltas_reassemble() -> None:
    where = {"response_id": "r1", "item_id": "i2", "output_index": 0, "call_id": "c1"}
    call = [
        {"type": "response.function_call_arguments.delta", **where, "delta": '{"a"'},
        {"type": "response.function_call_arguments.delta", **where, "delta": ":1}"},
        {"type": "response.function_call_arguments.done", **where, "arguments": '{"a":1}'},
    ]
    assert _rules(_frames(*_ids([CREATED, *_response(*call)]))) == []
    call[2] = {**call[2], "arguments": '{"a":2}'}
    assert _rules(_frames(*_ids([CREATED, *_response(*call)]))) == ["realtime.deltas"]


def test_audio_transcript_deltas_reassemble() -> None:
    audio = [
        {"type": "response.output_audio_transcript.delta", **WHERE, "delta": "Hi"},
        {"type": "response.output_audio_transcript.done", **WHERE, "transcript": "Hi!"},
    ]
    assert _rules(_frames(*_ids([CREATED, *_response(*audio)]))) == ["realtime.deltas"]


def test_response_done_once_per_response() -> None:
    events = _good()
    twice = _ids([*events, {**events[-1], "event_id": "again"}])
    assert _rules(_frames(*twice)) == ["realtime.response-done"]
    never = _good()[:-1]
    (finding,) = check_frames(_frames(*never), "openai-realtime").findings
    assert "has no response.done" in finding.message
    stray = _ids([CREATED, {"type": "response.done", "response": {"id": "r9", "usage": USAGE}}])
    assert _rules(_frames(*stray)) == ["realtime.response-done"]


def test_usage_present_and_adding_up() -> None:
    missing = _ids([CREATED, *_response(usage=None)])
    assert _rules(_frames(*missing)) == ["realtime.usage"]
    wrong = _ids([CREATED, *_response(usage={**USAGE, "total_tokens": 13})])
    (finding,) = check_frames(_frames(*wrong), "openai-realtime").findings
    assert "total_tokens 13 != input 10 + output 2" in finding.message
    failed = _ids([CREATED, *_response(usage=None)])
    failed[-1]["response"]["status"] = "failed"  # a failed response needs no usage
    assert _rules(_frames(*failed)) == []


def test_error_events_in_the_providers_shape() -> None:
    good = {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}
    assert _rules(_frames(*_ids([CREATED, good]))) == []
    bad = {"type": "error", "error": "bad"}
    assert _rules(_frames(*_ids([CREATED, bad]))) == ["realtime.error"]


def test_client_frames_are_not_judged_and_no_frames_skip_every_rule() -> None:
    frames = [WsFrame("client", "text", "not json"), *_frames(*_good())]
    assert _rules(frames) == []
    empty = check_frames([WsFrame("client", "text", "{}")], "openai-realtime")
    assert set(empty.skipped) == {r.id for r in empty.rules}
    assert empty.findings == ()


# -- gemini-live --


def _turn() -> list[dict[str, Any]]:
    usage = {"promptTokenCount": 2, "responseTokenCount": 1, "totalTokenCount": 3}
    return [
        {"serverContent": {"modelTurn": {"parts": [{"text": "Hi"}]}}},
        {"serverContent": {"turnComplete": True}, "usageMetadata": usage},
    ]


def _gl(*events: Any) -> list[str]:
    return _rules(_frames(*events), "gemini-live")


def test_gemini_a_good_session_passes() -> None:
    call = {"toolCall": {"functionCalls": [{"id": "c1", "name": "f", "args": {}}]}}
    assert _gl({"setupComplete": {}}, call, *_turn(), {"goAway": {"timeLeft": "1s"}}) == []


def test_gemini_json_and_its_fields() -> None:
    assert _gl({"setupComplete": {}}, "nope") == ["gemini-live.json"]
    assert _gl({"setupComplete": {}}, {"serverContnet": {}}) == ["gemini-live.json"]
    (extra,) = check_frames(
        _frames({"setupComplete": {}}, {"goAway": {}, "extra": 1}), "gemini-live"
    ).findings
    assert (extra.rule, extra.severity) == ("gemini-live.json", "warning")


def test_gemini_setup_complete_first_and_once() -> None:
    assert _gl(*_turn()) == ["gemini-live.setup-complete"]
    assert _gl({"setupComplete": {}}, {"setupComplete": {}}) == ["gemini-live.setup-complete"]


def test_gemini_a_turn_without_turn_complete() -> None:
    (first, _last) = _turn()
    assert _gl({"setupComplete": {}}, first) == ["gemini-live.turn-complete"]
    interrupted = {"serverContent": {"interrupted": True}}
    assert _gl({"setupComplete": {}}, first, interrupted) == []


def test_gemini_tool_calls_need_ids_and_names() -> None:
    no_id = {"toolCall": {"functionCalls": [{"name": "f", "args": {}}]}}
    assert _gl({"setupComplete": {}}, no_id) == ["gemini-live.tool-call"]
    assert _gl({"setupComplete": {}}, {"toolCall": {}}) == ["gemini-live.tool-call"]


def test_gemini_usage_counts() -> None:
    low = {"usageMetadata": {"promptTokenCount": 5, "responseTokenCount": 5, "totalTokenCount": 3}}
    assert _gl({"setupComplete": {}}, low) == ["gemini-live.usage"]
    text = {"usageMetadata": {"totalTokenCount": "3"}}
    assert _gl({"setupComplete": {}}, text) == ["gemini-live.usage"]


# -- reading frames --


def test_loads_frames_reads_both_spellings_and_base64() -> None:
    text = json.dumps(
        {
            "frames": [
                {"from": "server", "kind": "text", "data": "{}", "at": 0.5},
                {"direction": "received", "kind": "binary", "data": "AAE="},
                {"from": "server", "kind": "close", "data": "bye", "code": 1000},
            ]
        }
    )
    frames = loads_frames(text)
    assert frames[0] == WsFrame("server", "text", "{}", 0.5)
    assert frames[1] == WsFrame("client", "binary", b"\x00\x01", 0.0)
    assert frames[2].code == 1000


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("nope", "not JSON"),
        ('{"x": 1}', "a list of frames"),
        ("[3]", "frames[0] must be an object"),
        ('[{"from": "me"}]', "frames[0].from='me'"),
        ('[{"from": "server", "kind": "binary", "data": "***"}]', "base64"),
        ('[{"from": "server", "data": 3}]', "data must be text"),
    ],
)
def test_loads_frames_says_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=r"capture\.json") as raised:
        loads_frames(text, "capture.json")
    assert says in str(raised.value)


def test_an_unknown_profile_says_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="openai-realtime"):
        check_frames([], "openai-realtimes")


# -- our own mocks pass --


def test_our_openai_realtime_mock_passes(realtime_sessions: Any) -> None:
    openai_session, _ = realtime_sessions
    outcome = check_frames(frames_of(openai_session), "openai-realtime")
    assert outcome.findings == ()
    assert outcome.skipped == ()


def test_our_gemini_live_mock_passes(realtime_sessions: Any) -> None:
    _, gemini_session = realtime_sessions
    outcome = check_frames(frames_of(gemini_session), "gemini-live")
    assert outcome.findings == ()
    assert outcome.skipped == ()


@pytest.fixture(scope="module")
def realtime_sessions() -> Any:
    """One session of each mock, with text, a tool call, audio and an error."""
    from websockets.sync.client import connect

    import mockhttp
    from mockhttp import llm

    call = {"name": "f", "arguments": {"city": "Paris"}}
    openai_mock = llm.openai_realtime("Hello there", tool_call=call)
    gemini_mock = llm.gemini_live("Hi you", tool_calls=[call], go_away_after=1)
    with mockhttp.Server() as server:
        server.mock(openai_mock.mock())
        server.mock(gemini_mock.mock())
        with connect(f"ws://127.0.0.1:{server.port}/v1/realtime") as client:
            messages = [
                {"type": "response.create"},
                {"type": "session.update", "session": {"output_modalities": ["audio"]}},
                {"type": "response.create"},
                {"type": "nope", "event_id": "e1"},
            ]
            for message in messages:
                client.send(json.dumps(message))
            while json.loads(client.recv(timeout=10))["type"] != "error":
                pass
        path = "/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent"
        with connect(f"ws://127.0.0.1:{server.port}{path}") as client:
            client.send(json.dumps({"setup": {"model": "models/m"}}))
            client.recv(timeout=10)
            client.send(json.dumps({"realtimeInput": {"text": "hi"}}))
            client.recv(timeout=10)  # the tool call
            answer = {"functionResponses": [{"id": "function-call-1", "name": "f", "response": {}}]}
            client.send(json.dumps({"toolResponse": answer}))
            while "goAway" not in json.loads(client.recv(timeout=10)):
                pass
        (openai_session,) = openai_mock.wait_ended()
        (gemini_session,) = gemini_mock.wait_ended()
    return openai_session, gemini_session


# -- more of the rules' edges --


def test_deltas_of_two_parts_interleaved_each_reassemble() -> None:
    other = {**WHERE, "item_id": "i2"}
    events = _ids(
        [
            CREATED,
            *_response(
                {"type": "response.output_text.delta", **WHERE, "delta": "a"},
                {"type": "response.output_text.delta", **other, "delta": "x"},
                {"type": "response.output_text.delta", **WHERE, "delta": "b"},
                {"type": "response.output_text.done", **other, "text": "x"},
                {"type": "response.output_text.done", **WHERE, "text": "ab"},
            ),
        ]
    )
    assert _rules(_frames(*events)) == []


def test_a_done_without_deltas_must_be_empty() -> None:
    done = {"type": "response.output_text.done", **WHERE, "text": "whole"}
    assert _rules(_frames(*_ids([CREATED, *_response(done)]))) == ["realtime.deltas"]
    empty = {"type": "response.output_text.done", **WHERE, "text": ""}
    assert _rules(_frames(*_ids([CREATED, *_response(empty)]))) == []


def test_a_cancelled_response_needs_no_usage_but_still_one_done() -> None:
    events = _ids([CREATED, *_response(usage=None)])
    events[-1]["response"]["status"] = "cancelled"
    assert _rules(_frames(*events)) == []
    assert _rules(_frames(*events[:-1])) == ["realtime.response-done"]


def test_two_responses_each_with_their_done() -> None:
    events = _ids([CREATED, *_response(rid="r1"), *_response(rid="r2")])
    assert _rules(_frames(*events)) == []
    swapped = _ids([CREATED, *_response(rid="r1")[:1], *_response(rid="r2")])
    (finding,) = check_frames(_frames(*swapped), "openai-realtime").findings
    assert finding.message == 'response "r1" (created at message 1) has no response.done'


def test_findings_carry_the_server_message_index_and_the_exchange() -> None:
    events = _good()
    events[3]["event_id"] = ""
    frames = [WsFrame("client", "text", "{}"), *_frames(*events)]
    (finding,) = check_frames(frames, "openai-realtime", "live session").findings
    assert finding.event == 3  # the fourth server message; the client's is not counted
    assert finding.exchange == "live session"
    outcome = check_frames(frames, "openai-realtime")
    assert outcome.profiles == ("openai-realtime",)
    assert outcome.exchange == "session"


def test_gemini_a_new_turn_after_turn_complete_and_an_unended_one_after_it() -> None:
    turn = _turn()
    assert _gl({"setupComplete": {}}, *turn, *turn) == []
    (finding,) = check_frames(
        _frames({"setupComplete": {}}, *turn, turn[0], turn[0]), "gemini-live"
    ).findings
    assert finding.event == 3  # where the unended turn began


def test_gemini_usage_without_counts_is_zero_and_passes() -> None:
    assert _gl({"setupComplete": {}}, {"usageMetadata": {"totalTokenCount": 0}}) == []
    assert _gl({"setupComplete": {}}, {"usageMetadata": "x"}) == ["gemini-live.usage"]


def test_frames_of_reads_a_mock_sessions_journal() -> None:
    from types import SimpleNamespace

    journal = [ws.Frame("sent", "text", "a", 0.1), ws.Frame("received", "close", "", 0.2, 1000)]
    assert frames_of(SimpleNamespace(frames=journal)) == [  # only its frames are read
        WsFrame("server", "text", "a", 0.1),
        WsFrame("client", "close", "", 0.2, 1000),
    ]


def test_loads_frames_takes_a_missing_time_and_kind_as_zero_and_text() -> None:
    (frame,) = loads_frames('[{"from": "server", "data": "x", "at": "soon"}]')
    assert frame == WsFrame("server", "text", "x", 0.0)
