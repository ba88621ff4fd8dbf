"""Verification: call records and assertion messages."""

from __future__ import annotations

import httpx
import pytest

import mockhttp
from mockhttp import VerificationError


def test_calls_record_the_request(server: mockhttp.Server) -> None:
    """Each call keeps method, path, query, headers, body and JSON."""
    mock = server.mock(mockhttp.post("/v1/x").reply(mockhttp.ok().json({"ok": True})))
    httpx.post(server.url + "/v1/x?a=1&a=2", json={"k": "v"}, headers={"X-Trace": "t1"})
    call = mock.calls.last
    assert call.request.method == "POST"
    assert call.request.path == "/v1/x"
    assert call.request.query == (("a", "1"), ("a", "2"))
    assert call.request.query_dict == {"a": ["1", "2"]}
    assert call.request.headers["x-trace"] == "t1"
    assert call.json() == {"k": "v"}
    assert call.wait() == "complete"
    assert call.status == 200
    assert call.body_bytes == len(b'{"ok":true}')
    assert mock.call_count == 1
    assert mock.called
    assert server.journal == [call]


def test_assertion_messages_list_what_the_server_received(server: mockhttp.Server) -> None:
    """A failed assertion says what was expected and lists every request received."""
    chat = server.mock(mockhttp.post("/v1/chat/completions", name="chat"))
    server.mock(mockhttp.get("/v1/models", name="models"))
    httpx.get(server.url + "/v1/models")
    httpx.get(server.url + "/nowhere")
    with pytest.raises(VerificationError) as info:
        chat.assert_called()
    assert str(info.value) == (
        "expected mock 'chat' to be called, it was called 0 times\n"
        "the server received 2 request(s):\n"
        "  1. GET /v1/models → mock 'models' (200), complete\n"
        "  2. GET /nowhere → no match (404), complete"
    )
    server.reset()


def test_count_assertions(server: mockhttp.Server) -> None:
    """assert_called_once/times/not_called pass and fail on the count."""
    mock = server.mock(mockhttp.get("/a"))
    mock.assert_not_called()
    with pytest.raises(VerificationError, match="to be called once, it was called 0 times"):
        mock.assert_called_once()
    httpx.get(server.url + "/a")
    httpx.get(server.url + "/a")
    mock.assert_called_times(2)
    with pytest.raises(VerificationError, match="not to be called, it was called twice"):
        mock.assert_not_called()
    with pytest.raises(VerificationError, match="to be called 3 times, it was called twice"):
        mock.assert_called_times(3)


def test_assertion_errors_are_assertion_errors() -> None:
    """What the client did wrong is an AssertionError; misuse is a MockHTTPError."""
    assert issubclass(VerificationError, AssertionError)
    assert issubclass(mockhttp.UnmatchedRequestError, VerificationError)
    assert issubclass(mockhttp.ConfigError, ValueError)
    assert issubclass(mockhttp.ConfigError, mockhttp.MockHTTPError)
    with pytest.raises(VerificationError, match="no calls were made"):
        _ = mockhttp.CallList().last


def test_journal_limit_keeps_the_newest_calls_and_exact_counts() -> None:
    """With journal_limit, old calls are dropped; call_count and times stay exact."""
    with mockhttp.Server(journal_limit=10) as server:
        mock = server.mock(mockhttp.get("/a"))
        once = server.mock(mockhttp.get("/b", times=1))
        with httpx.Client() as client:
            for i in range(50):
                client.get(server.url + f"/a?i={i}")
            assert [client.get(server.url + "/b").status_code for _ in range(2)] == [200, 404]
        assert mock.call_count == 50
        mock.assert_called_times(50)
        assert 10 <= len(mock.calls) <= 11
        assert mock.calls.last.request.query == (("i", "49"),)
        assert 10 <= len(server.journal) <= 11
        assert server.journal[-1].mock is None
        once.assert_called_once()
    with pytest.raises(mockhttp.ConfigError, match="journal_limit=0 must be a positive int"):
        mockhttp.Server(journal_limit=0)


def test_wait_for_calls_from_another_thread(server: mockhttp.Server) -> None:
    """wait_for_calls returns once a background client's requests arrived, or fails in time."""
    import threading
    import time

    mock = server.mock(mockhttp.post("/hook"))

    def worker() -> None:
        time.sleep(0.1)
        httpx.post(server.url + "/hook", json={"n": 1})
        httpx.post(server.url + "/hook", json={"n": 2})

    threading.Thread(target=worker).start()
    calls = mock.wait_for_calls(2, timeout=5)
    assert [c.json() for c in calls] == [{"n": 1}, {"n": 2}]
    with pytest.raises(
        VerificationError, match=r"to be called 3 times within 0\.1 s, it was called"
    ):
        mock.wait_for_calls(3, timeout=0.1)


def test_finished_calls_leave_no_objects_for_the_collector() -> None:
    """The journal of a busy server does not grow the work of each full collection.

    A finished call is kept compact (plain strings, bytes, numbers), which the collector
    does not track, so 1,000 requests leave far fewer than one tracked object each.
    """
    import gc

    with mockhttp.Server() as server:
        mock = server.mock(mockhttp.get("/small").reply(mockhttp.ok().json({"ok": True})))
        with httpx.Client() as client:
            client.get(server.url + "/small")  # warm-up: connection, caches
            gc.collect()
            gc.collect()
            before = len(gc.get_objects())
            for i in range(1000):
                client.get(server.url + f"/small?i={i}", headers={"X-N": str(i)})
            gc.collect()  # a compact entry is untracked by the collector's next passes
            gc.collect()
            after = len(gc.get_objects())
        assert after - before < 300  # (it was over 3,000: Call, Request, Headers each)
        assert mock.call_count == 1001
        # what was compacted reads back whole
        call = server.journal[500]
        assert call.request.method == "GET"
        assert call.request.target == "/small?i=499"
        assert call.request.query == (("i", "499"),)
        assert call.request.headers["x-n"] == "499"
        assert call.mock is mock.mock
        assert (call.status, call.outcome, call.finished.is_set()) == (200, "complete", True)
        assert bytes(call.body_sent) == b'{"ok":true}'
        assert call.wire_bytes > call.body_bytes == 11


def test_a_call_read_from_the_journal_keeps_its_identity(server: mockhttp.Server) -> None:
    """The same call read from the journal and from its mock is one object while held."""
    mock = server.mock(mockhttp.get("/items/{id}").reply(mockhttp.ok().body("x")))
    with httpx.Client() as client:
        for i in range(3):
            client.get(server.url + f"/items/{i}")
    first = server.journal[0]
    assert first is mock.calls[0]
    assert first in mock.calls
    assert mock.calls.index(first) == 0
    assert server.journal.index(server.journal[2], -2) == 2
    with pytest.raises(ValueError, match="is not in the list"):
        server.journal.index(first, 1)
    assert server.journal == mock.calls
    assert first.path_params == {"id": "0"}
    assert [c.path_params["id"] for c in reversed(server.journal)] == ["2", "1", "0"]
    assert [c.request.path for c in server.journal[1:]] == ["/items/1", "/items/2"]


def test_unmatched_calls_are_found_among_many_compact_ones() -> None:
    """server.unmatched and check() find the unmatched call among thousands of answered
    ones (kept compact), without reading those back."""
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/ok"))
        with httpx.Client() as client:
            for _ in range(2000):
                client.get(server.url + "/ok")
            assert client.get(server.url + "/missing").status_code == 404
        assert [c.request.path for c in server.unmatched] == ["/missing"]
        assert server.unmatched[0] is server.journal[-1]
        with pytest.raises(mockhttp.UnmatchedRequestError, match="GET /missing"):
            server.check()


def test_named_finds_a_mock_by_its_name_or_says_which_there_are() -> None:
    """``server.named``: the one mock of that name; none (did you mean) or two are errors."""
    text = "name: models\nrequest: {method: GET, path: /v1/models}\nresponse: {status: 200}\n"
    with mockhttp.Server() as server:
        loaded = server.mock(mockhttp.loads(text))
        server.mock(mockhttp.get("/a", name="twice"), mockhttp.get("/b", name="twice"))
        server.mock(mockhttp.get("/c"))  # no name: not among the names
        assert server.named("models") is loaded[0]
        httpx.get(server.url + "/v1/models")
        server.named("models").assert_called_once()
        with pytest.raises(mockhttp.ConfigError) as unknown:
            server.named("model")
        assert str(unknown.value) == (
            "unknown mock name 'model' — did you mean 'models'?\nknown mock names: models, twice"
        )
        with pytest.raises(mockhttp.ConfigError, match="2 mocks are named 'twice'"):
            server.named("twice")
        loaded[0].remove()
        with pytest.raises(mockhttp.ConfigError, match="unknown mock name 'models'"):
            server.named("models")
