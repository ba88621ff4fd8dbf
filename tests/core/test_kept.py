"""State a reply kind declares to the server (``_core/_kept.py``), pure: versions and
atomic updates in ``Memory``, keys scoped per kind, and a kind built through ``route``
with the state it is given (and refused without one)."""

from __future__ import annotations

import json

import pytest

import mockhttp
from mockhttp._core._errors import ConfigError
from mockhttp._core._kept import Memory, Scoped, registered_key
from mockhttp._core._request import Request
from mockhttp._core._route import Answer, route
from tests.core.test_route import Entry
from tests.helpers.kept_kind import Sessions


def test_an_update_returns_its_result_and_keeps_the_new_value() -> None:
    memory = Memory()
    assert memory.update("n", lambda old: ((old or 0) + 1, "first")) == "first"
    assert memory.get("n") == 1
    assert memory.read("n") == (1, 1)
    memory.update("n", lambda old: (None, None))  # None removes the key
    assert memory.read("n") == (0, None)


def test_a_put_at_a_stale_version_is_refused_with_what_is_there_now() -> None:
    memory = Memory()
    assert memory.put("k", 0, "a") == (True, 1, "a")
    assert memory.put("k", 0, "b") == (False, 1, "a")  # someone changed it since
    assert memory.put("k", 1, "b") == (True, 2, "b")


def test_scopes_keep_kinds_apart() -> None:
    memory = Memory()
    one, two = Scoped(memory, "one"), Scoped(memory, "two")
    one.update("x", lambda _: (1, None))
    assert (one.get("x"), two.get("x")) == (1, None)


def answer(request: Request, entries: list[Entry], memory: Memory) -> Answer[Entry]:
    found = route(request, entries, {}, None, memory)
    assert isinstance(found, Answer)
    return found


def test_a_kept_kind_reads_the_state_route_hands_it() -> None:
    entries = [Entry(mockhttp.request(None, "/s/{id}").reply(Sessions()))]
    entries.append(Entry(mockhttp.post("/s").reply(Sessions())))
    memory = Memory()
    opened = [answer(Request("POST", "/s"), entries, memory).reply for _ in range(2)]
    assert [json.loads(r.content) for r in opened if r] == [{"session": 1}, {"session": 2}]
    seen = answer(Request("GET", "/s/2"), entries, memory).reply
    assert seen is not None
    assert seen.status_code == 200
    gone = answer(Request("DELETE", "/s/2"), entries, memory).reply
    assert gone is not None
    assert gone.status_code == 204
    again = answer(Request("GET", "/s/2"), entries, memory).reply
    assert again is not None
    assert again.status_code == 404
    assert answer(Request("GET", "/s/2"), entries, Memory()).reply.status_code == 404  # type: ignore[union-attr]


def test_a_kept_kind_without_a_server_says_so() -> None:
    with pytest.raises(ConfigError, match="keeps state on the server"):
        Sessions().build(Request("POST", "/s"))
    found = route(Request("POST", "/s"), [Entry(mockhttp.post("/s").reply(Sessions()))], {})
    assert isinstance(found, Answer)
    assert isinstance(found.error, ConfigError)  # no state given: a 500 that says why


def test_registered_keys_are_new_each_time_in_order() -> None:
    first, second = registered_key("x"), registered_key("x")
    assert first.startswith("x#")
    assert second.startswith("x#")
    assert int(second[2:]) == int(first[2:]) + 1  # a second registration: its own state
