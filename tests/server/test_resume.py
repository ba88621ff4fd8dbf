"""Resumable streams on the wire: Last-Event-ID, retry, the journal, assert_resumed."""

from __future__ import annotations

import socket
import time

import pytest

import mockhttp
from mockhttp import ConfigError, Event, VerificationError, fault

EVENTS = [Event(data=f"e{i}") for i in range(1, 6)]  # ids "1".."5" once numbered


def _stream(server: mockhttp.Server, headers: bytes = b"") -> bytes:
    """GET /e over a raw socket, until the server closes (the body as sent, chunked)."""
    with socket.create_connection((server.host, server.port), timeout=5) as sock:
        sock.sendall(b"GET /e HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + headers + b"\r\n")
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _resumable(server: mockhttp.Server, cut_after: int = 2) -> mockhttp.ActiveMock:
    reply = mockhttp.ok().event_stream(*EVENTS, resumable=True, retry=100)
    mock = mockhttp.get("/e").reply(reply).pipe(fault.first(1, fault.close_after_events(cut_after)))
    return server.mock(mock)


def test_a_reconnect_gets_the_events_after_its_last_event_id(server: mockhttp.Server) -> None:
    """Cut after event 2; the reconnect with Last-Event-ID: 2 gets retry, then 3, 4, 5."""
    mock = _resumable(server)
    first = _stream(server)
    time.sleep(0.12)
    second = _stream(server, b"Last-Event-ID: 2\r\n")
    assert first.endswith(
        b"c\r\nretry: 100\n\n\r\n10\r\nid: 1\ndata: e1\n\n\r\n10\r\nid: 2\ndata: e2\n\n\r\n"
    )
    assert second.endswith(
        b"c\r\nretry: 100\n\n\r\n10\r\nid: 3\ndata: e3\n\n\r\n10\r\nid: 4\ndata: e4\n\n\r\n"
        b"10\r\nid: 5\ndata: e5\n\n\r\n0\r\n\r\n"
    )
    one, two = mock.calls
    assert two.wait() == "complete"
    assert (one.last_event_id, one.event_ids, one.outcome) == (None, ["1", "2"], "closed")
    assert (two.last_event_id, two.event_ids) == ("2", ["3", "4", "5"])
    assert one.cut_time is not None
    assert two.after_cut is not None
    assert 0.1 <= two.after_cut < 2.0
    mock.assert_resumed()


def test_assert_resumed_names_a_wrong_id_a_hasty_reconnect_and_a_duplicate(
    server: mockhttp.Server,
) -> None:
    """Last-Event-ID 1 after 1, 2 were delivered: event 2 comes twice, too soon."""
    mock = _resumable(server)
    _stream(server)
    _stream(server, b"Last-Event-ID: 1\r\n")
    mock.calls[-1].wait()
    with pytest.raises(VerificationError) as failed:
        mock.assert_resumed()
    message = str(failed.value)
    assert "call 2 came with Last-Event-ID '1', expected '2'" in message
    assert "sooner than retry: 100 ms" in message
    assert "event id='2' was delivered twice (calls 1 and 2)" in message


def test_assert_resumed_says_when_the_client_never_came_back(server: mockhttp.Server) -> None:
    """One cut call and no reconnect: events 3-5 were never delivered."""
    mock = _resumable(server)
    _stream(server)
    with pytest.raises(VerificationError, match=r"never reconnected \(1 call"):
        mock.assert_resumed()


def test_an_unknown_id_gets_the_whole_stream(server: mockhttp.Server) -> None:
    """An id the stream does not have: from the start (as a first connection)."""
    _resumable(server, cut_after=9)
    assert b"id: 1\ndata: e1" in _stream(server, b"Last-Event-ID: nope\r\n")


def test_assert_resumed_needs_a_resumable_stream(server: mockhttp.Server) -> None:
    """A mock without resumable=True: a ConfigError that says what to add."""
    mock = server.mock(mockhttp.get("/x").reply(mockhttp.ok().event_stream(Event(data="a"))))
    with pytest.raises(ConfigError, match=r"event_stream\(\.\.\., resumable=True\)"):
        mock.assert_resumed()


def test_resumable_in_a_mock_file() -> None:
    """``resumable: true`` and ``retry:`` in a file give the same stream."""
    [mock] = mockhttp.loads(
        """
        - request: {path: /e}
          response:
            event_stream:
              resumable: true
              retry: 100
              events: [{data: e1}, {data: e2, id: two}]
        """
    )
    assert mock.response is not None
    stream = mock.response.stream
    assert stream is not None
    assert (stream.resumable, stream.retry, stream.ids) == (True, 100, ("1", "two"))
