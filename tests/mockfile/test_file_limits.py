"""Mock files too large or folders too deep fail early, with a clear error (issue 19)."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

import mockhttp
from mockhttp import MockfileError
from mockhttp._mockfile._load import MAX_FILE_BYTES, MAX_FOLDER_DEPTH, file_problems
from tests.helpers.cli_process import run
from tests.helpers.folders import deep_folder, remove_deep

ONE = "---\nrequest: {path: /p}\nresponse: {body: b}\n"  # 9 nodes


def test_a_file_over_the_node_limit_is_too_large(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(ONE * 10)  # 90 nodes
    monkeypatch.setenv("MOCKHTTP_MAX_NODES", "90")
    assert len(mockhttp.load(path)) == 10
    monkeypatch.setenv("MOCKHTTP_MAX_NODES", "89")
    with pytest.raises(MockfileError) as caught:
        mockhttp.load(path)
    assert str(caught.value) == (
        f"{path}: too large: at least 90 nodes, over the limit of 89 nodes (values, lists "
        "and mappings); split it into several files, or raise the limit with "
        "$MOCKHTTP_MAX_NODES (docs/limits.md)"
    )
    assert [str(e) for e in file_problems(path)] == [str(caught.value)]
    monkeypatch.setenv("MOCKHTTP_MAX_NODES", "many")
    with pytest.raises(MockfileError, match=r"MOCKHTTP_MAX_NODES='many': expected a positive"):
        mockhttp.load(path)


def test_the_node_limit_stops_before_the_rest_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Documents are counted as they are composed: a syntax error after the limit is
    never reached."""
    path = tmp_path / "m.yaml"
    path.write_text(ONE * 20 + "---\n{unclosed\n")
    monkeypatch.setenv("MOCKHTTP_MAX_NODES", "50")
    with pytest.raises(MockfileError, match=r"too large: at least 54 nodes"):
        mockhttp.load(path)


def test_a_file_over_the_byte_limit_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(ONE * 3)
    monkeypatch.setenv("MOCKHTTP_MAX_FILE_BYTES", str(len(ONE) * 3 - 1))
    with pytest.raises(MockfileError, match=r"too large: 132 bytes, over the limit of 131 bytes"):
        mockhttp.load(path)


def test_validate_refuses_a_fifty_megabyte_file_of_small_mocks_at_once(tmp_path: Path) -> None:
    """50 MB of a million small mocks took 147 s and ended in a MemoryError."""
    path = tmp_path / "big.yaml"
    with path.open("w") as out:
        for _ in range(50):
            out.write(ONE * (1_000_000 // 50))
    assert path.stat().st_size > MAX_FILE_BYTES
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = run("validate", str(path))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # its CPU, not the wall: on a loaded machine the interpreter's start-up alone took 15 s
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert cpu < 10, cpu
    assert done.returncode == 1
    assert f"{path}: too large: 44,000,000 bytes, over the limit of 33,554,432 bytes" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr


def test_a_folder_too_deep_is_a_clear_error(tmp_path: Path) -> None:
    """1,100 levels gave a RecursionError traceback in validate and serve."""
    (tmp_path / "top.yaml").write_text(ONE)
    (deep_folder(tmp_path, MAX_FOLDER_DEPTH) / "ok.yaml").write_text(ONE)
    assert len(mockhttp.load(tmp_path)) == 2  # at the limit: read
    (tmp_path / "e").mkdir()
    (deep_folder(tmp_path / "e", 1100) / "deep.yaml").write_text(ONE)
    try:
        for command in (["validate"], ["serve", "--port", "0"]):
            done = run(*command, str(tmp_path))
            assert done.returncode == 1, done.stderr
            assert "Traceback" not in done.stderr
            assert f"{tmp_path}: a folder nested more than 64 levels deep (at e/d/d/" in (
                done.stderr
            )
    finally:
        remove_deep(tmp_path / "e")
