"""The ``[name, arg, ..., {option: value}]`` form: one set of rules in Python and in files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import mockhttp
from mockhttp import ConfigError, MockfileError, fault
from mockhttp._core._forms import call_form, count_error, shape
from mockhttp._core._registry import Registry
from mockhttp.llm import openai_chat


def _window(start: int, size: int = 1, *parts: str, unit: str = "event") -> tuple[Any, ...]:
    return (start, size, parts, unit)


SHAPES: Registry[Any] = Registry("shape", {"window": _window})


def test_positional_then_options() -> None:
    assert call_form(["window", 3, {"unit": "byte"}], SHAPES) == (3, 1, (), "byte")
    assert call_form(("window", 3, 4, "a", "b"), SHAPES) == (3, 4, ("a", "b"), "event")


def test_a_trailing_mapping_is_an_argument_when_a_required_one_needs_it() -> None:
    """Rule 2: ``[window, {unit: byte}]`` has no start, so the mapping is the start."""
    assert call_form(["window", {"unit": "byte"}], SHAPES)[0] == {"unit": "byte"}


@pytest.mark.parametrize(
    ("form", "message"),
    [
        (
            ["window"],
            "shape 'window' takes at least 1 argument, found 0\n"
            "  expected: [window, start, size?, parts..., {unit: ...}]",
        ),
        (
            ["window", 1, {"units": "x"}],
            "unknown option 'units' of shape 'window' — did you mean 'unit'?\n"
            "  expected one of: unit",
        ),
        (["windw", 1], "unknown shape 'windw' — did you mean 'window'?\nknown shapes: window"),
        ("window", "shape 'window' must be a list: [name, arg, ...]"),
        ([], "shape [] must be a list: [name, arg, ...]"),
    ],
)
def test_what_a_bad_form_is_told(form: Any, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        call_form(form, SHAPES)
    assert str(caught.value) == message


def test_where_leads_every_message() -> None:
    with pytest.raises(ConfigError, match=r"^transforms\[2\]: unknown shape 'x'"):
        call_form(["x"], SHAPES, where="transforms[2]")


def test_count_error_is_none_when_the_count_fits() -> None:
    assert count_error("shape 'window'", "window", _window, 1) is None
    assert count_error("shape 'window'", "window", _window, 9) is None
    assert shape("limit_data", fault.FAULTS.get("limit_data")) == "[limit_data, n, {count: ...}]"


@pytest.mark.parametrize(
    ("form", "yaml_form"),
    [
        (["limit_data"], "[limit_data]"),
        (["reset", 1], "[reset, 1]"),
        (["limit_data", 1, {"cont": "wire"}], "[limit_data, 1, {cont: wire}]"),
    ],
)
def test_python_and_files_say_the_same(form: list[Any], yaml_form: str, tmp_path: Path) -> None:
    """A form fails with the same words from ``fault.from_args`` and from a mock file
    (which adds where it is)."""
    with pytest.raises(ConfigError) as in_python:
        fault.from_args(form)
    path = tmp_path / "m.yaml"
    path.write_text(f"request: {{method: GET, path: /x}}\nresponse: {{pipe: [{yaml_form}]}}\n")
    with pytest.raises(MockfileError) as in_file:
        mockhttp.load(path)
    assert str(in_python.value) in str(in_file.value)
    assert f"{path}:2:" in str(in_file.value)


def test_llm_transforms_read_the_same_form() -> None:
    with pytest.raises(ConfigError) as caught:
        openai_chat("Hi", transforms=[["rename_evnt"]])
    assert str(caught.value).startswith("transforms[0]: unknown transform 'rename_evnt'")
