"""What a mock MCP server keeps (``_book``), pure: each change run as ``Kept.update`` runs
it, on JSON in and JSON out, the same answer for the same value (it may run again under
``--workers``)."""

from __future__ import annotations

import json
from typing import Any

from mockhttp.mcp import _book as book


def run(change: Any, old: Any) -> tuple[Any, Any]:
    """``change(old)``, twice: the same answer both times, the old value untouched, and
    the new value JSON."""
    before = json.dumps(old)
    first, again = change(old), change(old)
    assert first == again
    assert json.dumps(old) == before
    json.dumps(first[0])
    return first  # type: ignore[no-any-return]


def test_keys_are_apart() -> None:
    assert book.record_key("a") == "s:a"
    assert book.stream_key("a", 2) == "st:a:2"
    assert book.count_key(("fault", 0)) == 'n:["fault",0]'
    assert book.count_key(("get", [0, 1])) != book.count_key(("get", [0]))


def test_a_record_starts_with_its_revision_and_the_clients_capabilities() -> None:
    capabilities: dict[str, Any] = {"sampling": {}}
    found = book.record("2025-06-18", capabilities)
    capabilities["roots"] = {}
    assert found["capabilities"] == {"sampling": {}}  # a copy
    assert (found["revision"], found["initialized"], found["streams"]) == ("2025-06-18", False, 1)
    assert (found["level"], found["logs"], found["asked"]) == (None, True, 0)


def test_opened_appends_and_ends_the_oldest_beyond_the_cap() -> None:
    index, gone = run(book.opened("a", 2), None)
    assert (index, gone) == ({"live": ["a"], "evicted": []}, [])
    index, _ = run(book.opened("b", 2), index)
    index, gone = run(book.opened("c", 2), index)
    assert gone == ["a"]
    assert index == {"live": ["b", "c"], "evicted": ["a"]}
    index, gone = run(book.opened("d", 2), index)
    index, gone = run(book.opened("e", 2), index)
    assert index["evicted"] == ["b", "c"]  # the newest cap of them


def test_no_cap_ends_none() -> None:
    index: Any = None
    for session_id in "abc":
        index, gone = run(book.opened(session_id, 0), index)
        assert gone == []
    assert index["live"] == ["a", "b", "c"]


def test_ended_drops_one_or_all() -> None:
    index = {"live": ["a", "b"], "evicted": ["z"]}
    assert run(book.ended("a"), index) == ({"live": ["b"], "evicted": ["z"]}, ["a"])
    assert run(book.ended("x"), index) == (index, [])
    assert run(book.ended(None), index) == ({"live": [], "evicted": ["z"]}, ["a", "b"])
    assert run(book.ended(None), None) == (None, [])


def test_record_changes() -> None:
    found = book.record("2025-11-25")
    new, _ = run(book.initialized, found)
    assert new["initialized"] is True
    new, _ = run(book.subscribed("test://a", True), new)
    new, _ = run(book.subscribed("test://a", True), new)
    assert new["subscriptions"] == ["test://a"]  # once
    new, _ = run(book.subscribed("test://a", False), new)
    assert new["subscriptions"] == []
    new, _ = run(book.leveled("error"), {**new, "logs": False})
    assert (new["level"], new["logs"]) == ("error", True)
    new, first = run(book.asked, new)
    new, second = run(book.asked, new)
    assert (first, second) == (1, 2)


def test_a_gone_session_stays_gone() -> None:
    for change in (
        book.initialized,
        book.subscribed("u", True),
        book.leveled("info"),
        book.asked,
        book.streamed(None),
    ):
        assert run(change, None) == (None, None)


def test_streams_are_numbered_from_1_with_their_resume_fault() -> None:
    found = book.record("2025-11-25")
    found, one = run(book.streamed(None), found)
    found, two = run(book.streamed(3), found)
    assert (one, two) == (1, 2)
    assert found["resume"] == {"2": 3}  # (a JSON object's keys are text)


def test_appended_gives_the_index_and_makes_no_stream() -> None:
    assert run(book.appended({"m": 1}), [None]) == ([None, {"m": 1}], 1)
    assert run(book.appended({"m": 1}), None) == (None, None)


def test_counted_and_listed() -> None:
    assert run(book.counted, None) == (1, 0)
    assert run(book.counted, 4) == (5, 4)
    assert run(book.listed("n:a"), None) == (["n:a"], None)
    assert run(book.listed("n:a"), ["n:a"]) == (["n:a"], None)
