"""A buffered answer is parsed for the rules: their findings as on the whole tree, in a
fraction of its memory (``contract/_answer.py``)."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from mockhttp.contract.__main__ import main
from mockhttp.contract._answer import parse_answer
from tests.contract.test_tokens import GOOD, buffered, findings, lp, stream

ENTRY = {"token": "ab", "logprob": -0.25, "bytes": [97, 98], "top_logprobs": []}


@pytest.mark.parametrize(
    "answer",
    [
        buffered("Hello, world", lp("Hello", ",", " world"), 3),  # passes
        buffered("Hello, world", lp("Hello", " world"), 2),  # tokens that do not spell it
        buffered("Hello, world", lp("Hello", ",", " world"), 4),  # a count that is off
        buffered("Hi", {"content": [{"token": 7, "logprob": -1.0}]}, 1),  # a token not text
        buffered("Hi", {"content": [{"logprob": -1.0}]}, 1),  # no token at all
        buffered("Hi", None, 1),  # no logprobs
    ],
)
def test_the_rules_find_the_same_in_the_parsed_answer_as_in_the_whole_tree(answer: Any) -> None:
    body = stream(*GOOD, completion=3)
    slim = parse_answer(json.dumps(answer).encode())
    assert findings(body, buffered=slim) == findings(body, buffered=answer)


def test_an_answer_of_many_small_logprob_entries_costs_a_fraction_of_its_tree() -> None:
    """The issue's shape, scaled down: ~6 MiB of ``logprobs.content`` entries.  As a whole
    tree (``json.loads``) it holds ~6x its text; the entries the rules read are one shared
    object a distinct token (3,000 of them here)."""
    n = 80_000
    tokens = [f"t{i % 3000}" for i in range(n)]
    content = [{**ENTRY, "token": token} for token in tokens]
    answer = buffered("".join(tokens), {"content": content}, n)
    text = json.dumps(answer).encode()

    def peak(parse: Any) -> int:
        tracemalloc.start()
        tree = parse(text)
        _, most = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert tree["usage"]["completion_tokens"] == n
        return most

    whole, slim = peak(json.loads), peak(parse_answer)
    assert whole > 4 * len(text)
    assert slim < 2 * len(text), (slim, len(text))  # (1.3x: the decoded text and the rest)


def test_check_buffered_reports_as_before(tmp_path: Path, capsys: Any) -> None:
    """``mockhttp check --buffered FILE`` reads it that way, with the same findings."""
    (tmp_path / "stream.txt").write_bytes(stream(*GOOD, completion=3))
    (tmp_path / "ask.json").write_text(json.dumps({"model": "m", "logprobs": True,
                                                   "stream": True}))  # fmt: skip
    bad = buffered("Hello, world", lp("Hello", " world"), 2)
    (tmp_path / "answer.json").write_text(json.dumps(bad))
    argv = ["--body", str(tmp_path / "stream.txt"), "--request", str(tmp_path / "ask.json")]
    assert main([*argv, "--buffered", str(tmp_path / "answer.json")]) == 1
    assert 'the logprobs.content tokens join to "Hello world"' in capsys.readouterr().out
