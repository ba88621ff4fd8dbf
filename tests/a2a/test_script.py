"""A task's script as data (a2a/_script.py): building records, reading mock-file data, and
errors that name their place."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp._core._errors import ConfigError
from mockhttp.a2a._script import (
    Artifact,
    Error,
    Message,
    Status,
    Task,
    artifact,
    entries,
    error,
    message,
    status,
    task,
)
from mockhttp.a2a._spec import STATES


def test_builders_make_the_records() -> None:
    t = task(status("working", "Thinking"), artifact("Hi", name="a"), status("completed"))
    assert t.steps == (
        Status("working", "Thinking"),
        Artifact(artifact="Hi", name="a"),
        Status("completed"),
    )
    assert message("hi") == Message("hi")
    assert error("boom") == Error("boom", -32603)


def test_entries_read_mock_file_data() -> None:
    found = entries(
        [
            [{"status": "working", "text": "Thinking"}, {"artifact": "Hi", "last_chunk": True}],
            {"steps": [{"status": "completed"}], "duplicate_final": True},
            {"message": "just a message"},
            {"error": "nope", "code": -32001},
        ]
    )
    assert found == (
        Task((Status("working", "Thinking"), Artifact(artifact="Hi", last_chunk=True))),
        Task((Status("completed"),), duplicate_final=True),
        Message("just a message"),
        Error("nope", -32001),
    )


def test_a_data_artifact_is_a_data_part() -> None:
    [t] = entries([[{"data": {"n": 1}, "id": "x"}]])
    assert isinstance(t, Task)
    step = t.steps[0]
    assert isinstance(step, Artifact)
    assert step.part == {"data": {"n": 1}}
    assert artifact("Hi").part == {"text": "Hi"}


@pytest.mark.parametrize(
    ("data", "message_"),
    [
        ([[{"status": "done"}]], "tasks[0][0].status: 'done' is not a task state"),
        ([[{"status": "working"}, {"artifact": 3}]], "tasks[0][1].artifact: 3 must be text"),
        ([[{"status": "working", "colour": "red"}]], "tasks[0][0]: unknown key 'colour'"),
        ([[{"text": "hi"}]], "tasks[0][0]: {'text': 'hi'} must be a step"),
        ([[{"status": "working", "artifact": "x"}]], "tasks[0][0]: "),
        (
            [{"steps": [{"status": "working"}, {"status": "done"}]}],
            "tasks[0].steps[1].status: 'done' is not a task state",
        ),
        ([[]], "tasks[0].steps: a task needs at least one step"),
        (["working"], "tasks[0].steps: 'working' must be a list"),
        ([{"steps": [{"status": "working"}], "wrong_id": "yes"}], "tasks[0].wrong_id: 'yes'"),
        ([{"duplicate_final": True}], "tasks[0]: missing key 'steps'"),
        ([{"message": 5}], "tasks[0].message: 5 must be text"),
        ([{"error": "x", "code": "E1"}], "tasks[0].code: 'E1' must be an integer"),
        ([{"error": "x", "code": True}], "tasks[0].code: True must be an integer"),
        ([[{"status": "working", "delay": -1}]], "tasks[0][0].delay: -1 must be"),
        ([[{"artifact": "a", "append": "no"}]], "tasks[0][0].append: 'no' must be true"),
        ([[{"artifact": "a", "last_chunk": 1}]], "tasks[0][0].last_chunk: 1 must be"),
        ("abc", "tasks: 'abc' must be a list"),
        ({"message": "x"}, "tasks: {'message': 'x'} must be a list"),
    ],
)
def test_a_mistake_names_its_place(data: Any, message_: str) -> None:
    with pytest.raises(ConfigError) as caught:
        entries(data)
    assert str(caught.value).startswith(message_), str(caught.value)


def test_an_artifact_needs_text_or_data_but_not_both() -> None:
    with pytest.raises(ConfigError, match="give the text, or data"):
        artifact()
    with pytest.raises(ConfigError, match="give the text, or data"):
        artifact("x", data={"a": 1})


def test_a_status_names_the_states_it_knows() -> None:
    with pytest.raises(ConfigError) as caught:
        status("finished")
    assert "expected one of submitted, working" in str(caught.value)


def test_to_data_writes_only_what_differs_from_the_defaults() -> None:
    assert task(status("completed")).to_data() == [{"status": "completed"}]
    assert task(status("completed"), wrong_id=True).to_data() == {
        "steps": [{"status": "completed"}],
        "wrong_id": True,
    }
    assert message("m").to_data() == {"message": "m"}
    assert error("e").to_data() == {"error": "e"}
    assert error("e", -32001).to_data() == {"error": "e", "code": -32001}


STEPS = st.one_of(
    st.builds(
        status,
        st.sampled_from(STATES),
        st.none() | st.text(max_size=5),
        delay=st.none() | st.floats(0, 5),
    ),
    st.builds(
        artifact,
        st.text(max_size=5),
        name=st.none() | st.text(max_size=5),
        append=st.booleans(),
        last_chunk=st.none() | st.booleans(),
    ),
)
ENTRIES = st.one_of(
    st.builds(
        task,
        STEPS,
        STEPS,
        duplicate_final=st.booleans(),
        wrong_id=st.booleans(),
    ),
    st.builds(message, st.text(max_size=5)),
    st.builds(error, st.text(max_size=5), st.integers(-32768, -32000)),
)


@given(st.lists(ENTRIES, max_size=4))
def test_data_reads_back_to_the_same_entries(values: list[Task | Message | Error]) -> None:
    assert entries([v.to_data() for v in values]) == tuple(values)
