"""A value of the wrong type anywhere in a mock file is a located MockfileError (issue 19).

The property test takes the built-in mocks, the docs' mock files and a file with every form
(tests/mockfile/data/every_form.yaml), puts a value of a wrong type at a random place and
loads it as YAML and as JSON (the admin API's way): it loads or fails with a
MockfileError, never another exception.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mockhttp
from mockhttp import MockfileError
from tests.helpers.cli_process import run

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"^```yaml\n(.*?)^```$", re.S | re.M)


def _samples() -> list[Any]:
    """Every mock document (as data) of the built-in mocks, the docs and every_form.yaml."""
    texts = [p.read_text() for p in sorted((ROOT / "src/mockhttp/defaults").glob("*.yaml"))]
    texts.append((Path(__file__).parent / "data/every_form.yaml").read_text())
    for page in sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")]):
        for text in _BLOCK.findall(page.read_text()):
            try:
                mockhttp.loads(text)
            except MockfileError:
                continue  # not a mock file (a CI config, say)
            texts.append(text)
    return [doc for text in texts for doc in yaml.safe_load_all(text) if doc is not None]


SAMPLES = _samples()


def _places(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The path of every value inside ``value`` (itself included)."""
    found = [at]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(_places(item, (*at, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(_places(item, (*at, i)))
    return found


def _replaced(doc: Any, at: tuple[Any, ...], new: Any) -> Any:
    if not at:
        return new
    doc = copy.deepcopy(doc)
    parent = doc
    for step in at[:-1]:
        parent = parent[step]
    parent[at[-1]] = new
    return doc


WRONG: st.SearchStrategy[Any] = st.sampled_from(
    [
        5,
        -1,
        0,
        1.5,
        True,
        None,
        "text",
        "",
        [],
        [1, 2],
        [None],
        [{"a": 1}],
        {},
        {"a": 1},
        {"text": 5},
        [[1]],
    ]
) | st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=4), inner, max_size=2)
    ),
    max_leaves=4,
)


@st.composite
def mutants(draw: st.DrawFn) -> Any:
    doc = draw(st.sampled_from(SAMPLES))
    at = draw(st.sampled_from(_places(doc)))
    return _replaced(doc, at, draw(WRONG))


def _loads_or_mockfile_error(text: str, **options: Any) -> None:
    with contextlib.suppress(MockfileError):
        mockhttp.loads(text, "mutant", **options)


def test_the_samples_cover_every_kind_of_mock() -> None:
    keys = {k for doc in SAMPLES for k in json.dumps(doc).split('"')}
    for key in (
        "openai_chat",
        "anthropic_messages",
        "gemini",
        "conversation",
        "mcp",
        "recording",
        "models",
        "capacity",
        "replies",
        "pipe",
        "scenario",
        "tool_calls",
    ):
        assert key in keys


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_a_wrong_typed_value_anywhere_is_a_mockfile_error(doc: Any) -> None:
    _loads_or_mockfile_error(yaml.safe_dump(doc, allow_unicode=True))
    _loads_or_mockfile_error(json.dumps(doc), syntax="json")


@pytest.mark.parametrize(
    ("text", "where", "expected"),
    [
        (
            "response: {openai_chat: {text: Hi, tool_calls: 5}}",
            "1:48 at response.openai_chat.tool_calls",
            "found an int 5, expected a list",
        ),
        ("response: {models: ~}", "1:20 at response.models", "found null, expected a list"),
        (
            "response: {models: [gpt, 5]}",
            "1:26 at response.models[1]",
            "found an int 5, expected text",
        ),
        (
            "conversation: [{text: Hi, tool_calls: 5}]",
            "1:39 at conversation[0].tool_calls",
            "must be a list of tool calls",
        ),
        ("conversation: {}", "1:15 at conversation", "conversation: missing key 'turns'"),
        (
            "response: {openai_chat: {text: {a: 1}}}",
            "1:32 at response.openai_chat.text",
            "found a mapping, expected text or a list",
        ),
        (
            "response: {openai_chat: {text: Hi, capacity: [1]}}",
            "1:46 at response.openai_chat.capacity",
            "capacity",
        ),
        (
            "response: {openai_chat: {usage: [1]}}",
            "1:33 at response.openai_chat.usage",
            "found a list, expected a mapping",
        ),
        (
            "response: {recording: {writes: 5}}",
            "1:32 at response.recording.writes",
            "found an int 5, expected a list",
        ),
        (
            "response: {mcp: {tools: [{name: t, answers: [{error: 5}]}]}}",
            "1:54 at response.mcp.tools[0].answers[0].error",
            "must be {code: int, message: text}",
        ),
        (
            "response: {mcp: {tools: {name: t}}}",
            "1:25 at response.mcp.tools",
            "found a mapping, expected a list",
        ),
        (
            "response: {status: 200, pipe: [[limit_data, [1]]]}",
            "1:45 at response.pipe[0][1]",
            "found a list, expected an int",
        ),
        ("replies: 5", "1:10 at replies", "found an int 5, expected a list of responses"),
        (
            "request: {path: /x}\nresponse: {event_stream: {events: [{data: x, retry: {}}]}}",
            "2:53 at response.event_stream.events[0].retry",
            "expected an int",
        ),
    ],
)
def test_named_wrong_types_are_located(text: str, where: str, expected: str) -> None:
    with pytest.raises(MockfileError) as caught:
        mockhttp.loads(text, "m.yaml")
    assert str(caught.value).startswith(f"m.yaml:{where}: ")
    assert expected in str(caught.value)


def test_validate_names_the_place_and_what_was_expected(tmp_path: Path) -> None:
    (tmp_path / "llm.yaml").write_text(
        "request: {path: /v1/chat/completions}\nresponse:\n  openai_chat: {tool_calls: 5}\n"
    )
    (tmp_path / "models.yaml").write_text("response:\n  models: ~\n")
    done = run("validate", str(tmp_path))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert (
        f"{tmp_path / 'llm.yaml'}:3:29 at response.openai_chat.tool_calls: "
        "found an int 5, expected a list"
    ) in done.stderr
    assert f"{tmp_path / 'models.yaml'}:2:11 at response.models: found null, expected a list" in (
        done.stderr
    )


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ("response: {openai_chat: {tool_calls: 5}}", "application/yaml"),
        ('{"response": {"models": null}}', "application/json"),
        ('{"conversation": [{"tool_calls": {"name": "f"}}]}', "application/json"),
    ],
)
def test_the_admin_api_answers_400_with_the_reason(body: str, content_type: str) -> None:
    with mockhttp.Server(admin=True) as server:
        answer = httpx.post(
            server.url + "/__mockhttp/mocks", content=body, headers={"Content-Type": content_type}
        )
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["type"] == "mockfile_error"
    assert "expected a list" in error["message"] or "must be a list" in error["message"]
