"""The admin API's pushed-stream functions (_server/_push_admin.py) called directly with
a request: every refusal and its message, then pushes and closes that reach streams
opened by raw clients on loopback.  The same over HTTP is ``test_pushed_admin.py``'s."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

import mockhttp
from mockhttp._core._request import Request
from mockhttp._server._push_admin import close, push, streams
from mockhttp._server._verify import ActiveMock
from tests.helpers.pushed import open_events, read_to_last_chunk


@pytest.fixture(scope="module")
def server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server() as s:
        yield s


@pytest.fixture
def feed(server: mockhttp.Server) -> ActiveMock:
    server.reset()
    return server.mock(mockhttp.get("/events").reply(mockhttp.pushed(resumable=True)))


def post(body: Any = None, raw: bytes | None = None) -> Request:
    data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
    return Request("POST", "/__mockhttp/mocks/feed/push", body=data)


def error(answer: tuple[int, dict[str, Any]]) -> str:
    status, body = answer
    assert status == 400
    assert body["error"]["type"] == "push_error"
    message: str = body["error"]["message"]
    return message


def read_until(sock: socket.socket, end: bytes) -> bytes:
    data = b""
    while end not in data:
        piece = sock.recv(65536)
        assert piece, f"the connection ended before {end!r}: {data!r}"
        data += piece
    return data


# -- refusals, before any stream -------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "said"),
    [
        (post(raw=b"{nope"), "the body is not JSON ("),
        (post([{"data": "x"}]), 'the body is list, expected {"events": [...]}'),
        (
            post({"events": [{"data": "x"}], "stream": 1, "extra": 1}),
            "unknown key 'extra'; expected events, stream",
        ),
        (post({}), '"events" must be a non-empty list such as [{"data": "hi"}]'),
        (post({"events": []}), '"events" must be a non-empty list'),
        (post({"events": {"data": "x"}}), '"events" must be a non-empty list'),
        (post({"events": ["x"]}), 'events[0]=\'x\' must be an object such as {"data": "hi"}'),
        (
            post({"events": [{"data": "x"}, {"dat": "y"}]}),
            "events[1]: unknown key 'dat'; expected one of comment, data, event, id, retry",
        ),
        (
            post({"events": [{"data": "x"}, {"id": "a\nb"}]}),
            "events[1]: id='a\\nb' must be a single line (no CR or LF)",
        ),
        (post({"events": [{"retry": -1}]}), "events[0]: retry=-1 must be a non-negative int"),
        (
            post({"events": [{"data": "x"}], "stream": 1}),
            '"stream": 1 must be a stream number from 1 to 0',
        ),
        (
            post({"events": [{"data": "x"}], "stream": "1"}),
            "\"stream\": '1' must be a stream number",
        ),
        (
            post({"events": [{"data": "x"}], "stream": True}),
            '"stream": True must be a stream number',
        ),
    ],
)
def test_a_bad_push_is_a_400_that_says_why(feed: ActiveMock, request_: Request, said: str) -> None:
    assert said in error(push(feed, request_))
    assert feed.streams == []


def test_a_plain_mock_has_no_streams_to_push_close_or_list(server: mockhttp.Server) -> None:
    plain = server.mock(mockhttp.get("/plain").reply(mockhttp.ok()))
    assert error(push(plain, post({"events": [{"data": "x"}]}))).startswith(
        "push(): mock GET /plain does not reply with mockhttp.pushed()"
    )
    assert "does not reply with mockhttp.pushed()" in error(close(plain, post()))
    assert error(streams(plain, Request("GET", "/"))).startswith("streams(): mock GET /plain")


def test_a_push_with_no_stream_open_is_queued_and_counts_none(
    feed: ActiveMock, server: mockhttp.Server
) -> None:
    assert push(feed, post({"events": [{"data": "early", "id": "e1"}]})) == (200, {"count": 0})
    sock = open_events(server)
    with sock:
        got = read_until(sock, b"data: early\n\n")
        assert b"id: e1\n" in got
        assert close(feed, post()) == (200, {"count": 1})


def test_an_empty_close_body_closes_every_stream(feed: ActiveMock, server: mockhttp.Server) -> None:
    one, two = open_events(server), open_events(server)
    with one, two:
        feed.wait_connected(2, timeout=30)
        assert push(feed, post({"events": [{"data": "both"}]})) == (200, {"count": 2})
        assert close(feed, post(raw=b"  \n")) == (200, {"count": 2})
        for sock in (one, two):
            assert read_to_last_chunk(sock).endswith(b"data: both\n\n\r\n0\r\n\r\n")
        assert close(feed, post()) == (200, {"count": 0})


def test_push_and_close_one_stream_by_number(feed: ActiveMock, server: mockhttp.Server) -> None:
    one, two = open_events(server), open_events(server)
    with one, two:
        feed.wait_connected(2, timeout=30)
        assert push(feed, post({"events": [{"data": "second only"}], "stream": 2})) == (
            200,
            {"count": 1},
        )
        assert close(feed, post({"stream": 2})) == (200, {"count": 1})
        assert b"data: second only\n\n" in read_to_last_chunk(two)
        assert close(feed, post({"stream": 2})) == (200, {"count": 0})  # it had ended
        message = error(push(feed, post({"events": [{"data": "late"}], "stream": 2})))
        assert message.startswith("stream 2 has ended")
        assert push(feed, post({"events": [{"data": "to one"}]})) == (200, {"count": 1})
        assert close(feed, post({"stream": 1})) == (200, {"count": 1})
        assert read_to_last_chunk(one).endswith(b"data: to one\n\n\r\n0\r\n\r\n")


def test_streams_lists_what_was_pushed_and_delivered(
    feed: ActiveMock, server: mockhttp.Server
) -> None:
    sock = open_events(server)
    with sock:
        feed.wait_connected(1, timeout=30)
        events = [{"data": "a", "event": "tick"}, {"comment": "note"}, {"data": "b", "retry": 10}]
        assert push(feed, post({"events": events})) == (200, {"count": 1})
        close(feed, post())
        read_to_last_chunk(sock)
    status, listed = streams(feed, Request("GET", "/"))
    assert status == 200
    (stream,) = listed["calls"]
    assert stream["stream"] == 1
    assert stream["open"] is False
    assert stream["last_event_id"] is None
    assert stream["pushed"] == [
        {"data": "a", "event": "tick", "id": "1"},
        {"comment": "note", "id": "2"},
        {"data": "b", "id": "3", "retry": 10},
    ]  # numbered: the mock is resumable
    datetime.fromisoformat(stream["time"])  # an ISO time
    assert stream["time"].endswith("+00:00")
    assert [d["data"] for d in stream["delivered"]] == ["a", "b"]
    assert stream["delivered"][0] == {"data": "a", "event": "tick", "id": "1"}
