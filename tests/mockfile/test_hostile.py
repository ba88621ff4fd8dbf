"""Hostile mock files and matchers: each is a located error or a no-match, never a crash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

import mockhttp
from mockhttp import ConfigError, match
from tests.helpers.cli_process import run


def _validate(tmp_path: Path, name: str, text: str) -> str:
    """``mockhttp validate`` on a file holding ``text``: its stderr (it must fail cleanly)."""
    file = tmp_path / name
    file.write_text(text, encoding="utf-8")
    result = run("validate", str(file))
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    return result.stderr + result.stdout


@pytest.mark.parametrize("path", ["", "garbage", "$[", " $", "$.a[?"])
def test_an_invalid_jsonpath_is_a_config_error(path: str) -> None:
    """An empty JSONPath crashed: formatting the library's error raised ValueError."""
    with pytest.raises(ConfigError, match=r"json_path path=.*(is empty|is not valid JSONPath)"):
        match.json_path(path, match.equal(1))


@pytest.mark.parametrize("path", ['""', "garbage", '"$["'])
def test_validate_locates_an_invalid_jsonpath(tmp_path: Path, path: str) -> None:
    """``[jsonpath, "", ...]`` in a file is a located error naming the field."""
    out = _validate(tmp_path, "m.yaml", f"request: {{body: [jsonpath, {path}, [equal, 1]]}}\n")
    assert "m.yaml:1:17 at request.body: json_path path=" in out, out


def _nested(depth: int, leaf: Any = 1) -> Any:
    """``[[...[leaf]...]]``, ``depth`` lists deep, built without recursion."""
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def _nested_text(depth: int, leaf: int = 1) -> str:
    """``_nested`` as JSON text (``json.dumps`` itself recurses)."""
    return "[" * depth + str(leaf) + "]" * depth


@pytest.mark.parametrize("ignore_extra", [False, True])
def test_json_equal_on_a_deep_body_is_compared_not_a_500(
    server: mockhttp.Server, ignore_extra: bool
) -> None:
    """json_equal with a 600-deep expected value recursed in its comparison: a 500 with a
    RecursionError.  It is compared with a stack: the same body matches, another misses."""
    flag = "{ignore_extra: true}" if ignore_extra else ""
    text = f"request: {{body: [json_equal, {_nested_text(600)}, {flag}]}}\n"
    text = text.replace(", ]", "]")
    server.mock(mockhttp.loads(text + "response: {body: matched}\n"))
    same = httpx.post(server.url + "/x", content=_nested_text(600))
    assert (same.status_code, same.text) == (200, "matched")
    other = httpx.post(server.url + "/x", content=_nested_text(600, 2))
    assert other.status_code == 404, other.text
    assert "got 2, expected 1" in other.text, other.text
    shallower = httpx.post(server.url + "/x", content=_nested_text(599))
    assert shallower.status_code == 404, shallower.text
    assert "got 1, expected [1]" in shallower.text, shallower.text


def test_json_equal_in_python_compares_deep_values() -> None:
    """The Python API, past Python's recursion limit."""
    deep = _nested(5_000)
    assert match.json_equal(deep).matches(_nested(5_000))
    assert match.json_equal(deep, ignore_extra=True).matches(_nested(5_000))
    why = match.json_equal(deep).explain(_nested(5_000, 2))
    assert why is not None
    assert why.endswith("got 2, expected 1"), why


def test_json_equal_refuses_what_is_not_json_however_deep() -> None:
    """The JSON check walks with a stack too: a set deep inside, or a value inside itself."""
    with pytest.raises(ConfigError, match="is not JSON: Object of type set"):
        match.json_equal(_nested(5_000, {1}))
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ConfigError, match="is not JSON: Circular reference"):
        match.json_equal(loop)


@pytest.mark.parametrize(
    ("text", "where", "tag", "kind"),
    [
        (
            "response: !!python/object:os.system {}\n",
            "1:11 at response",
            "!!python/object",
            "mapping",
        ),
        ("response: !foo {}\n", "1:11 at response", "!foo", "mapping"),
        ("response: {json: !foo {a: 1}}\n", "1:18 at response.json", "!foo", "mapping"),
        ("response: {json: !foo [1]}\n", "1:18 at response.json", "!foo", "list"),
        ("response: !!set {a: null}\n", "1:11 at response", "!!set", "mapping"),
        ("response:\n  json: !!omap [{a: 1}]\n", "2:9 at response.json", "!!omap", "list"),
    ],
)
def test_a_tag_on_a_mapping_or_list_is_refused(
    tmp_path: Path, text: str, where: str, tag: str, kind: str
) -> None:
    """Tags on mappings and lists were silently ignored (a file with
    ``!!python/object:os.system {}`` validated ok); they are refused as on plain values."""
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.loads(text, "m.yaml")
    assert str(caught.value).startswith(f"m.yaml:{where}: found the tag '{tag}"), caught.value
    assert f"on a {kind}; tags (!name) are not part of mock files" in str(caught.value)
    assert f"m.yaml:{where}: found the tag" in _validate(tmp_path, "m.yaml", text)


def test_the_plain_tags_of_mappings_and_lists_still_load() -> None:
    """``!!map`` and ``!!seq`` are what a mapping and a list are anyway."""
    (mock,) = mockhttp.loads("response: !!map {json: !!seq [1]}\n")
    assert mock is not None


def test_a_long_number_in_a_json_file_is_located(tmp_path: Path) -> None:
    """A 10,000-digit number in a .json file had no position nor field (the YAML form had)."""
    text = '{"response": {"json": {"a": ' + "9" * 10_000 + "}}}"
    out = _validate(tmp_path, "m.json", text)
    assert out.startswith(f"{tmp_path / 'm.json'}:1:29 at response.json: found a number"), out
    assert "of 10,000 digits that Python refuses to read" in out, out
    with pytest.raises(mockhttp.MockfileError, match="1:29: found a number of 5,000 digits"):
        mockhttp.loads('{"response": {"json": {"a": -' + "9" * 5_000 + "}}}", syntax="json")


def test_a_matcher_chain_too_deep_to_build_is_located(tmp_path: Path) -> None:
    """A [not, ...] chain 300 deep was "nested too deep" with no position."""
    text = "request: {body: " + "[not, " * 300 + "[equal, 1]" + "]" * 300 + "}\n"
    out = _validate(tmp_path, "m.yaml", text)
    assert f"{tmp_path / 'm.yaml'}:1:1817 at request.body[1][1]" in out, out
    assert "found a structure nested too deep to read (303 levels)" in out, out
    with pytest.raises(mockhttp.MockfileError, match=r"^m.yaml:1:1817 at request\.body\[1\]"):
        mockhttp.loads(text, "m.yaml")
