"""Mocks that can never answer: each request they match, a mock ranked above them takes.

Rule 1: a mock *takes every request* of its method and path when nothing else of the
request can turn it down: no query, header or body matcher, no method matcher, no scenario,
no ``times`` and no replies that run out (a standalone kind with no ``request:`` of its
own, such as a conversation, is one: it takes every POST to the LLM paths).
Rule 2: such a mock hides every mock ranked below it (a lower priority, or the same
priority and added before it) whose method is its method (or it takes any method) and whose
path is its path, spelt the same (or it takes any path).
Pure: the CLI says it (``serve``, ``validate``); nothing is refused, since a mock file may
mean to override another.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from ._mock import Mock

__all__ = ["shadowed", "takes_every_request"]


def takes_every_request(mock: Mock) -> bool:
    """Rule 1."""
    return (
        not mock.criteria
        and mock.method_matcher is None
        and mock.scenario_of is None
        and mock.answers is None
        and (not mock.sequence or mock.exhausted == "repeat")
    )


def shadowed(mocks: Sequence[Mock]) -> list[tuple[int, int]]:
    """``(hidden, by)`` index pairs of ``mocks`` (in the order they are added): Rule 2.
    Linear: the strongest taker of each method and path is kept, then each mock is looked
    up under its own four keys."""
    best: dict[tuple[str | None, Hashable], tuple[tuple[int, int], int]] = {}
    for i, mock in enumerate(mocks):
        if takes_every_request(mock):
            key = (mock.method, _path_key(mock))
            rank = (mock.priority, i)
            if key not in best or best[key][0] < rank:
                best[key] = (rank, i)
    found = []
    for i, mock in enumerate(mocks):
        rank = (mock.priority, i)
        path = _path_key(mock)
        keys = {(mock.method, path), (None, path), (mock.method, None), (None, None)}
        above = [best[k] for k in keys if k in best and best[k][0] > rank]
        if above:
            found.append((i, max(above)[1]))
    return found


def _path_key(mock: Mock) -> Hashable:
    path = mock.path
    if path is None or path == "*":
        return None
    return path if isinstance(path, str) else ("matcher", repr(path))
