"""The common mock is built from its parsed value (``_mockfile/_quick.py``, issue 19): the
same mock as the walk over its nodes builds, and every error still the walk's, placed."""

from __future__ import annotations

import json

import pytest
import yaml

from mockhttp import loads
from mockhttp._core._errors import MockfileError
from mockhttp._core._mock import Mock
from mockhttp._mockfile._load import _documents, _mock_of

COMMON = """\
- name: a
  priority: 3
  times: 2
  request: {method: post, path: '/x/{id}', header: {X-A: 1, x-b: true, x-c: null},
            query: {q: 1.5, r: s}}
  response: {status: 201, header: {A: [1, b], C: d}, json: {k: [1, 2.5, null, {z: x}]}}
- request: {path: /y, query: {z: ''}}
  response: {body: hi, header: {Retry-After: 3}}
- response: {status: 404}
- {}
- request: {method: GET, path: /z}
  response: {json: [1, "2"]}
  pipe: [[limit_data, 2]]
"""


def walked(text: str) -> list[Mock]:
    """The mocks as the walk over the nodes builds them, one by one."""
    return [_mock_of(item) for doc in _documents(text, "s") for item in doc.elements("mocks")]


def test_the_common_mocks_are_those_the_walk_builds() -> None:
    expected = walked(COMMON.replace("  pipe: [[limit_data, 2]]\n", ""))
    text = COMMON.replace("  pipe: [[limit_data, 2]]\n", "")
    assert loads(text) == expected
    assert loads(json.dumps(yaml.safe_load(text)), syntax="json") == expected
    assert [m.name for m in expected] == ["a", None, None, None, None]
    assert len(expected[0].criteria) == 5


def test_what_it_does_not_build_goes_the_long_way() -> None:
    """A key it does not know (``pipe`` on a response: here on the mock, refused), and a
    matcher form, are read by the walk."""
    with pytest.raises(MockfileError, match="unknown key 'pipe'"):
        loads(COMMON)
    text = "- request: {path: /a, header: {x: [regex, '^a']}}\n"
    assert loads(text) == walked(text)


CASES = [  # (each message's start)
    (
        "- request: {method: 'G T', path: /a}\n",
        "s:1:21 at [0].request.method: method='G T' must be an HTTP m",
    ),
    ("- request: {path: a}\n", "s:1:19 at [0].request.path: path='a' must start with '/'"),
    ("- request: {path: /a?b=1}\n", "s:1:19 at [0].request.path: path '/a?b=1' has a query, which"),
    (
        "- request: {header: {X-A: 1, x-a: 2}}\n",
        "s:1:30 at [0].request.header.x-a: duplicate key 'x-a' (alrea",
    ),
    (
        "- request: {path: /a, path: /b}\n",
        "s:1:23 at [0].request.path: duplicate key 'path' (already gi",
    ),
    (
        "- response: {json: {at: 2024-01-02}}\n",
        "s:1:25 at [0].response.json.at: found a date 2024-01-02, exp",
    ),
    (
        "- response: {status: '200'}\n",
        "s:1:22 at [0].response.status: found text '200', expected an",
    ),
    (
        "- response: {header: {A: true}}\n",
        "s:1:26 at [0].response.header.A: found true, expected text o",
    ),
    (
        "- name: a\n- name: b\n- name: a\n",
        "s:3:9 at [2].name: a mock named 'a' is already defined at s:",
    ),
    (
        '[{"name": "a"}, {"name": "a"}]',
        "s:1:26 at [1].name: a mock named 'a' is already defined at s",
    ),
    ('[{"request": {"path": "a"}}]', "s:1:23 at [0].request.path: path='a' must start with '/'"),
]


@pytest.mark.parametrize(("text", "error"), CASES)
def test_errors_are_the_walks(text: str, error: str) -> None:
    """Each message as it was before the shortcut (taken from the commit before it)."""
    with pytest.raises(MockfileError) as raised:
        loads(text, "s", syntax="json" if text.startswith("[") else None)
    assert str(raised.value).startswith(error)
