"""The whole AG-UI event set from the mock: several runs on one stream, the RUN_ERROR
paths, the chunk shorthands, reasoning's encrypted value, activity, raw events and
subagents; each stream passes ``check --profile ag-ui`` and the reference client."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import agui
from mockhttp.contract import check
from mockhttp.contract._agui_schema import EVENT_SCHEMAS
from mockhttp.contract._transcript import Transcript
from tests.helpers.agui_differential import reference, reference_missing

INPUT = {"threadId": "t1", "runId": "r1", "messages": []}
EVERYTHING = agui.run(
    agui.reasoning("Thinking it over", encrypted="gAAAA="),
    agui.reasoning("More thought", chunked=True),
    agui.text("Let me check.", chunked=True),
    agui.tool_call("get_weather", {"city": "Paris"}, result="Sunny", chunked=True),
    agui.text("Checking Brest"),
    agui.tool_call("get_weather", {"city": "Brest"}, result="Rain"),
    agui.activity(
        "search",
        {"status": "running"},
        patch=[{"op": "replace", "path": "/status", "value": "done"}],
    ),
    agui.subagent(
        "researcher",
        agui.text("Found it"),
        agui.step("dig", agui.state({"depth": 1})),
        agui.subagent("helper", agui.text("inner", chunked=True)),
    ),
    agui.subagent("flaky", agui.reasoning("hmm"), error="it failed"),
    agui.raw({"provider": "x", "n": 1}, source="openai"),
    agui.custom("progress", 0.5),
    agui.messages({"id": "u1", "role": "user", "content": "Weather?"}),
    agui.state({"count": 1}),
    agui.delta({"op": "replace", "path": "/count", "value": 2}),
    agui.new_run(),
    agui.error("bad input", before_start=True),
    agui.new_run(run_id="third"),
    agui.text("A third run"),
    agui.error("late failure", after_finished=True),
    agui.new_run(),
    agui.text("A fourth run, after RUN_ERROR"),
    agui.error("boom", code="E1"),
    agui.new_run(thread_id="t2"),
    agui.text("Done"),
)
"""One stream with every event type AG-UI 1.0 defines, five runs, every RUN_ERROR path."""


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    with mockhttp.Server() as s:
        yield s


def events_of(server: mockhttp.Server, run: agui.AgUiRun) -> tuple[str, list[dict[str, Any]]]:
    server.mock(run.mock("/agent"))
    text = httpx.post(server.url + "/agent", json=INPUT, timeout=5).text
    return text, [json.loads(b[len("data: ") :]) for b in text.split("\n\n") if b]


def violations(text: str, profile: str = "ag-ui") -> list[str]:
    findings = check(Transcript.from_body(text.encode()), profile)
    return [f"{f.rule}: {f.message}" for f in findings if f.severity == "violation"]


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def test_every_event_type_on_one_stream(server: mockhttp.Server) -> None:
    text, events = events_of(server, EVERYTHING)
    assert set(kinds(events)) == set(EVENT_SCHEMAS)
    assert violations(text) == []
    assert [v.split(":")[0] for v in violations(text, "ag-ui-strict")] == ["ag-ui.one-run"]


def test_runs_and_their_ids(server: mockhttp.Server) -> None:
    """Each run opens with RUN_STARTED: the request's ids first, then ``<runId>-<n>`` or
    the ids given; the RUN_ERROR paths in their places."""
    _, events = events_of(server, EVERYTHING)
    edges = [
        (e["type"], e.get("runId"), e.get("threadId", ""), e.get("message", ""))
        for e in events
        if e["type"] in ("RUN_STARTED", "RUN_FINISHED", "RUN_ERROR")
    ]
    assert edges == [
        ("RUN_STARTED", "r1", "t1", ""),
        ("RUN_FINISHED", "r1", "t1", ""),
        ("RUN_ERROR", None, "", "bad input"),  # run 2 fails before it starts
        ("RUN_STARTED", "third", "t1", ""),
        ("RUN_FINISHED", "third", "t1", ""),
        ("RUN_ERROR", None, "", "late failure"),  # after RUN_FINISHED
        ("RUN_STARTED", "r1-4", "t1", ""),
        ("RUN_ERROR", None, "", "boom"),
        ("RUN_STARTED", "r1-5", "t2", ""),  # a new run after RUN_ERROR
        ("RUN_FINISHED", "r1-5", "t2", ""),
    ]


def test_a_stream_that_starts_with_run_error(server: mockhttp.Server) -> None:
    run = agui.run(agui.error("no such agent", code="E404", before_start=True), agui.new_run(),
                   agui.text("Hi"))  # fmt: skip
    text, events = events_of(server, run)
    assert events[0] == {"type": "RUN_ERROR", "message": "no such agent", "code": "E404"}
    assert kinds(events)[1:3] == ["RUN_STARTED", "TEXT_MESSAGE_START"]
    assert events[1]["runId"] == "r1-2"
    assert violations(text) == []


def test_the_chunk_shorthands(server: mockhttp.Server) -> None:
    """The first chunk names what it opens, the others carry a piece; the next event (here
    the tool call, the run's end) closes it, as the client expands them."""
    run = agui.run(
        agui.text("Hello there", id="m1", chunked=True),
        agui.tool_call("f", {"a": 1}, id="c1", chunked=True),
        agui.reasoning("Hm", id="r1", chunked=True),
    )
    text, events = events_of(server, run)
    assert events[1:3] == [
        {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": "Hello"},
        {"type": "TEXT_MESSAGE_CHUNK", "delta": " there"},
    ]
    call = [e for e in events if e["type"] == "TOOL_CALL_CHUNK"]
    assert call[0] == {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "f",
                       "parentMessageId": "m1", "delta": call[0]["delta"]}  # fmt: skip
    assert "".join(c["delta"] for c in call) == '{"a": 1}'
    assert kinds(events)[-4:] == [
        "REASONING_START", "REASONING_MESSAGE_CHUNK", "REASONING_END", "RUN_FINISHED"
    ]  # fmt: skip
    assert violations(text) == []


def test_subagents_attribute_their_events(server: mockhttp.Server) -> None:
    run = agui.run(
        agui.text("Parent", id="m0"),
        agui.subagent("outer", agui.text("Hi", id="m1"), agui.tool_call("f", id="c1"),
                      agui.subagent("inner", agui.custom("x", 1), id="s2"), id="s1"),
        agui.subagent("broken", id="s3", error="gave up"),
        agui.tool_call("g", id="c2"),
    )  # fmt: skip
    text, events = events_of(server, run)
    tagged = [(e["type"], e.get("subagentRunId"), e.get("parentSubagentRunId")) for e in events]
    assert tagged[4:14] == [
        ("SUBAGENT_STARTED", "s1", None),
        ("TEXT_MESSAGE_START", "s1", None),
        ("TEXT_MESSAGE_CONTENT", "s1", None),
        ("TEXT_MESSAGE_END", "s1", None),
        ("TOOL_CALL_START", "s1", None),
        ("TOOL_CALL_ARGS", "s1", None),
        ("TOOL_CALL_END", "s1", None),
        ("SUBAGENT_STARTED", "s2", "s1"),
        ("CUSTOM", "s2", None),
        ("SUBAGENT_FINISHED", "s2", None),
    ]
    assert events[15] == {"type": "SUBAGENT_STARTED", "subagentRunId": "s3", "name": "broken"}
    assert events[16] == {"type": "SUBAGENT_ERROR", "subagentRunId": "s3", "message": "gave up"}
    inside = next(e for e in events if e.get("toolCallId") == "c1")
    outside = next(e for e in events if e.get("toolCallId") == "c2")
    assert inside["parentMessageId"] == "m1"  # the subagent's own message
    assert outside["parentMessageId"] == "m0"  # the parent's, not the subagent's
    assert violations(text) == []


def test_activity_raw_and_encrypted_reasoning(server: mockhttp.Server) -> None:
    run = agui.run(
        agui.activity("search", {"q": "x"}, id="a1", patch=[{"op": "add", "path": "/n",
                                                              "value": 1}], replace=False),
        agui.raw("opaque", source="vendor"),
        agui.reasoning("Hm", id="r1", encrypted="enc"),
    )  # fmt: skip
    text, events = events_of(server, run)
    assert events[1:4] == [
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "search",
         "content": {"q": "x"}, "replace": False},
        {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
         "patch": [{"op": "add", "path": "/n", "value": 1}]},
        {"type": "RAW", "event": "opaque", "source": "vendor"},
    ]  # fmt: skip
    assert events[-3] == {"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message",
                          "entityId": "r1", "encryptedValue": "enc"}  # fmt: skip
    assert violations(text) == []


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: agui.run(agui.text("a"), agui.error("x", before_start=True)), "only entry"),
        (lambda: agui.run(agui.step("s", agui.new_run())), "top level only"),
        (lambda: agui.step("s", agui.step("t", agui.step("s"))), "inside a step of the same"),
        (lambda: agui.run(agui.error("x", drop=True), agui.new_run()), "ends the stream"),
        (lambda: agui.run(agui.step("s", agui.error("x", after_finished=True))), "not inside"),
        (
            lambda: agui.run(agui.error("x"), agui.new_run(), agui.error("y", before_start=True)),
            "after RUN_ERROR only RUN_STARTED",
        ),
        (lambda: agui.error("x", before_start=True, after_finished=True), "exclude each other"),
        (lambda: agui.subagent("s", agui.error("x")), "a subagent fails with error="),
        (lambda: agui.activity("t", [1]), "activity.content=[1] must be a mapping"),  # type: ignore[arg-type]
        (lambda: agui.activity("t", patch=[{"op": "x"}]), "activity.patch[0].op='x'"),
        (lambda: agui.text("x", chunked="yes"), "text.chunked='yes' must be true or false"),  # type: ignore[arg-type]
    ],
)
def test_scripts_that_cannot_be_streams_are_refused(build: Any, words: str) -> None:
    with pytest.raises(mockhttp.ConfigError) as caught:
        build()
    assert words in str(caught.value)


def test_a_subagents_steps_are_its_own() -> None:
    """A subagent may open a step its parent has open (the client keys steps by owner)."""
    run = agui.run(agui.step("tools", agui.subagent("sub", agui.step("tools"))))
    with mockhttp.Server() as server:
        text, _ = events_of(server, run)
    assert violations(text) == []


def test_the_file_form_round_trips() -> None:
    """Every new entry and option in a mock file, and back."""
    text = EVERYTHING.mock("/agent").to_yaml()
    (again,) = mockhttp.loads(text)
    assert again.kind == EVERYTHING
    (short,) = mockhttp.loads(
        "request: {path: /a}\nresponse:\n  agui:\n"
        "    - text: {content: Hi, chunked: true}\n"
        "    - raw: {provider: x}\n"
        "    - subagent: {name: helper, events: [{text: Hi}], error: failed}\n"
        "    - new_run: null\n"
        "    - error: {message: refused, before_start: true}\n"
    )
    assert short.kind == agui.run(
        agui.text("Hi", chunked=True), agui.raw({"provider": "x"}),
        agui.subagent("helper", agui.text("Hi"), error="failed"), agui.new_run(),
        agui.error("refused", before_start=True),
    )  # fmt: skip


@pytest.mark.skipif(reference_missing() is not None, reason=str(reference_missing()))
def test_the_reference_client_accepts_each(server: mockhttp.Server) -> None:
    """@ag-ui/client reads the bytes these runs send and accepts them all."""
    runs = [
        EVERYTHING,
        agui.run(agui.error("no", before_start=True), agui.new_run(), agui.text("Hi")),
        agui.run(agui.text("a", chunked=True), agui.new_run(), agui.text("b", chunked=True)),
    ]
    bodies = []
    for i, run in enumerate(runs):
        server.mock(run.mock(f"/{i}"))
        bodies.append(httpx.post(f"{server.url}/{i}", json=INPUT, timeout=5).text)
    assert [v for v in reference(bodies) if not v["accepted"]] == []


def _script(rng: random.Random, depth: int = 0) -> list[Any]:
    """Entries drawn at random, nested steps and subagents included (no run boundaries)."""
    leaves: list[Callable[[], Any]] = [
        lambda: agui.text(rng.choice(["Hi", "Sunny today", ""]), chunked=rng.random() < 0.4),
        lambda: agui.tool_call(
            "f",
            {"a": rng.randint(0, 9)},
            result=rng.choice([None, "ok"]),
            chunked=rng.random() < 0.4,
        ),
        lambda: agui.reasoning("hm", chunked=rng.random() < 0.4, encrypted=rng.choice([None, "e"])),
        lambda: agui.activity(
            "a", {"n": 1}, patch=rng.choice([None, [{"op": "remove", "path": "/n"}]])
        ),
        lambda: agui.raw({"x": 1}),
        lambda: agui.custom("c", 1),
        lambda: agui.state({"k": 1}),
        lambda: agui.delta({"op": "add", "path": "/k", "value": 2}),
    ]
    if depth == 0:
        leaves.append(lambda: agui.messages({"id": "u", "role": "user", "content": "x"}))
    if depth < 2:
        leaves.append(lambda: agui.step(f"s{depth}", *_script(rng, depth + 1)))
        leaves.append(
            lambda: agui.subagent(
                "sub", *_script(rng, depth + 1), error=rng.choice([None, "failed"])
            )
        )
    return [rng.choice(leaves)() for _ in range(rng.randint(0, 4))]


def _runs(rng: random.Random) -> agui.AgUiRun:
    """One to three runs, each finishing, failing (any way a run can) or failing first."""
    entries: list[Any] = []
    failed = False
    for number in range(rng.randint(1, 3)):
        if number:
            entries.append(agui.new_run())
        how = rng.choice(["finish", "finish", "error", "after", "before"])
        if how == "before" and not failed:
            entries.append(agui.error("refused", before_start=True))
        else:
            entries += _script(rng)
            if how == "error":
                entries.append(agui.error("boom"))
            elif how == "after":
                entries.append(agui.error("late", after_finished=True))
        failed = how != "finish" and not (how == "before" and failed)
    return agui.run(*entries)


@pytest.mark.skipif(reference_missing() is not None, reason=str(reference_missing()))
def test_random_scripts_make_streams_the_reference_accepts(server: mockhttp.Server) -> None:
    """80 seeded scripts of every entry, served over loopback: the reference client accepts
    each stream, and the profile finds no violation in it."""
    rng = random.Random(34)
    bodies = []
    for i in range(80):
        server.mock(_runs(rng).mock(f"/r{i}"))
        bodies.append(httpx.post(f"{server.url}/r{i}", json=INPUT, timeout=5).text)
    verdicts = reference(bodies)
    assert [(i, v) for i, v in enumerate(verdicts) if not v["accepted"]] == []
    assert [(i, violations(b)) for i, b in enumerate(bodies) if violations(b)] == []
