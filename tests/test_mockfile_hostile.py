"""Hostile mock files and matchers: each is a located error or a no-match, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from mockhttp import ConfigError, match
from tests.cli_process import run


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
