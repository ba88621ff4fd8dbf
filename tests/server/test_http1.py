"""The sans-I/O HTTP/1.1 connection (``_http1.Http1``): bytes in, events out, no socket."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mockhttp._server import _http1
from mockhttp._server._http1 import (
    MAX_BODY,
    MAX_HEAD,
    Bad,
    Continue,
    Event,
    Http1,
    Message,
    Upgrade,
)


def fed(*chunks: bytes) -> tuple[Http1, list[Event]]:
    machine = Http1()
    events: list[Event] = []
    for chunk in chunks:
        events += machine.feed(chunk)
    return machine, events


def only(events: list[Event]) -> Message:
    (event,) = events
    assert type(event) is Message
    return event


GET = b"GET /a?x=1 HTTP/1.1\r\nHost: h\r\nAccept: */*\r\n\r\n"


def test_a_request_is_one_message_with_its_head_and_no_body() -> None:
    machine, events = fed(GET)
    message = only(events)
    assert message == Message(
        "GET", "/a?x=1", "1.1", True, [("Host", "h"), ("Accept", "*/*")], b"", []
    )
    assert message[:4] == ("GET", "/a?x=1", "1.1", True)  # the lane's key
    assert not (machine.in_head)
    assert not (machine.in_body)
    assert not (machine.broken)


def test_a_feed_that_completes_nothing_gives_nothing_and_the_head_is_awaited() -> None:
    machine, events = fed(b"GET /a HTTP/1.1\r\nHo")
    assert events == []
    assert machine.in_head
    assert not machine.in_body


def test_pipelined_requests_come_in_order_from_one_feed() -> None:
    data = GET + b"POST /b HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcDELETE /c HTTP/1.1\r\n\r\n"
    _, events = fed(data)
    assert [(e.method, e.target, e.body) for e in events if isinstance(e, Message)] == [
        ("GET", "/a?x=1", b""),
        ("POST", "/b", b"abc"),
        ("DELETE", "/c", b""),
    ]
    assert all(type(e) is Message for e in events)


PIPELINE = (
    GET
    + b"POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n"
    + b"X-Trailer: t\r\n\r\n"
    + b"PUT /c HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi"
    + b"GET /d HTTP/1.0\r\n\r\n"
)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(PIPELINE)), max_size=12))
def test_any_split_of_the_bytes_gives_the_same_events(cuts: list[int]) -> None:
    points = [0, *sorted(cuts), len(PIPELINE)]
    chunks = [PIPELINE[a:b] for a, b in itertools.pairwise(points)]
    _, whole = fed(PIPELINE)
    _, split = fed(*chunks)
    assert [repr(e) for e in split] == [repr(e) for e in whole]
    assert [type(e).__name__ for e in whole] == [
        "Message",
        "Message",
        "Continue",
        "Message",
        "Message",
    ]


def test_a_chunked_body_is_joined_and_its_trailers_kept_apart() -> None:
    _, events = fed(PIPELINE)
    chunked = events[1]
    assert isinstance(chunked, Message)
    assert chunked.body == b"abcde"
    assert chunked.trailers == [("X-Trailer", "t")]
    assert ("Transfer-Encoding", "chunked") in chunked.headers
    assert ("X-Trailer", "t") not in chunked.headers
    last = events[-1]
    assert isinstance(last, Message)
    assert last.trailers == []


def test_a_body_in_many_pieces_is_one_body() -> None:
    head = b"POST /b HTTP/1.1\r\nContent-Length: 1000\r\n\r\n"
    _machine, events = fed(head, *[b"x" * 10 for _ in range(100)])
    assert only(events).body == b"x" * 1000
    _, again = fed(head + b"y" * 1000)
    assert only(again).body == b"y" * 1000


def test_keep_alive_follows_connection_close_and_http10() -> None:
    closing = only(fed(b"GET / HTTP/1.1\r\nConnection: close\r\n\r\n")[1])
    old = only(fed(b"GET / HTTP/1.0\r\n\r\n")[1])
    old_keep = only(fed(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")[1])
    assert (closing.keep_alive, old.keep_alive, old_keep.keep_alive) == (False, False, False)
    assert old.version == "1.0"


def test_methods_come_in_upper_case() -> None:
    assert only(fed(b"PROPFIND / HTTP/1.1\r\n\r\n")[1]).method == "PROPFIND"


def test_expect_100_continue_is_an_event_before_the_body() -> None:
    machine, events = fed(b"PUT /c HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
    assert events == [_http1.CONTINUE]
    assert isinstance(events[0], Continue)
    assert machine.in_body
    assert only(machine.feed(b"hi")).body == b"hi"


def test_expect_from_an_http10_client_is_ignored() -> None:
    _, events = fed(b"PUT /c HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
    assert events == []


def test_a_malformed_request_is_bad_400_and_nothing_is_read_after_it() -> None:
    machine, events = fed(GET + b"GET /a HTTP/1.1\r\nBad Header\r\n\r\n")
    assert type(events[0]) is Message
    bad = events[1]
    assert isinstance(bad, Bad)
    assert bad.status == 400
    assert bad.message.startswith("malformed request")
    assert machine.broken
    assert machine.feed(GET) == []


def test_a_bad_absolute_target_says_what_a_target_is() -> None:
    (bad,) = fed(b"GET http://[::1 HTTP/1.1\r\n\r\n")[1]
    assert isinstance(bad, Bad)
    assert bad.status == 400
    assert "request target is not a valid URL" in bad.message


def test_a_head_over_the_limit_is_431() -> None:
    big = b"X-Big: " + b"a" * MAX_HEAD + b"\r\n"
    (bad,) = fed(b"GET /a HTTP/1.1\r\n" + big + b"\r\n")[1]
    assert isinstance(bad, Bad)
    assert bad.status == 431


def test_a_header_line_that_never_ends_is_431_within_the_limit_and_one_read() -> None:
    machine = Http1()
    assert machine.feed(b"GET /a HTTP/1.1\r\nX-Long: ") == []
    read = 16 * 1024
    events: list[Event] = []
    fed_bytes = 0
    while not events:
        events = machine.feed(b"a" * read)
        fed_bytes += read
    (bad,) = events
    assert isinstance(bad, Bad)
    assert bad.status == 431
    assert fed_bytes <= MAX_HEAD + read


def test_a_long_url_is_431() -> None:
    (bad,) = fed(b"GET /" + b"a" * MAX_HEAD + b" HTTP/1.1\r\n\r\n")[1]
    assert isinstance(bad, Bad)
    assert bad.status == 431


def test_a_body_promised_over_the_limit_is_413_at_its_head() -> None:
    machine, events = fed(b"POST /a HTTP/1.1\r\nContent-Length: %d\r\n\r\n" % (MAX_BODY + 1))
    (bad,) = events
    assert isinstance(bad, Bad)
    assert bad.status == 413
    assert machine.broken


def test_a_chunked_body_over_the_limit_is_413(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_http1, "MAX_BODY", 10)
    head = b"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    (bad,) = fed(head + b"6\r\nabcdef\r\n6\r\nabcdef\r\n0\r\n\r\n")[1]
    assert isinstance(bad, Bad)
    assert bad.status == 413
    (one,) = fed(head + b"b\r\nabcdefghijk\r\n0\r\n\r\n")[1]
    assert isinstance(one, Bad)
    assert one.status == 413
    fits = only(fed(head + b"5\r\nabcde\r\n5\r\nabcde\r\n0\r\n\r\n")[1])
    assert fits.body == b"abcdeabcde"


def test_a_body_in_too_many_chunks_is_413(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_http1, "MAX_PIECES", 5)
    head = b"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    (bad,) = fed(head + b"1\r\nx\r\n" * 6 + b"0\r\n\r\n")[1]
    assert isinstance(bad, Bad)
    assert bad.status == 413
    assert "chunks" in bad.message
    assert only(fed(head + b"1\r\nx\r\n" * 5 + b"0\r\n\r\n")[1]).body == b"xxxxx"


WEBSOCKET = (
    b"GET /chat HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


def test_an_upgrade_request_is_an_upgrade_and_the_machine_waits_after_it() -> None:
    machine, events = fed(GET + WEBSOCKET + b"\x81\x05hello")
    assert [type(e) for e in events] == [Message, Upgrade]
    upgrade = events[1]
    assert isinstance(upgrade, Message)  # an Upgrade is a request too
    assert (upgrade.method, upgrade.target) == ("GET", "/chat")
    assert ("Upgrade", "websocket") in upgrade.headers
    assert machine.trailing == b"\x81\x05hello"
    assert machine.feed(b"more") == []  # kept, not parsed
    assert machine.trailing == b"\x81\x05hellomore"


def test_an_upgrade_answered_as_http11_resumes_with_what_followed() -> None:
    machine, _ = fed(WEBSOCKET + GET[:10])
    assert machine.feed(GET[10:]) == []
    rest = machine.resume()
    assert rest == GET
    assert machine.trailing is None
    assert only(machine.feed(rest)).target == "/a?x=1"


def test_connect_is_an_upgrade() -> None:
    _, events = fed(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
    (event,) = events
    assert type(event) is Upgrade
    assert event.method == "CONNECT"


def test_an_upgrade_request_with_a_body_is_a_message_with_its_body() -> None:
    h2c = (
        b"POST /up HTTP/1.1\r\nHost: h\r\nConnection: Upgrade, HTTP2-Settings\r\n"
        b"Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\nContent-Length: 5\r\n\r\n"
        b"hello"
    )
    machine, events = fed(h2c + GET)
    first, second = events
    assert type(first) is Message
    assert first.body == b"hello"
    assert ("Upgrade", "h2c") in first.headers  # the request as sent
    assert type(second) is Message
    assert second.target == "/a?x=1"
    assert machine.trailing is None


def test_expire_gives_408_for_a_late_head_or_body_and_nothing_when_idle() -> None:
    idle = Http1()
    assert idle.expire() is None
    head, _ = fed(b"GET /a HTTP/1.1\r\n")
    late = head.expire()
    assert late is not None
    assert late.status == 408
    assert "head" in late.message
    assert head.broken
    assert head.feed(b"\r\n") == []
    body, _ = fed(b"POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\nab")
    late = body.expire()
    assert late is not None
    assert late.status == 408
    assert "body" in late.message


def test_progress_moves_when_a_head_begins_and_body_bytes_come() -> None:
    machine = Http1()
    machine.feed(b"POST /a HTTP/1.1\r\nContent-Length: 4\r\n\r\n")
    begun = machine.progress
    assert begun >= 1
    machine.feed(b"ab")
    assert machine.progress > begun


def test_each_feed_returns_a_list_of_its_own() -> None:
    machine = Http1()
    first = machine.feed(GET)
    second = machine.feed(GET)
    assert first is not second
    assert len(first) == len(second) == 1
    assert machine.feed(b"") == []


# -- a table of kept answers (the fast lane: ``_lane.py``) -----------------------------------

KEY = ("GET", "/a?x=1", "1.1", True)


def test_a_request_the_table_knows_is_known_with_its_answer_and_fields() -> None:
    machine = Http1({KEY: "kept"})
    (event,) = machine.feed(GET)
    assert type(event) is _http1.Known
    assert event == ("kept", [("Host", "h"), ("Accept", "*/*")], True)


def test_the_key_is_method_target_version_and_keep_alive() -> None:
    machine = Http1({KEY: "kept"})
    requests = [
        GET.replace(b"GET", b"PUT"),
        GET.replace(b"x=1", b"x=2"),
        GET.replace(b"HTTP/1.1", b"HTTP/1.0"),
        GET.replace(b"Host: h", b"Host: h\r\nConnection: close"),
    ]
    for raw in requests:
        machine = Http1({KEY: "kept"})  # (a close ends the connection: one machine each)
        assert type(only(machine.feed(raw))) is Message


@pytest.mark.parametrize(
    "raw",
    [
        GET.replace(b"\r\n\r\n", b"\r\nContent-Length: 2\r\n\r\nhi"),  # a body
        GET.replace(b"\r\n\r\n", b"\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: 1\r\n\r\n"),
        GET.replace(b"\r\n\r\n", b"\r\nx-mockhttp-test: t1\r\n\r\n"),  # a field naming a test
    ],
    ids=["body", "trailers", "test-field"],
)
def test_a_body_trailers_or_a_test_field_make_a_message_however_the_key(raw: bytes) -> None:
    _http1.watch_test_header("x-mockhttp-test")  # (as a server naming tests does)
    machine = Http1({KEY: "kept"})
    message = only(machine.feed(raw))
    assert message[:4] == KEY


def test_an_upgrade_the_table_knows_is_still_an_upgrade() -> None:
    raw = b"GET /ws HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
    machine = Http1({("GET", "/ws", "1.1", True): "kept"})
    (event,) = machine.feed(raw + b"after")
    assert type(event) is Upgrade
    assert machine.trailing == b"after"


def test_known_and_other_requests_pipelined_come_in_order() -> None:
    other = b"GET /b HTTP/1.1\r\nHost: h\r\n\r\n"
    machine = Http1({KEY: "kept"})
    events = machine.feed(GET + other + GET)
    assert [type(e).__name__ for e in events] == ["Known", "Message", "Known"]
    assert type(events[1]) is Message
    assert events[1].target == "/b"


def test_a_table_emptied_in_place_is_seen_by_the_next_request() -> None:
    table = {KEY: "kept"}
    machine = Http1(table)
    assert type(machine.feed(GET)[0]) is _http1.Known
    table.clear()  # (the lane empties its dict when the mocks change, never replaces it)
    assert type(only(machine.feed(GET))) is Message
