"""``serve DIR --record-missing --upstream URL``: the flags a user may combine, the error
for each combination that cannot work, and the fallback kept last across reloads
(``_cli._missing``; the recording itself is tested in tests/record/test_missing.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import mockhttp
from mockhttp._cli._missing import add_arguments, problem, with_fallback


def parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="mockhttp serve", exit_on_error=False)
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--workers")
    add_arguments(parser)
    return parser.parse_args(argv)


def test_the_flags_are_off_by_default(tmp_path: Path) -> None:
    args = parsed(str(tmp_path))
    assert (args.record_missing, args.upstream) == (False, None)
    assert problem(args, [tmp_path]) is None


def test_record_missing_with_an_upstream_and_one_folder_is_fine(tmp_path: Path) -> None:
    args = parsed(str(tmp_path), "--record-missing", "--upstream", "http://127.0.0.1:9")
    assert problem(args, [tmp_path]) is None


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--upstream", "http://x"], "--upstream URL is for --record-missing"),
        (["--record-missing"], "--record-missing needs --upstream URL: where the requests"),
        (
            ["--record-missing", "--upstream", "http://x", "--workers", "2"],
            "--record-missing records from one process: leave out --workers",
        ),
    ],
)
def test_each_combination_that_cannot_work_says_why(
    tmp_path: Path, extra: list[str], message: str
) -> None:
    found = problem(parsed(str(tmp_path), *extra), [tmp_path])
    assert found is not None
    assert found.startswith(message)


def test_the_recordings_need_one_folder(tmp_path: Path) -> None:
    one_file = tmp_path / "m.yaml"
    one_file.write_text("request: {path: /x}\n")
    flags = ("--record-missing", "--upstream", "http://x")
    expected = "--record-missing needs one PATH, the directory the recordings are written to"
    assert problem(parsed(str(one_file), *flags), [one_file]) == expected
    two = parsed(str(tmp_path), str(tmp_path / "b"), *flags)
    assert problem(two, [tmp_path, tmp_path / "b"]) == expected


def test_the_fallback_stays_last_after_each_expansion() -> None:
    fallback = mockhttp.request(None, name="record-missing")
    doubled = with_fallback(lambda mocks: [*mocks, *mocks], fallback)
    mocks = [mockhttp.get("/a"), mockhttp.get("/b")]
    assert [m.describe() for m in doubled(mocks)] == [
        "GET /a", "GET /b", "GET /a", "GET /b", "'record-missing'",
    ]  # fmt: skip
    assert doubled([])[-1] is fallback
