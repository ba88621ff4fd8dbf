"""A JSON body matched by JSONPath leaves nothing behind for the garbage collector."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from mockhttp import Request, match
from mockhttp._core._sse_decode import Line
from mockhttp.contract._rule import short


@pytest.fixture
def no_gc() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _matches_alive() -> int:
    return sum(type(o).__name__ == "JSONPathMatch" for o in gc.get_objects())


@pytest.mark.parametrize("path", ["$.model", "$.messages[*].role", "$.messages[0]"])
def test_json_path_leaves_no_cycle_holding_the_body(no_gc: None, path: str) -> None:
    # python-jsonpath's matches link parent and children and hold the whole document:
    # a cycle that kept a parsed 10 MiB body alive until a full collection
    request = Request("POST", "/", body=b'{"model": "m", "messages": [{"role": "user"}]}')
    assert match.json_path(path).matches(request)
    assert _matches_alive() == 0


def test_short_quotes_the_start_of_a_long_value_as_of_the_whole() -> None:
    text = "é" * 50 + '"' + "x" * 100_000
    assert short(text) == short(text[:1000]) == short(text.encode())
    assert short(text).endswith("...")
    assert len(short(text)) == 60


def test_a_long_lines_start_is_its_texts_start() -> None:
    line = Line(b"\xef\xbb\xbf" + "ü".encode() * 1000 + b"\xff", b"", 0, None, True)
    assert line.text.startswith(line.text_start(60))
    assert len(line.text_start(60)) >= 60
