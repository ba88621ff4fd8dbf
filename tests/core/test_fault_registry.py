"""The fault registry and file form: every public fault has a name, and writes and reads back."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

import mockhttp
from mockhttp import ConfigError, fault
from mockhttp._mockfile._load import loads

EXAMPLES: list[tuple[fault.Fault, list[Any], str]] = [
    (fault.limit_data(100), ["limit_data", 100], "limit_data(100)"),
    (
        fault.limit_data(100, count="wire"),
        ["limit_data", 100, {"count": "wire"}],
        "limit_data(100, count='wire')",
    ),
    (fault.close_after_events(2), ["close_after_events", 2], "close_after_events(2)"),
    (fault.end_after_events(3), ["end_after_events", 3], "end_after_events(3)"),
    (fault.reset_after_events(0), ["reset_after_events", 0], "reset_after_events(0)"),
    (fault.reset_after_bytes(9), ["reset_after_bytes", 9], "reset_after_bytes(9)"),
    (fault.empty_response(), ["empty_response"], "empty_response()"),
    (fault.reset(), ["reset"], "reset()"),
    (fault.latency(0.02), ["latency", "20ms"], "latency('20ms')"),
    (fault.first_byte_delay("1.5s"), ["first_byte_delay", "1.5s"], "first_byte_delay('1.5s')"),
    (fault.stall(), ["stall"], "stall()"),
    (fault.stall(after_events=2), ["stall", {"after_events": 2}], "stall(after_events=2)"),
    (fault.stall(after_bytes=0), ["stall", {"after_bytes": 0}], "stall(after_bytes=0)"),
    (fault.throttle(1000), ["throttle", 1000], "throttle(1000)"),
    (fault.slice(1), ["slice", 1], "slice(1)"),
    (fault.slice(3, delay="5ms"), ["slice", 3, {"delay": "5ms"}], "slice(3, delay='5ms')"),
    (fault.garbage(16), ["garbage", 16], "garbage(16)"),
    (fault.garbage(16, seed=4), ["garbage", 16, {"seed": 4}], "garbage(16, seed=4)"),
    (fault.malformed_chunk(), ["malformed_chunk"], "malformed_chunk()"),
    (fault.truncate_event(1), ["truncate_event", 1], "truncate_event(1)"),
    (
        fault.truncate_event(1, at=-1),
        ["truncate_event", 1, {"at": -1}],
        "truncate_event(1, at=-1)",
    ),
    (
        fault.sometimes(0.5, fault.limit_data(100), seed=1),
        ["sometimes", 0.5, ["limit_data", 100], {"seed": 1}],
        "sometimes(0.5, limit_data(100), seed=1)",
    ),
    (
        fault.first(2, fault.sometimes(0.1, fault.reset())),
        ["first", 2, ["sometimes", 0.1, ["reset"]]],
        "first(2, sometimes(0.1, reset()))",
    ),
]


@pytest.mark.parametrize(("made", "form", "text"), EXAMPLES, ids=[t for _, _, t in EXAMPLES])
def test_file_form_and_repr(made: fault.Fault, form: list[Any], text: str) -> None:
    """to_args() writes the file form, from_args() reads it back, repr reads like the call."""
    assert made.to_args() == form  # type: ignore[attr-defined]  # our faults have to_args
    assert fault.from_args(form) == made
    assert repr(made) == text


def test_every_public_fault_is_registered_and_has_an_example() -> None:
    """FAULTS names each constructor of fault.__all__, and each has a round-trip example."""
    constructors = {
        name
        for name in fault.__all__
        if name.islower() and name != "from_args" and callable(getattr(fault, name))
    }
    assert set(fault.FAULTS) == constructors
    assert {form[0] for _, form, _ in EXAMPLES} == constructors
    for name, make in fault.FAULTS.items():
        assert make is getattr(fault, name)
        assert make.__doc__, name


def test_fault_module_all_is_sorted() -> None:
    """The public names are listed once, sorted."""
    assert fault.__all__ == sorted(set(fault.__all__))


def test_file_form_reads_tuples_and_yaml_style_keywords() -> None:
    """A nested fault may be a tuple; keywords come in a trailing mapping."""
    made = fault.from_args(("first", 1, ("stall", {"after_bytes": 10})))
    assert made == fault.first(1, fault.stall(after_bytes=10))


@pytest.mark.parametrize(
    ("form", "message"),
    [
        (["explode"], "unknown fault 'explode'\nknown faults: close_after_events, "),
        ([], "fault [] must be a list: [name, arg, ...]"),
        ("reset", "fault 'reset' must be a list"),
        ([42], "unknown fault 42"),
        (["limit_data"], "fault 'limit_data' takes 1 argument, found 0\n  expected: [limit"),
        (["reset", 1], "fault 'reset' takes 0 arguments, found 1\n  expected: [reset]"),
        (
            ["limit_data", 1, {"unit": "x"}],
            "unknown option 'unit' of fault 'limit_data' — did you mean 'count'?",
        ),
        (["limit_data", -1], "n=-1 must be a non-negative int"),
        (["sometimes", 2, ["reset"]], "p=2 must be a probability from 0 to 1"),
        (["first", 1, ["nope"]], "unknown fault 'nope'"),
        (["latency", "fast"], "seconds='fast' is not a duration"),
    ],
)
def test_bad_file_forms_raise_config_error(form: Any, message: str) -> None:
    """Unknown names, wrong arity and bad values are refused with the fault named."""
    with pytest.raises(ConfigError) as caught:
        fault.from_args(form)
    assert message in str(caught.value)


def test_a_custom_fault_nests_but_has_no_file_form() -> None:
    """sometimes() accepts any object with body and wire hooks, but cannot write it out."""

    class Passthrough:
        def body(self, steps: Any, ctx: Any) -> Any:
            return steps

        def wire(self, steps: Any, ctx: Any) -> Any:
            return steps

    made = fault.sometimes(0.5, Passthrough())
    with pytest.raises(ConfigError, match="has no file form"):
        made.to_args()


def test_constructors_take_options_by_keyword_only() -> None:
    """Options (count, seed, delay, at, after_*) are keyword-only, so calls read clearly."""
    for name, make in fault.FAULTS.items():
        for param in inspect.signature(make).parameters.values():
            if param.default is not inspect.Parameter.empty:
                assert param.kind is inspect.Parameter.KEYWORD_ONLY, (name, param.name)


@pytest.mark.parametrize(("made", "form", "text"), EXAMPLES, ids=[t for _, _, t in EXAMPLES])
def test_a_mock_with_the_fault_round_trips_through_yaml(
    made: fault.Fault, form: list[Any], text: str
) -> None:
    """mock.to_yaml() writes the fault in its file form, and loading it gives it back."""
    mock = mockhttp.post("/v1/chat/completions").pipe(made).reply(mockhttp.ok().body("x"))
    (loaded,) = loads(mock.to_yaml())
    assert loaded.faults == (made,)
