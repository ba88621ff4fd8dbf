"""A run's script as records and their file form (agui/_script.py): reading entries,
the errors that name their place, and the round trip through to_data."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp._core._errors import ConfigError
from mockhttp.agui._script import (
    Activity,
    Custom,
    Delta,
    Error,
    Item,
    Messages,
    NewRun,
    Pause,
    Raw,
    Reasoning,
    State,
    Step,
    Subagent,
    Text,
    ToolCall,
    flatten,
    item,
    items,
    to_data,
)


def test_file_forms_read_as_records() -> None:
    found = items(
        [
            {"text": "Hello"},
            {"text": {"content": "Hi", "role": "user", "chunked": True}},
            {"tool_call": {"name": "f", "arguments": {"x": 1}, "result": "ok"}},
            {"state": {"n": 1}},
            {"delta": [{"op": "replace", "path": "/n", "value": 2}]},
            {"pause": "250ms"},
            {"new_run": None},
            {"new_run": {"run_id": "r2"}},
            {"raw": {"provider": "x"}},
            {"raw": {"event": {"a": 1}, "source": "openai"}},
            {"step": {"name": "s", "events": [{"text": "in"}]}},
        ]
    )
    assert found == (
        Text("Hello"),
        Text("Hi", role="user", chunked=True),
        ToolCall("f", {"x": 1}, result="ok"),
        State({"n": 1}),
        Delta(({"op": "replace", "path": "/n", "value": 2},)),
        Pause(0.25),
        NewRun(),
        NewRun(run_id="r2"),
        Raw({"provider": "x"}),
        Raw({"a": 1}, source="openai"),
        Step("s", (Text("in"),)),
    )


def test_a_record_passes_through() -> None:
    text = Text("x")
    assert item(text) is text


def test_flatten_plays_steps_and_subagents_inside() -> None:
    inner = Text("in")
    sub = Subagent("helper", (Text("sub"),))
    step = Step("s", (inner, sub))
    assert flatten((Text("a"), step, Text("b"))) == [
        Text("a"),
        step,
        inner,
        sub,
        Text("sub"),
        Text("b"),
    ]


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("Hello", "events[0]='Hello' must be one entry such as {text: Hello}"),
        ({"text": "a", "state": 1}, "events[0]={'text': 'a', 'state': 1} must be one entry"),
        ({"txt": "a"}, "events[0]: unknown entry key 'txt' — did you mean 'text'?"),
        ({"text": {"content": "a", "colour": 1}}, "events[0].text: unknown key 'colour'"),
        ({"tool_call": {"arguments": {}}}, "events[0].tool_call: name is missing"),
        ({"text": {"content": "a", "role": "bot"}}, "events[0].text.role='bot' must be one of"),
        ({"text": {"content": "a", "chunk_size": 0}}, "events[0].text.chunk_size: 0 must be"),
        ({"tool_call": {"name": "f", "arguments": 3}}, "events[0].tool_call.arguments=3 must"),
        ({"delta": {"op": "add"}}, "events[0].delta={'op': 'add'} must be a list of JSON Patch"),
        ({"delta": [{"op": "push", "path": "/a"}]}, "events[0].delta[0].op='push' must be one"),
        ({"delta": [{"op": "add", "path": "a"}]}, "events[0].delta[0].path='a' must be a JSON"),
        ({"delta": [{"op": "move", "path": "/a"}]}, "events[0].delta[0].from=None must be a"),
        ({"messages": [{"role": "user"}]}, "events[0].messages[0]={'role': 'user'} must be a"),
        ({"messages": [{"id": "m", "role": 1}]}, "events[0].messages[0].role=1 must be a role"),
        ({"error": {"message": "x", "drop": "yes"}}, "events[0].error.drop='yes' must be true"),
        (
            {"error": {"message": "x", "before_start": True, "after_finished": True}},
            "events[0].error: before_start and after_finished exclude each other",
        ),
        ({"activity": {"activity_type": "p", "content": 1}}, "events[0].activity.content=1"),
        ({"pause": "soon"}, "events[0].pause='soon' is not a duration"),
        ({"step": {"name": "s", "events": [{"step": "s"}]}}, "events[0]: step 's' inside a step"),
        (
            {"subagent": {"name": "h", "events": [{"error": "x"}]}},
            "events[0].subagent.events: a error entry is the run's, not a subagent's",
        ),
    ],
)
def test_a_bad_entry_is_named_by_its_place(entry: Any, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        items([entry])
    assert str(caught.value).startswith(message), str(caught.value)


def test_a_patch_operation_that_sets_needs_a_value() -> None:
    for op in ("add", "replace", "test"):
        with pytest.raises(ConfigError, match=r"^events\[0\]\.delta\[0\]: .* needs a value"):
            items([{"delta": [{"op": op, "path": "/a"}]}])
    assert items([{"delta": [{"op": "remove", "path": "/a"}]}])


def test_a_later_entry_names_its_index() -> None:
    with pytest.raises(ConfigError, match=r"^events\[2\]\.text\.role=.x. must be one of"):
        items([{"text": "a"}, {"text": "b"}, {"text": {"content": "c", "role": "x"}}])


def test_items_wants_a_list() -> None:
    for value in ("text", {"text": "a"}, 3):
        with pytest.raises(ConfigError, match="must be a list of entries such as"):
            items(value)


def test_to_data_is_short_when_only_the_first_field_is_set() -> None:
    assert to_data(Text("Hi")) == {"text": "Hi"}
    assert to_data(Text("Hi", role="user")) == {"text": {"content": "Hi", "role": "user"}}
    assert to_data(NewRun()) == {"new_run": None}
    assert to_data(Pause(0.25)) == {"pause": "250ms"}
    assert to_data(State([1, 2])) == {"state": [1, 2]}
    assert to_data(Raw({"a": 1})) == {"raw": {"event": {"a": 1}}}


TEXT = st.text(min_size=1, max_size=6)
OPTIONAL = st.none() | TEXT
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(TEXT, inner, max_size=2),
    max_leaves=4,
)
OPS = st.lists(st.builds(lambda v: {"op": "add", "path": "/a/0", "value": v}, JSONISH), max_size=2)
LEAVES = st.one_of(
    st.builds(Text, st.text(max_size=6), st.sampled_from(["assistant", "user"]), OPTIONAL),
    st.builds(ToolCall, TEXT, st.dictionaries(TEXT, JSONISH, max_size=2), OPTIONAL),
    st.builds(State, JSONISH),
    st.builds(Delta, OPS),
    st.builds(Reasoning, st.text(max_size=6), encrypted=OPTIONAL),
    st.builds(Custom, TEXT, JSONISH),
    st.builds(Pause, st.integers(0, 5000).map(lambda ms: f"{ms}ms")),
    st.builds(Activity, TEXT, st.dictionaries(TEXT, JSONISH, max_size=2), patch=st.none() | OPS),
    st.builds(Raw, JSONISH, OPTIONAL),
    st.builds(Messages, st.lists(st.builds(lambda i: {"id": i, "role": "user"}, TEXT), max_size=2)),
)
ENTRIES = st.one_of(
    LEAVES,
    st.builds(lambda e: Step("outer", tuple(e)), st.lists(LEAVES, max_size=2)),
    st.builds(
        lambda e: Subagent("sub", tuple(e), error="x"),
        st.lists(LEAVES.filter(lambda x: not isinstance(x, Messages)), max_size=2),
    ),
    st.builds(NewRun, OPTIONAL, OPTIONAL),
    st.builds(Error, TEXT, OPTIONAL, drop=st.booleans()),
)


@given(st.lists(ENTRIES, max_size=4))
def test_the_file_form_reads_back_to_the_same_records(script: list[Item]) -> None:
    assert items([to_data(e) for e in script]) == tuple(script)
