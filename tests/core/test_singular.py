"""Singular JSONPath queries walked without the library (``_core/_singular.py``) select
what python-jsonpath selects in strict (RFC 9535) mode, for any document; the queries it
does not read are left to the library."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from mockhttp import match
from mockhttp._core import _match
from mockhttp._core._singular import NOTHING, steps, walk

_KEYS = st.sampled_from(["a", "b", "model", "_x", "0", "a b", "é"])
_DOCS = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "ab", "xyz"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=12,
)
_SEGMENTS = st.sampled_from(
    [".a", ".b", ".model", "._x", "[0]", "[1]", "[-1]", "[-4]", "[3]", "['a']", '["b"]',
     "['a b']", "['0']", "['é']", '[""]']
)  # fmt: skip


def _library(path: str, doc: Any) -> Any:
    """What the library selects: the one node's value, or NOTHING."""
    nodes = [m.obj for m in _match._jsonpath().compile(path).finditer(doc)]
    assert len(nodes) <= 1, f"{path} is singular, yet selected {nodes}"
    return nodes[0] if nodes else NOTHING


@given(doc=_DOCS, segments=st.lists(_SEGMENTS, max_size=4))
@example(doc={"messages": [{"content": "hi"}, {"content": "last"}]}, segments=[])
@example(doc=[1, 2], segments=["[-3]"])
@example(doc={"0": "key"}, segments=["[0]"])
@example(doc="abc", segments=["[0]"])
def test_a_walk_selects_what_the_library_selects(doc: Any, segments: list[str]) -> None:
    path = "$" + "".join(segments)
    read = steps(path)
    assert read is not None, path
    assert walk(doc, read) == _library(path, doc)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("$", ()),
        ("$.model", ("model",)),
        ("$.messages[-1].content", ("messages", -1, "content")),
        ("$['tool choice'][0]", ("tool choice", 0)),
        ('$["a"]["b"]', ("a", "b")),
    ],
)
def test_singular_queries_are_read_into_steps(path: str, expected: tuple[Any, ...]) -> None:
    assert steps(path) == expected


@pytest.mark.parametrize(
    "path",
    ["$..model", "$.messages[*]", "$.a[0:2]", "$[?@.a]", "$.a[0,1]", "$[ 0 ]", "$['a\\'b']",
     "$.é", "$.a.*", "$['a','b']", "$[-0]"],
)  # fmt: skip
def test_other_queries_are_left_to_the_library(path: str) -> None:
    assert steps(path) is None


def test_json_path_matchers_answer_alike_either_way() -> None:
    """The matcher gives the same selection, match and explanation for a singular query
    (walked) and its non-singular twin (the library: a one-name union)."""
    body = json.loads('{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}')
    for walked, library in [
        ("$.model", "$['model','nope']"),
        ("$.messages[-1].content", "$.messages[-1]['content','nope']"),
        ("$.missing", "$['missing','nope']"),
    ]:
        assert steps(walked) is not None
        assert steps(library) is None
        for expected in ("gpt-4o", "hi", match.exists(), match.absent()):
            one = match.json_path(walked, expected)
            two = match.json_path(library, expected)
            assert one.select(body) == two.select(body)
            assert one.matches(body) == two.matches(body)
            assert (one.explain(body) is None) == (two.explain(body) is None)


_LEAVES = st.sampled_from(["ab", "a", "", 1, True, None, [1, "ab"], {"a": 1}])
_MATCHERS = st.recursive(
    st.builds(match.equal, _LEAVES)
    | st.builds(match.contains, _LEAVES)
    | st.sampled_from([match.regex("^a"), match.starts_with("a"), match.ends_with("b"),
                       match.exists(), match.absent()]),
    lambda inner: st.builds(match.json_path, st.sampled_from(["$.a", "$[0]", "$..a"]), inner)
    | st.builds(match.not_, inner)
    | st.lists(inner, min_size=1, max_size=3).map(lambda ms: match.any_of(*ms))
    | st.lists(inner, min_size=1, max_size=3).map(lambda ms: match.all_of(*ms)),
    max_leaves=4,
)  # fmt: skip


@given(matcher=_MATCHERS, doc=_DOCS, as_body=st.booleans())
@example(matcher=match.json_path("$.a", match.absent()), doc=None, as_body=True)
@example(matcher=match.json_path("$..a", match.equal("ab")), doc=None, as_body=False)
@example(matcher=match.json_path("$..a", match.equal("ab")), doc=5, as_body=True)
def test_matches_agrees_with_explain(matcher: Any, doc: Any, as_body: bool) -> None:
    """Each matcher's ``matches`` (which the router calls, and builds no message) is true
    exactly when its ``explain`` gives no reason; on values and on request bodies (a body
    that is not JSON included: ``doc=None`` as an empty body)."""
    from mockhttp._core._request import Request

    value: Any = doc
    if as_body:
        body = b"" if doc is None else json.dumps(doc).encode()
        value = Request("POST", "/", body=body)
    assert matcher.matches(value) == (matcher.explain(value) is None)
