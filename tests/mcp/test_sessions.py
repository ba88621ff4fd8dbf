"""The state a mock MCP server keeps (``_sessions``), pure: sessions capped and forgotten,
cancellations, subscriptions, the listen streams of revision 2026-07-28, resume faults."""

from __future__ import annotations

from mockhttp import fault
from mockhttp._server._feed import Feed
from mockhttp.mcp._sessions import State


def test_the_session_cap_ends_the_oldest_and_forgets_it() -> None:
    state = State()
    first = state.open("2025-11-25", cap=2)
    second = state.open("2025-11-25", cap=2)
    third = state.open("2025-11-25", cap=2)
    assert state.session_ids() == (second.id, third.id)
    assert first.ended
    assert state.evicted(first.id)
    assert not state.evicted(second.id)
    assert state.find(first.id) is None


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
    assert len(one.streams[0]) == 1
    assert two.streams[0] == []
    state.subscribe(one, "test://a", False)
    assert state.push({"jsonrpc": "2.0", "method": "m"}, uri="test://a") == 0


def test_a_stream_keeps_its_resume_faults() -> None:
    state = State()
    session = state.open("2025-11-25")
    cut = (fault.end_after_events(1),)
    number = state.stream(session, [None, {"jsonrpc": "2.0", "id": 1, "result": {}}], cut)
    assert session.resume == {number: cut}
    assert state.replay(session, f"{number}-0") == (number, 1)
    assert state.replay(session, "9-0") is None
    assert [i for i, _ in state.events(session, number, 1)] == [f"{number}-1"]


def test_the_counts_of_method_faults_are_their_own() -> None:
    state = State()
    assert [state.count(("fault", 0)) for _ in range(3)] == [0, 1, 2]
    assert state.count(("fault", 1)) == 0
