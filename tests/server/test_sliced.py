"""The ``--workers`` hub's JSON, read and written a list item at a time
(``_server/_sliced.py``): the values and bytes of ``json.loads`` and ``json.dumps``."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mockhttp._server._sliced import BIG, dumps, loads

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def compact(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), st.lists(VALUES, max_size=5) | VALUES, max_size=5) | VALUES)
def test_dumps_writes_the_bytes_of_json_dumps(value: Any) -> None:
    assert dumps(value) == compact(value)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(), st.lists(VALUES, max_size=5) | VALUES, max_size=5))
def test_loads_of_a_big_text_reads_the_values_of_json_loads(value: Any) -> None:
    """Past ``BIG`` bytes the lists are read an item at a time (padded here to get there)."""
    pad = " " * BIG
    for text in (compact(value), json.dumps(value, indent=1).encode()):
        assert loads(text) == json.loads(text)
        assert loads(pad.encode() + text + pad.encode()) == json.loads(text)


def test_a_big_answer_of_many_mocks_round_trips() -> None:
    answer = {"mocks": [{"id": n, "name": f"m{n}", "call_count": 0} for n in range(40_000)]}
    data = dumps(answer)
    assert len(data) > BIG
    assert data == compact(answer)
    assert loads(data) == answer


@pytest.mark.parametrize(
    "bad", [b'{"mocks": [1, 2', b'{"mocks": [1 2]}', b'{"a": 1} x', b"\xff\xfe", b"[1,]"]
)
def test_what_json_loads_refuses_loads_refuses_too(bad: bytes) -> None:
    padded = bad[:1] + b" " * BIG + bad[1:]
    for text in (bad, padded):
        with pytest.raises(ValueError, match=r"\S") as expected:
            json.loads(text)
        with pytest.raises(type(expected.value), match=r"\S"):
            loads(text)
