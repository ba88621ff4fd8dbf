"""Singular JSONPath queries, walked without the JSONPath library.

Most JSONPath a mock matches a body with is a *singular query* (RFC 9535, 2.3.5.1):
``$`` followed by name and index segments only (``$.model``,
``$.messages[-1].content``, ``$['tool_choice']``), which selects at most one node.  The
library builds a match object per node (with its normalized path, its parent and its
children) to answer that; a server matching every request's body on such queries spent
more time there than on the rest of the request.  Here the query's steps are read once
and walked as dictionary and list look-ups.

Rule 1: only a strict subset of the syntax is read here (member names in shorthand are
ASCII identifiers; quoted names have no escapes; no blank space); anything else, and
every query that is not singular, returns None from :func:`steps` and is left to the
library.  The path has already been compiled by the library, so it is valid.
Rule 2: :func:`walk` selects what the library selects in strict (RFC 9535) mode: a name
in a mapping, an index (negative from the end) in a sequence that is not a string, and
nothing otherwise.  ``tests/core/test_singular.py`` checks the two agree.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["NOTHING", "steps", "walk"]

_SEGMENT = re.compile(
    r"""\.(?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | \[(?P<index>0|-?[1-9][0-9]{0,15})\]
      | \['(?P<single>[^'\\\x00-\x1f]*)'\]
      | \["(?P<double>[^"\\\x00-\x1f]*)"\]""",
    re.VERBOSE,
)

NOTHING = object()  # what a walk that selects no node returns


def steps(path: str) -> tuple[str | int, ...] | None:
    """The names (``str``) and indexes (``int``) of a singular query, or None: not one
    this module reads (Rule 1)."""
    if not path.startswith("$"):
        return None
    found: list[str | int] = []
    at = 1
    while at < len(path):
        segment = _SEGMENT.match(path, at)
        if segment is None:
            return None
        index = segment["index"]
        if index is not None:
            found.append(int(index))
        else:
            name = segment["name"] or segment["single"]
            found.append(name if name is not None else segment["double"])
        at = segment.end()
    return tuple(found)


def walk(doc: Any, path: tuple[str | int, ...]) -> Any:
    """The node ``path`` (from :func:`steps`) selects in ``doc``, or ``NOTHING``."""
    for step in path:
        if isinstance(step, str):
            if type(doc) is not dict and not isinstance(doc, Mapping):
                return NOTHING
            try:
                doc = doc[step]
            except KeyError:
                return NOTHING
        else:
            if type(doc) is not list and (not isinstance(doc, Sequence) or isinstance(doc, str)):
                return NOTHING
            try:
                doc = doc[step]
            except IndexError:
                return NOTHING
    return doc
