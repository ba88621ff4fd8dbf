"""The pure part of a pushed event stream (_core/_pushed.py): the reply, its head and
``retry:``, its plan without a server, the numbering of a resumable stream, the file
form.  The streams a server feeds are ``tests/server/test_push.py``'s."""

from __future__ import annotations

import pytest

import mockhttp
from mockhttp._core._errors import ConfigError, MockfileError
from mockhttp._core._plan import Data, End, Head, Pause
from mockhttp._core._pushed import Pushed, pushed, retry_block
from mockhttp._core._reply import ok, status
from mockhttp._core._sse import Event
from mockhttp._mockfile._load import loads

SSE = (("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache"))


def test_the_default_is_a_200_event_stream_with_no_retry() -> None:
    reply = pushed()
    assert (reply.status_code, reply.resumable, reply.retry) == (200, False, None)
    assert reply.head() == Head(200, "OK", SSE, None)  # chunked: no length
    assert reply.opening() == b""
    assert reply.describe() == "200 pushed event stream"


def test_a_given_reply_gives_its_status_and_headers_and_replaces_a_default() -> None:
    reply = pushed(status(409).header("X-A", "1").header("cache-control", "no-store"))
    head = reply.head()
    assert head.status == 409
    assert head.headers == (
        ("Content-Type", "text/event-stream"),
        ("X-A", "1"),
        ("cache-control", "no-store"),
    )


def test_retry_is_a_block_alone_that_clients_dispatch_no_event_for() -> None:
    assert retry_block(0) == b"retry: 0\n\n"
    assert pushed(retry=1500).opening() == b"retry: 1500\n\n"


def test_rule_1_the_plan_alone_is_the_head_retry_and_the_end() -> None:
    assert list(pushed().plan()) == [Head(200, "OK", SSE, None), End("complete")]
    delayed = pushed(ok().delay(0.25), retry=10)
    assert list(delayed.plan()) == [
        Pause(0.25),
        Head(200, "OK", SSE, None),
        Data(b"retry: 10\n\n"),
        End("complete"),
    ]


def test_build_answers_the_reply_itself() -> None:
    reply = pushed(resumable=True)
    assert reply.build(mockhttp.Request("GET", "/")) is reply


@pytest.mark.parametrize(
    ("resumable", "event", "n", "id_"),
    [
        (True, Event(data="x"), 3, "3"),
        (True, Event(data="x", id="mine"), 3, "mine"),
        (True, Event(data="x", id=""), 3, ""),  # an empty id is an id (it resets)
        (False, Event(data="x"), 3, None),
    ],
)
def test_number_gives_a_resumable_streams_events_their_place(
    resumable: bool, event: Event, n: int, id_: str | None
) -> None:
    numbered = pushed(resumable=resumable).number(event, n)
    assert numbered.id == id_
    assert numbered.data == event.data


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"reply": "ok"}, "pushed() reply='ok' must be a Reply"),
        ({"reply": pushed()}, "must be a Reply such as ok().header(...)"),
        ({"reply": ok().body("x")}, "has a body or events of its own: give only a status"),
        ({"reply": ok().event_stream(Event(data="x"))}, "has a body or events of its own"),
        ({"retry": -1}, "pushed() retry=-1 must be a non-negative int (milliseconds)"),
        ({"retry": 1.5}, "retry=1.5 must be a non-negative int"),
        ({"retry": True}, "retry=True must be a non-negative int"),
    ],
)
def test_misuse_is_refused_with_the_reason(kwargs: dict[str, object], said: str) -> None:
    with pytest.raises(ConfigError) as refused:
        pushed(**kwargs)  # type: ignore[arg-type]
    assert said in str(refused.value)


def test_to_args_writes_the_options_that_differ() -> None:
    assert pushed().to_args() == {}
    assert pushed(resumable=True, retry=200).to_args() == {"resumable": True, "retry": 200}
    assert pushed(resumable=True).describe() == "200 resumable pushed event stream"


# -- rule 2: the file form ---------------------------------------------------------------------


def _reply(text: str) -> Pushed:
    (mock,) = loads(text, "m.yaml")
    assert isinstance(mock.response, Pushed)
    return mock.response


def test_the_file_form_true() -> None:
    reply = _reply("request: {path: /e}\nresponse: {pushed: true}\n")
    assert reply == pushed()


def test_the_file_form_with_options_composes_with_status_and_headers() -> None:
    reply = _reply(
        "request: {path: /e}\n"
        "response:\n"
        "  status: 201\n"
        "  header: {X-Stream: 'yes'}\n"
        "  pushed: {resumable: true, retry: 200}\n"
    )
    assert (reply.status_code, reply.resumable, reply.retry) == (201, True, 200)
    assert ("X-Stream", "yes") in reply.head().headers


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("false", "pushed: false is no reply"),
        ("{retry: -5}", "retry=-5 must be a non-negative int"),
        ("{resumeable: true}", "resumeable"),
    ],
)
def test_bad_file_forms_say_what_and_where(value: str, said: str) -> None:
    with pytest.raises(MockfileError) as refused:
        loads(f"request: {{path: /e}}\nresponse: {{pushed: {value}}}\n", "m.yaml")
    assert said in str(refused.value)
    assert "m.yaml:2" in str(refused.value)
