"""Recording WebSocket sessions through the proxy (record/_ws.py): the script a session
becomes (pure), then a loopback upstream recorded and replayed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import mockhttp
from mockhttp import llm, record, ws
from mockhttp._core._request import Headers, Request
from mockhttp.record._ws import Kept, to_script, websocket_mock

# -- the script, pure ----------------------------------------------------------------------------


def test_server_messages_are_sends_with_their_gaps_and_client_ones_expects() -> None:
    kept = [
        Kept("server", "text", '{"type":"session.created"}', 0.10),
        Kept("client", "text", '{"type":"response.create"}', 0.20),
        Kept("server", "binary", b"\x00", 0.50),
        Kept("client", "text", '{"setup": {}}', 0.6),
        Kept("client", "text", "plain", 0.7),
        Kept("server", "close", "bye", 0.9, 1001),
        Kept("server", "text", "after the close", 1.0),
    ]
    steps: list[Any] = to_script(kept)
    assert steps[0] == ws.Send('{"type":"session.created"}', 0.1)
    assert steps[1].matcher.to_args() == ["json_path", "$.type", ["equal", "response.create"]]
    assert steps[2] == ws.Send(b"\x00", 0.3)
    assert steps[3].matcher.to_args()[:2] == ["json_path", "$.setup"]
    assert steps[4].matcher.to_args() == ["regex", ""]
    assert steps[5] == ws.Close(1001, "bye")
    assert len(steps) == 6  # nothing after the close


def test_a_dropped_upstream_is_a_drop_and_an_abnormal_code_a_clean_close() -> None:
    assert to_script([Kept("server", "drop", b"", 1.0)]) == [ws.Drop()]
    assert to_script([Kept("server", "close", "", 1.0, 1006)]) == [ws.Close(1000)]


def test_a_close_reason_is_kept_within_the_123_bytes_a_frame_holds() -> None:
    long = "é" * 70  # 140 bytes: a redacted reason can outgrow the frame's room
    (close,) = to_script([Kept("server", "close", long, 1.0, 4000)])
    assert close == ws.Close(4000, "é" * 61)
    assert to_script([Kept("server", "close", "why", 1.0, 1005)]) == [ws.Close(1000)]


def test_a_close_code_wsproto_names_is_written_as_a_number(tmp_path: Path) -> None:
    """wsproto gives a known code as its ``CloseReason`` enum: the file needs the number
    (it could not be written at all: a recording closed 1000 was lost)."""
    closing = ws.websocket(ws.send("bye"), ws.close(1000))
    with mockhttp.Server() as upstream:
        upstream.mock(closing.mock("/c"))
        with record.record(upstream.url, tmp_path) as recorder:
            with connect(_ws_url(recorder.url, "/c")) as client:
                assert client.recv(timeout=10) == "bye"
            recorder.wait(1, timeout=10)
    (path,) = tmp_path.glob("*.yaml")
    (mock,) = mockhttp.load(path)
    assert mock.kind is not None
    (close,) = [s for s in mock.kind.to_args()["script"] if "close" in s]
    assert close == {"close": 1000}
    assert type(close["close"]) is int
    assert recorder.errors == []


def test_the_mock_matches_method_and_path_only() -> None:
    req = Request("GET", "/v1/realtime?model=x", Headers((("authorization", "Bearer sk-1"),)), b"")
    mock = websocket_mock(req, [Kept("server", "text", "hi", 0.0)], name="n")
    assert (mock.method, mock.path, mock.criteria) == ("GET", "/v1/realtime", ())


# -- through the proxy ---------------------------------------------------------------------------


def _ws_url(base: str, path: str) -> str:
    return base.replace("http://", "ws://").rstrip("/") + path


def test_a_session_is_recorded_redacted_and_replays_frame_for_frame(tmp_path: Path) -> None:
    upstream_mock = llm.openai_realtime("Hello there")
    with mockhttp.Server() as upstream:
        upstream.mock(upstream_mock.mock())
        with record.record(upstream.url, tmp_path) as recorder:
            url = _ws_url(recorder.url, "/v1/realtime?model=gpt-realtime")
            headers = {"Authorization": "Bearer sk-secret-42"}
            with connect(url, additional_headers=headers) as client:
                first = client.recv(timeout=10)
                client.send(json.dumps({"type": "response.create"}))
                live = [first]
                while '"response.done"' not in live[-1]:
                    live.append(client.recv(timeout=10))
            assert len(recorder.wait(1, timeout=10)) == 1
        (upstream_session,) = upstream_mock.wait_ended()
    assert upstream_session.request.headers["authorization"] == "Bearer sk-secret-42"
    assert upstream_session.request.query == (("model", "gpt-realtime"),)
    (path,) = tmp_path.glob("*.yaml")
    text = path.read_text()
    assert "sk-secret-42" not in text
    assert "websocket:" in text
    (replayed,) = mockhttp.load(path)
    with mockhttp.Server() as server:
        server.mock(replayed)
        with connect(_ws_url(server.url, "/v1/realtime")) as client:
            again = [client.recv(timeout=10)]
            client.send(json.dumps({"type": "response.create"}))
            while len(again) < len(live):
                again.append(client.recv(timeout=10))
    assert again == live


def test_a_secret_the_upstream_echoes_is_redacted_in_the_recording() -> None:
    echo = ws.websocket(ws.echo())
    with mockhttp.Server() as upstream:
        upstream.mock(echo.mock("/echo"))
        with record.record(upstream.url) as recorder:
            headers = {"Authorization": "Bearer sk-echoed-7"}
            with connect(_ws_url(recorder.url, "/echo"), additional_headers=headers) as client:
                client.send("key is sk-echoed-7")
                assert client.recv(timeout=10) == "key is sk-echoed-7"  # the client gets it
            (mock,) = recorder.wait(1, timeout=10)
    assert "sk-echoed-7" not in mockhttp.dump([mock])


def test_an_upstream_close_code_is_recorded_and_replayed() -> None:
    closing = ws.websocket(ws.send("bye"), ws.close(1001, "going away"))
    with mockhttp.Server() as upstream:
        upstream.mock(closing.mock("/c"))
        with record.record(upstream.url) as recorder:
            with connect(_ws_url(recorder.url, "/c")) as client:
                assert client.recv(timeout=10) == "bye"
                with pytest.raises(ConnectionClosed) as closed:
                    client.recv(timeout=10)
                assert closed.value.rcvd is not None
                assert closed.value.rcvd.code == 1001
            (mock,) = recorder.wait(1, timeout=10)
    assert mock.kind is not None
    assert mock.kind.to_args()["script"][-1] == {"close": {"code": 1001, "reason": "going away"}}


def test_the_recorders_own_secret_names_redact_messages_too() -> None:
    echo = ws.websocket(ws.echo())
    with mockhttp.Server() as upstream:
        upstream.mock(echo.mock("/echo"))
        with record.record(upstream.url, redact=["x-team"]) as recorder:
            headers = {"X-Team": "team-value-9"}
            with connect(_ws_url(recorder.url, "/echo"), additional_headers=headers) as client:
                client.send("team-value-9 here")
                assert client.recv(timeout=10) == "team-value-9 here"
            (mock,) = recorder.wait(1, timeout=10)
    assert "team-value-9" not in mockhttp.dump([mock])


def test_binary_and_fragmented_messages_are_relayed_and_recorded_whole() -> None:
    echo = ws.websocket(ws.echo())
    with mockhttp.Server() as upstream:
        upstream.mock(echo.mock("/echo"))
        with record.record(upstream.url) as recorder:
            with connect(_ws_url(recorder.url, "/echo")) as client:
                client.send(b"\x00\x01\x02")
                assert client.recv(timeout=10) == b"\x00\x01\x02"
                client.send(["frag", "mented"])  # one message in two frames
                assert client.recv(timeout=10) == "fragmented"
            (mock,) = recorder.wait(1, timeout=10)
    script = mock.kind.to_args()["script"] if mock.kind is not None else []
    assert script[0]["expect"] == ["regex", ""]
    assert script[1]["send"] == {"binary": "AAEC"}
    assert script[3]["send"] == "fragmented"
    (upstream_session,) = echo.wait_ended()
    assert upstream_session.received == [b"\x00\x01\x02", "fragmented"]


def test_messages_sent_at_once_wait_for_the_upstream() -> None:
    expecting = ws.websocket(ws.expect("first"), ws.send("got it"))
    with mockhttp.Server() as upstream:
        upstream.mock(expecting.mock("/x"))
        with record.record(upstream.url) as recorder:
            with connect(_ws_url(recorder.url, "/x")) as client:
                client.send("first")  # before the upstream has accepted, likely
                assert client.recv(timeout=10) == "got it"
            recorder.wait(1, timeout=10)
    (session,) = expecting.wait_ended()
    assert session.received == ["first"]
    assert session.mismatches == []


def test_a_session_of_client_messages_only_expects_them_and_ends_open() -> None:
    steps = to_script([Kept("client", "text", "a", 0.0), Kept("client", "close", "", 0.5, 1000)])
    assert len(steps) == 1
    assert isinstance(steps[0], ws.Expect)


def test_gaps_are_rounded_to_milliseconds_and_never_negative() -> None:
    steps = to_script(
        [
            Kept("server", "text", "a", 0.12345),
            Kept("server", "text", "b", 0.1),
            Kept("server", "text", "c", 0.4),
        ]
    )
    assert [s.after for s in steps if isinstance(s, ws.Send)] == [0.123, 0.0, 0.3]


def test_a_non_json_or_many_field_message_expects_anything() -> None:
    for message in ('{"a": 1, "b": 2}', "[1, 2]", '{"not an id": 1}', b"\xff\xfe"):
        (step,) = to_script(
            [Kept("client", "binary" if isinstance(message, bytes) else "text", message, 0)]
        )
        assert isinstance(step, ws.Expect)
        assert step.matcher.to_args() == ["regex", ""]


def test_the_client_pings_are_answered_by_the_proxy() -> None:
    echo = ws.websocket(ws.echo())
    with mockhttp.Server() as upstream:
        upstream.mock(echo.mock("/echo"))
        with record.record(upstream.url) as recorder:
            with connect(_ws_url(recorder.url, "/echo")) as client:
                assert client.ping(b"p1").wait(10)
                client.send("x")
                assert client.recv(timeout=10) == "x"
            (mock,) = recorder.wait(1, timeout=10)
    assert mock.kind is not None
    assert [next(iter(s)) for s in mock.kind.to_args()["script"]] == ["expect", "send"]


def test_a_replayed_session_keeps_its_timing() -> None:
    slow = ws.websocket(ws.send("a"), ws.send("b", after=0.3))
    with mockhttp.Server() as upstream:
        upstream.mock(slow.mock("/s"))
        with record.record(upstream.url) as recorder:
            with connect(_ws_url(recorder.url, "/s")) as client:
                assert [client.recv(timeout=10), client.recv(timeout=10)] == ["a", "b"]
            (mock,) = recorder.wait(1, timeout=10)
    assert mock.kind is not None
    (first, second) = mock.kind.to_args()["script"]
    assert first["send"] == "a"
    assert second["send"] == "b"
    assert 0.2 <= second["after"] <= 5  # the upstream's 0.3 s gap, as the proxy saw it arrive
