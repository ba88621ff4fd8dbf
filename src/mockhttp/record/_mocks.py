"""Copies of a mock with one thing changed, every other field kept.

Replay under a variant's prefix, a variant's reply, a recorded call that now answers once:
each is ``dataclasses.replace``, so a handler (a reply kind such as ``llm.openai_chat``),
a ``replies:`` sequence, its ``exhausted`` rule, a scenario, and any field ``Mock`` gains
later stay as they were; ``Mock.__post_init__`` runs again, so the path's compiled
template follows a new path.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .._core._mock import Mock
from .._core._registry import ReplyKind
from .._core._reply import Reply

__all__ = ["answering_once", "replying", "under_prefix"]


def under_prefix(mock: Mock, prefix: str) -> Mock | None:
    """``mock`` answering under ``/prefix`` instead, as if it were served alone (None
    when its path is a matcher or any path: there is nothing to put the prefix before).

    A copy counts its own calls, as a mock does: its reply kinds are rebuilt (a kind
    numbers its replies, and ids follow the number), and its scenario is ``prefix/name``,
    so a client replaying a conversation under each prefix in turn gets the same bytes.
    """
    if not isinstance(mock.path, str) or mock.path == "*":
        return None
    scenario = mock.scenario_of
    if scenario is not None:
        scenario = dataclasses.replace(scenario, name=f"{prefix}/{scenario.name}")
    return dataclasses.replace(
        mock, path=f"/{prefix}{mock.path}", scenario_of=scenario, **_fresh_kinds(mock)
    )


def replying(mock: Mock, reply: Reply, label: str) -> Mock:
    """``mock`` answering with ``reply``, named ``NAME [label]``."""
    name = f"{mock.name or mock.describe()} [{label}]"
    return dataclasses.replace(mock, response=reply, name=name)


def answering_once(mock: Mock) -> Mock:
    """``mock`` answering one request (a recorded call that a later one follows)."""
    return dataclasses.replace(mock, answers=1)


def _fresh_kinds(mock: Mock) -> dict[str, Any]:
    """Each field of ``mock`` that holds a reply kind, with a new equal kind (its
    ``to_args`` rebuild it) whose call count starts again; fields that share one kind
    share its rebuild."""
    rebuilt: dict[int, ReplyKind] = {}
    fresh = {}
    for f in dataclasses.fields(mock):
        value = getattr(mock, f.name)
        if isinstance(value, ReplyKind) and not value.composes:  # a composing kind is a fixed Reply
            if id(value) not in rebuilt:
                rebuilt[id(value)] = type(value)(**value.to_args())
            fresh[f.name] = rebuilt[id(value)]
    return fresh
