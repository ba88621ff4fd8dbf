"""The AG-UI run reply kind (agui/_kind.py), built and planned directly: ids (Rule 1), a
dropped error (Rule 2), the checks of a script, options and the file form."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockhttp import agui
from mockhttp._core._errors import ConfigError
from mockhttp._core._plan import Data, End, Head, Pause
from mockhttp._core._reply import Reply
from mockhttp._core._request import Request
from mockhttp.agui._kind import AgUiRun, Dropped


def _post(body: Any = None, raw: bytes | None = None) -> Request:
    data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
    return Request("POST", "/agent", body=data)


def _events(reply: Reply) -> list[dict[str, Any]]:
    body = b"".join(s.data for s in reply.plan() if isinstance(s, Data)).decode()
    return [
        json.loads(line.removeprefix("data: "))
        for line in body.splitlines()
        if line.startswith("data: ")
    ]


def _end(reply: Reply) -> End:
    [end] = [s for s in reply.plan() if isinstance(s, End)]
    return end


def test_a_run_is_started_text_finished_with_the_requests_ids() -> None:
    run = AgUiRun([agui.text("Hi there")])
    reply = run.build(_post({"threadId": "t1", "runId": "r1", "messages": []}))
    [head] = [s for s in reply.plan() if isinstance(s, Head)]
    assert head.status == 200
    assert dict(head.headers)["Content-Type"].startswith("text/event-stream")
    events = _events(reply)
    types = [e["type"] for e in events]
    assert types[0] == "RUN_STARTED"
    assert types[-1] == "RUN_FINISHED"
    assert "TEXT_MESSAGE_START" in types
    assert (events[0]["threadId"], events[0]["runId"]) == ("t1", "r1")
    text = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert text == "Hi there"
    assert _end(reply).how == "complete"


def test_ids_come_from_the_run_when_the_request_has_none() -> None:
    run = AgUiRun([agui.text("x")], thread_id="T", run_id="R")
    for req in (_post({"messages": []}), _post(raw=b"not json"), _post([1, 2]), _post()):
        start = _events(run.build(req))[0]
        assert (start["threadId"], start["runId"]) == ("T", "R")
    start = _events(run.build(_post({"threadId": "", "runId": 5})))[0]
    assert (start["threadId"], start["runId"]) == ("T", "R")


def test_made_ids_are_the_same_for_an_equal_run_and_differ_per_call() -> None:
    first = [_events(AgUiRun([agui.text("x")]).build(_post()))[0] for _ in range(2)]
    assert first[0]["threadId"] == first[1]["threadId"]
    run = AgUiRun([agui.text("x")])
    one, two = (_events(run.build(_post()))[0]["runId"] for _ in range(2))
    assert one != two


def test_result_goes_into_run_finished() -> None:
    events = _events(AgUiRun([agui.text("x")], result={"ok": True}).build(_post()))
    assert events[-1] == {**events[-1], "type": "RUN_FINISHED", "result": {"ok": True}}


def test_duplicate_terminal_sends_run_finished_twice() -> None:
    types = [
        e["type"]
        for e in _events(AgUiRun([agui.text("x")], duplicate_terminal=True).build(_post()))
    ]
    assert types[-2:] == ["RUN_FINISHED", "RUN_FINISHED"]


def test_an_error_ends_the_run_with_run_error() -> None:
    events = _events(AgUiRun([agui.text("x"), agui.error("boom", code="E1")]).build(_post()))
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["message"] == "boom"
    assert "RUN_FINISHED" not in [e["type"] for e in events]


def test_a_dropped_error_closes_where_run_error_would_start() -> None:
    reply = AgUiRun([agui.text("x"), agui.error("boom", drop=True)]).build(_post())
    assert isinstance(reply, Dropped)
    types = [e["type"] for e in _events(reply)]
    assert "RUN_ERROR" not in types
    assert "RUN_FINISHED" not in types
    assert _end(reply).how == "close"


def test_ttft_pauses_before_the_first_event() -> None:
    reply = AgUiRun([agui.text("x")], ttft="250ms").build(_post())
    steps = list(reply.plan())
    first_data = next(i for i, s in enumerate(steps) if isinstance(s, Data))
    pauses = [s for s in steps[:first_data] if isinstance(s, Pause)]
    assert sum(p.seconds for p in pauses) == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([agui.error("a"), agui.text("x")], "an error ends its run: it must be the run's last"),
        (
            [agui.text("x"), agui.error("a", before_start=True)],
            "an error before_start is its run's only entry",
        ),
        (
            [agui.step("s", agui.error("a", after_finished=True))],
            "an error after_finished follows RUN_FINISHED: not inside a step",
        ),
        (
            [agui.error("a", drop=True), agui.new_run(), agui.text("x")],
            "a dropped error ends the stream: no new_run may follow it",
        ),
        ([agui.step("s", agui.new_run())], "new_run starts the next run: at the script's top"),
        (
            [agui.error("a"), agui.new_run(), agui.error("b", before_start=True)],
            "an error before_start cannot follow a run that failed",
        ),
    ],
)
def test_a_misplaced_entry_is_refused(events: list[Any], message: str) -> None:
    with pytest.raises(ConfigError, match="^events: " + message.replace("(", r"\(")):
        AgUiRun(events)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"thread_id": ""}, "thread_id='' must be non-empty text"),
        ({"run_id": 3}, "run_id=3 must be non-empty text"),
        ({"chunk_size": 0}, "chunk_size=0 must be a positive int"),
        ({"chunk_size": True}, "chunk_size=True must be a positive int"),
        ({"duplicate_terminal": "yes"}, "duplicate_terminal='yes' must be true or false"),
    ],
)
def test_a_bad_option_is_named(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        AgUiRun([agui.text("x")], **options)


def test_to_args_holds_what_differs_and_builds_an_equal_run() -> None:
    run = AgUiRun([agui.text("Hi"), agui.state({"n": 1})], run_id="R", ttft=0.1, seed=3)
    args = run.to_args()
    assert set(args) == {"events", "run_id", "ttft", "seed"}
    assert args["ttft"] == "100ms"
    again = AgUiRun(**args)
    assert again == run
    assert _events(again.build(_post())) == _events(run.build(_post()))


def test_mock_answers_post_on_its_path() -> None:
    mock = AgUiRun([agui.text("x")]).mock("/run")
    assert (mock.method, mock.path, mock.name) == ("POST", "/run", "agui")
    assert mock.matches(Request("POST", "/run"))
    assert not mock.matches(Request("GET", "/run"))
