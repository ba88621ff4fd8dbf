"""A ``pushed()`` mock's streams (_server/_push.py), without a socket: a real ``Hub``
with real feeds, each stream's plan read step by step up to the point where it waits for
the test to push more.

The same streams over real connections are ``test_pushed.py``'s."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest

from mockhttp._core._errors import ConfigError, VerificationError
from mockhttp._core._plan import Data, End, Head, Step, Wait
from mockhttp._core._pushed import Pushed, pushed
from mockhttp._core._reply import status
from mockhttp._core._request import Headers, Request
from mockhttp._core._sse import Event
from mockhttp._server._journal import Call
from mockhttp._server._push import Hub, PushedStream, wait_stream, wait_stream_async

PLAIN = pushed()
RESUMABLE = pushed(resumable=True, retry=250)


class Opened:
    """A stream the hub opened, and its plan as the server reads it."""

    def __init__(self, hub: Hub, reply: Pushed, last_event_id: str | None = None) -> None:
        headers = () if last_event_id is None else (("last-event-id", last_event_id),)
        self.call = Call(Request("GET", "/events", Headers(headers)))
        answer = hub.open(self.call, reply)
        self.answer = answer
        self.plan: Iterator[Step] = answer.plan()
        self.stream = hub.streams[-1]

    def ready(self) -> list[Step]:
        """The steps put so far: up to the first Wait (or the End)."""
        out: list[Step] = []
        for step in self.plan:
            if isinstance(step, Wait):
                return out
            out.append(step)
            if isinstance(step, End):
                return out
        return out

    def body(self) -> bytes:
        return b"".join(s.data for s in self.ready() if isinstance(s, Data))


def test_a_stream_opens_with_its_head_and_retry_then_waits() -> None:
    opened = Opened(Hub(), RESUMABLE)
    steps = opened.ready()
    assert steps == [
        Head(
            200, "OK", (("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")), None
        ),
        Data(b"retry: 250\n\n"),
    ]
    assert opened.answer.describe() == "200 pushed event stream"
    assert opened.stream.open
    assert opened.stream.number == 1


def test_the_head_keeps_the_replys_status_and_headers() -> None:
    reply = pushed(status(202).header("Content-Type", "text/event-stream; charset=utf-8"))
    (head,) = Opened(Hub(), reply).ready()
    assert isinstance(head, Head)
    assert head.status == 202
    assert head.headers == (
        ("Cache-Control", "no-cache"),
        ("Content-Type", "text/event-stream; charset=utf-8"),
    )


# -- rule 1: to every open stream, queued while none is ----------------------------------------


def test_push_reaches_every_open_stream_with_the_same_bytes() -> None:
    hub = Hub()
    one, two = Opened(hub, PLAIN), Opened(hub, PLAIN)
    one.ready(), two.ready()
    assert hub.push(PLAIN, [Event(data="a"), Event(data="b", event="x")]) == 2
    assert one.body() == two.body() == b"data: a\n\nevent: x\ndata: b\n\n"
    assert [e.data for e in one.stream.pushed] == ["a", "b"]
    assert hub.queued == []


def test_events_pushed_while_no_stream_is_open_go_to_the_next_one_first() -> None:
    hub = Hub()
    assert hub.push(PLAIN, [Event(data="early")]) == 0
    assert hub.queued == [Event(data="early")]
    first = Opened(hub, PLAIN)
    assert first.body() == b"data: early\n\n"
    assert hub.queued == []
    second = Opened(hub, PLAIN)
    assert second.body() == b""  # the queue went to the first only


def test_a_closed_stream_is_not_pushed_to_and_the_rest_still_are() -> None:
    hub = Hub()
    gone, kept = Opened(hub, PLAIN), Opened(hub, PLAIN)
    gone.ready(), kept.ready()
    gone.stream.close()
    assert gone.ready() == [End("complete")]
    assert hub.push(PLAIN, [Event(data="x")]) == 1
    assert kept.body() == b"data: x\n\n"
    assert hub.open_streams == [kept.stream]


def test_hub_close_ends_every_open_stream_once() -> None:
    hub = Hub()
    streams = [Opened(hub, PLAIN) for _ in range(3)]
    streams[0].stream.close()
    assert hub.close() == 2
    assert hub.close() == 0
    assert all(s.ready()[-1] == End("complete") for s in streams)


# -- rule 2: a resumable mock's log ------------------------------------------------------------


def test_a_resumable_mock_numbers_its_events_and_keeps_an_id_given() -> None:
    hub = Hub()
    opened = Opened(hub, RESUMABLE)
    opened.ready()
    hub.push(RESUMABLE, [Event(data="a"), Event(data="b", id="mine"), Event(data="c")])
    assert [e.id for e in hub.log] == ["1", "mine", "3"]
    assert opened.body() == b"id: 1\ndata: a\n\nid: mine\ndata: b\n\nid: 3\ndata: c\n\n"


def test_a_plain_mock_keeps_no_log() -> None:
    hub = Hub()
    Opened(hub, PLAIN).ready()
    hub.push(PLAIN, [Event(data="a")])
    assert hub.log == []


@pytest.mark.parametrize(
    ("last", "owed"),
    [("1", ["2", "3", "q"]), ("3", ["q"]), ("unknown", ["q"]), (None, ["q"])],
)
def test_a_reconnect_is_sent_the_log_after_its_last_event_id(
    last: str | None, owed: list[str]
) -> None:
    hub = Hub()
    first = Opened(hub, RESUMABLE)
    hub.push(RESUMABLE, [Event(data=n) for n in "123"])
    first.stream.close()
    hub.push(RESUMABLE, [Event(data="q")])  # none open: queued (and logged as 4)
    assert [e.id for e in hub.log] == ["1", "2", "3", "4"]
    again = Opened(hub, RESUMABLE, last_event_id=last)
    steps = again.ready()
    sent = [s.data for s in steps if isinstance(s, Data)][1:]  # after retry:
    expected = [e.encode("\n", True) for e in hub.log if e.data in owed]
    assert sent == expected


def test_what_a_reconnect_was_sent_from_the_log_is_not_queued_for_the_next() -> None:
    """The queued events are logged too: a reconnect sent them from the log took the
    queue (they went to two streams before)."""
    hub = Hub()
    first = Opened(hub, RESUMABLE)
    hub.push(RESUMABLE, [Event(data="a")])
    first.stream.close()
    hub.push(RESUMABLE, [Event(data="missed")])
    again = Opened(hub, RESUMABLE, last_event_id="1")
    assert again.body() == b"retry: 250\n\nid: 2\ndata: missed\n\n"
    assert hub.queued == []
    again.stream.close()
    assert Opened(hub, RESUMABLE).body() == b"retry: 250\n\n"


def test_a_reconnect_to_a_plain_mock_ignores_last_event_id() -> None:
    hub = Hub()
    Opened(hub, PLAIN).stream.close()
    hub.push(PLAIN, [Event(data="queued")])
    assert Opened(hub, PLAIN, last_event_id="1").body() == b"data: queued\n\n"


def test_a_reconnect_after_a_cut_knows_how_long_after_it_came() -> None:
    hub = Hub()
    first = Opened(hub, RESUMABLE)
    first.call.cut_time = first.call.time + 1.0
    again = Opened(hub, RESUMABLE)
    assert again.call.after_cut == pytest.approx(again.call.time - first.call.cut_time)
    hub_plain = Hub()
    Opened(hub_plain, PLAIN).call.cut_time = 1.0
    assert Opened(hub_plain, PLAIN).call.after_cut is None


# -- one stream's own events -------------------------------------------------------------------


def test_pushing_to_one_stream_is_not_logged_nor_replayed() -> None:
    hub = Hub()
    one, two = Opened(hub, RESUMABLE), Opened(hub, RESUMABLE)
    one.ready(), two.ready()
    one.stream.push(Event(data="only you"))
    assert one.body() == b"data: only you\n\n"
    assert two.body() == b""
    assert hub.log == []
    assert one.stream.pushed == [Event(data="only you")]


def test_a_stream_that_ended_refuses_a_push_with_its_outcome() -> None:
    hub = Hub()
    opened = Opened(hub, PLAIN)
    opened.stream.close()
    opened.stream.close()  # a no-op
    with pytest.raises(ConfigError, match=r"^stream 1 has ended \(in progress\)$"):
        opened.stream.push(Event(data="late"))
    hub.ended(Opened(hub, PLAIN).stream)
    assert hub.open_streams == []


@pytest.mark.parametrize("bad", ["text", None, {"data": "x"}])
def test_only_events_are_pushed(bad: object) -> None:
    hub = Hub()
    opened = Opened(hub, PLAIN)
    with pytest.raises(ConfigError, match=r"push\(\) events\[1\]=.* must be an Event"):
        hub.push(PLAIN, [Event(data="ok"), bad])  # type: ignore[list-item]
    with pytest.raises(ConfigError, match=r"push\(\) events\[0\]"):
        opened.stream.push(bad)  # type: ignore[arg-type]
    assert opened.body() == b""  # nothing of a refused push went out


def test_on_end_marks_the_stream_ended() -> None:
    hub = Hub()
    opened = Opened(hub, PLAIN)
    opened.answer.on_end(opened.call)  # type: ignore[attr-defined]
    assert not opened.stream.open
    assert hub.push(PLAIN, [Event(data="x")]) == 0


# -- rule 3: what the client was sent ----------------------------------------------------------


def test_delivered_is_the_events_the_client_got_whole() -> None:
    hub = Hub()
    opened = Opened(hub, PLAIN)
    opened.call.body_sent = bytearray(b"retry: 5\n\ndata: one\n\ndata: t")
    assert [m.data for m in opened.stream.delivered] == ["one"]


def test_repr_says_its_state_and_count() -> None:
    hub = Hub()
    opened = Opened(hub, PLAIN)
    hub.push(PLAIN, [Event(data="x")])
    assert repr(opened.stream) == "<PushedStream 1 open, 1 pushed>"
    opened.call.outcome = "complete"
    opened.stream.close()
    assert repr(opened.stream) == "<PushedStream 1 complete, 1 pushed>"


# -- waiting for a stream ----------------------------------------------------------------------


def test_wait_returns_the_nth_stream_once_another_thread_opens_it() -> None:
    hub = Hub()
    Opened(hub, PLAIN)
    opener = threading.Thread(target=lambda: Opened(hub, PLAIN))
    opener.start()
    found = wait_stream(hub, "'events'", 2, 30)
    opener.join(30)
    assert isinstance(found, PushedStream)
    assert found.number == 2


def test_wait_names_how_many_opened_when_the_nth_does_not() -> None:
    hub = Hub()
    Opened(hub, PLAIN)
    with pytest.raises(VerificationError) as failed:
        wait_stream(hub, "'events'", 3, 0.01)
    assert str(failed.value) == (
        "expected mock 'events' to open stream 3 within 0.01 s; 1 stream(s) opened"
    )


@pytest.mark.parametrize("n", [0, -1, 1.0, True, "1"])
def test_wait_needs_a_positive_int(n: object) -> None:
    with pytest.raises(ConfigError, match=r"wait_connected\(\) n=.* must be a positive int"):
        wait_stream(Hub(), "m", n, 1)  # type: ignore[arg-type]


def test_wait_async_does_not_block_the_loop() -> None:
    hub = Hub()

    async def main() -> PushedStream:
        waiting = asyncio.ensure_future(wait_stream_async(hub, "m", 1, 30))
        await asyncio.sleep(0)  # the waiter runs, finds none, yields: the loop is free
        Opened(hub, PLAIN)
        return await waiting

    assert asyncio.run(main()).number == 1
