"""The state a mock MCP server keeps (``_sessions``), with the kind's own kept state (no
server): sessions capped and forgotten, cancellations, subscriptions, the listen streams
of revision 2026-07-28, resume faults, the test's commands taken at the next request."""

from __future__ import annotations

from mockhttp._core._kept import Memory
from mockhttp._server._feed import Feed
from mockhttp.mcp import _book as book
from mockhttp.mcp._sessions import State


def test_the_session_cap_ends_the_oldest_and_forgets_it() -> None:
    state = State()
    first = state.open("2025-11-25", cap=2)
    second = state.open("2025-11-25", cap=2)
    third = state.open("2025-11-25", cap=2)
    assert state.session_ids() == (second.id, third.id)
    assert state.evicted(first.id)
    assert not state.evicted(second.id)
    assert state.find(first.id) is None
    assert state.own.get(book.record_key(first.id)) is None  # forgotten
    assert state.find(second.id) == second


def test_a_session_is_a_json_record_in_the_kept_state() -> None:
    state = State()
    session = state.open("2025-06-18", {"sampling": {}})
    state.initialized(session)
    state.set_level(session, "error")
    state.subscribe(session, "test://a", True)
    found = state.own.get(book.record_key(session.id))
    assert found["initialized"] is True
    assert (found["level"], found["subscriptions"]) == ("error", ["test://a"])
    assert state.find(session.id) == session  # the request's copy agrees with the record


def test_a_session_of_one_request_is_kept_nowhere() -> None:
    state = State()
    session = state.open("2026-07-28")
    state.own.values.clear()
    one = type(session)("", "2026-07-28", kept=False)
    state.set_level(one, "info")
    state.subscribe(one, "test://a", True)
    assert state.stream(one, [None]) == 1
    assert state.own.values == {}


def test_a_cancellation_is_kept() -> None:
    state = State()
    session = state.open("2025-11-25")
    assert state.cancel(session, 4, "stop") is False  # nothing was waiting
    (kept,) = state.cancelled()
    assert (kept.session_id, kept.request_id, kept.reason) == (session.id, 4, "stop")


def test_listen_streams_get_what_they_asked_for_tagged() -> None:
    state = State()
    tools, resource = Feed(), Feed()
    for feed in (tools, resource):
        feed.head(200, [("Content-Type", "text/event-stream")])
    state.listen(tools, 7, {"toolsListChanged": True})
    state.listen(resource, "r", {"resourceSubscriptions": ["test://a"]})
    assert state.tell_listeners("notifications/tools/list_changed") == 1
    assert state.tell_listeners("notifications/prompts/list_changed") == 0
    assert state.tell_listeners("notifications/resources/updated", {"uri": "test://a"}) == 1
    assert state.tell_listeners("notifications/resources/updated", {"uri": "test://b"}) == 0
    state.reset()
    assert state.tell_listeners("notifications/tools/list_changed") == 0


def test_push_with_a_uri_reaches_only_the_subscribed() -> None:
    state = State()
    one, two = state.open("2025-11-25"), state.open("2025-11-25")
    state.subscribe(one, "test://a", True)
    assert (
        state.push({"jsonrpc": "2.0", "method": "notifications/resources/updated"}, uri="test://a")
        == 1
    )
    assert len(state.held(one)) == 1
    assert state.held(two) == ()
    state.subscribe(one, "test://a", False)
    assert state.push({"jsonrpc": "2.0", "method": "m"}, uri="test://a") == 0


def test_a_stream_keeps_its_resume_fault() -> None:
    state = State()
    session = state.open("2025-11-25")
    number = state.stream(session, [None, {"jsonrpc": "2.0", "id": 1, "result": {}}], 3)
    assert session.resume == {number: 3}
    assert state.find(session.id).resume == {number: 3}  # type: ignore[union-attr]
    assert state.replay(session, f"{number}-0") == (number, 1)
    assert state.replay(session, "9-0") is None
    assert state.replay(session, "0-0") is None  # nothing on the GET stream yet
    assert [i for i, _ in state.events(session, number, 1)] == [f"{number}-1"]


def test_an_ended_session_leaves_no_stream_behind() -> None:
    state = State()
    session = state.open("2025-11-25")
    state.stream(session, [{"jsonrpc": "2.0", "id": 1, "result": {}}])
    state.push({"jsonrpc": "2.0", "method": "m"})
    assert state.end(session.id) == 1
    assert set(state.own.values) == {book.INDEX}
    assert state.held(session) == ()


def test_the_counts_of_method_faults_are_their_own() -> None:
    state = State()
    assert [state.count(("fault", 0)) for _ in range(3)] == [0, 1, 2]
    assert state.count(("fault", 1)) == 0


def test_the_tests_commands_wait_for_the_next_request_on_a_server() -> None:
    state = State()
    served = Memory()  # (a server's kept state)
    state.bind(served)
    one = state.open("2025-11-25")
    state.count(("fault", 0))
    assert state.expire(one.id) == 1
    assert state.session_ids() == ()  # as the test sees it at once
    assert served.get(book.record_key(one.id)) is not None  # not yet changed
    state.bind(served)  # the next request
    assert served.get(book.record_key(one.id)) is None
    state.reset()
    assert state.session_ids() == ()
    state.bind(served)
    assert served.values == {}
