"""What the A2A specification fixes (a2a/_spec.py): state names in both versions, the
lifecycle table, JSON-RPC envelopes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp.a2a._spec import (
    ERRORS,
    INTERRUPTED,
    METHODS,
    STATES,
    TERMINAL,
    TRANSITIONS,
    VERSIONS,
    error,
    result,
    state_name,
    state_named,
    state_of,
)


@pytest.mark.parametrize(
    ("state", "v10"),
    [
        ("submitted", "TASK_STATE_SUBMITTED"),
        ("input-required", "TASK_STATE_INPUT_REQUIRED"),
        ("auth-required", "TASK_STATE_AUTH_REQUIRED"),
        ("canceled", "TASK_STATE_CANCELED"),
    ],
)
def test_state_names_per_version(state: str, v10: str) -> None:
    assert state_name(state, "0.3") == state
    assert state_name(state, "1.0") == v10


@given(st.sampled_from(STATES), st.sampled_from(VERSIONS))
def test_a_state_written_in_either_version_reads_back(state: str, version: str) -> None:
    written = state_name(state, version)  # type: ignore[arg-type]
    assert state_named(written) == state
    assert state_of(written) == state


@pytest.mark.parametrize(
    "name", [None, 3, "", "TASK_STATE_", "done", "TASK_STATE_DONE", "input_required_x", ["working"]]
)
def test_what_is_not_a_state_reads_as_none(name: object) -> None:
    assert state_named(name) is None
    assert state_of(name) is None


def test_state_of_reads_only_the_wire_forms() -> None:
    # 0.3 writes hyphens; only the 1.0 enum name may use underscores
    assert state_of("input_required") is None
    assert state_of("TASK_STATE_INPUT_REQUIRED") == "input-required"


def test_terminal_states_go_nowhere_and_every_state_is_in_the_table() -> None:
    assert set(TRANSITIONS) == set(STATES)
    for state in TERMINAL:
        assert TRANSITIONS[state] == frozenset()
    assert not TERMINAL & INTERRUPTED
    assert "submitted" not in set().union(*TRANSITIONS.values())


def test_an_interrupted_task_may_go_on_working() -> None:
    for state in INTERRUPTED:
        assert "working" in TRANSITIONS[state]


def test_methods_of_both_versions_name_the_same_operations() -> None:
    by_version: dict[str, set[str]] = {v: set() for v in VERSIONS}
    for version, operation in METHODS.values():
        by_version[version].add(operation)
    assert {"send", "stream", "get", "cancel", "resubscribe"} <= by_version["0.3"]
    assert by_version["0.3"] <= by_version["1.0"]
    assert METHODS["message/send"] == ("0.3", "send")
    assert METHODS["SendStreamingMessage"] == ("1.0", "stream")
    assert METHODS["SubscribeToTask"] == ("1.0", "resubscribe")


def test_error_codes_are_distinct_and_in_the_json_rpc_ranges() -> None:
    codes = list(ERRORS.values())
    assert len(set(codes)) == len(codes)
    assert ERRORS["task_not_found"] == -32001
    assert ERRORS["method_not_found"] == -32601
    for code in codes:
        assert -32768 <= code <= -32000


def test_envelopes_are_json_rpc_2() -> None:
    assert json.loads(json.dumps(result(7, {"a": 1}))) == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {"a": 1},
    }
    assert error("x", -32001, "task t1 not found") == {
        "jsonrpc": "2.0",
        "id": "x",
        "error": {"code": -32001, "message": "task t1 not found"},
    }
    assert result(None, None)["id"] is None
