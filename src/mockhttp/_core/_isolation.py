"""Per-test isolation: which test a request belongs to, and the order its mocks are tried.

Many tests share one server (pytest-xdist workers, a team's CI against one ``serve``).
A request names its test by a header (``x-mockhttp-test: ID`` unless the server names
another) or, for a client that cannot set headers, by a URL prefix: ``/__test/ID/v1/...``
is ``/v1/...`` of test ``ID`` (the prefix is stripped before matching, and the journal
entry says so).  A test's mocks answer only its requests and rank above the shared
mocks (those added without a test id: the built-in mocks too), whatever their priority;
a test's counts, scenario states, kept state and journal are its own (``_server/_tests``).

Rule 1: pure: ``which_test`` reads a request and returns data (a ``ForTest``, a ``BadTest``
saying why the id cannot be used, or None: no test); nothing here keeps state.
Rule 2: a request without a test id costs one prefix test of its target and one pass
over its header names (compared by length first): the scan is inlined in ``which_test``.
Rule 3: a test id is 1 to ``MAX_TEST_ID`` characters of ``A-Z a-z 0-9 . _ - : @ + = ~``
(what pytest's ids hashed, xdist worker ids and CI job names need; no ``/``, which
would make the URL prefix ambiguous, and no space or control character, which a log
line could not show).  A bad id gets a 400 that says why, never another test's mocks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple, TypeVar

from ._request import Request

__all__ = [
    "MAX_TEST_ID",
    "TEST_HEADER",
    "TEST_PREFIX",
    "BadTest",
    "ForTest",
    "bad_test_id",
    "ranked_for_test",
    "which_test",
]

#: The request header that names a request's test, unless the server names another.
TEST_HEADER = "x-mockhttp-test"
#: The URL prefix that names a request's test: ``/__test/ID/rest`` is ``/rest`` of ``ID``.
TEST_PREFIX = "/__test/"
MAX_TEST_ID = 200
_VALID = re.compile(r"[A-Za-z0-9._\-:@+=~]+")


class ForTest(NamedTuple):
    """A request's test: its ``id``, the ``request`` to match (the URL prefix stripped),
    and the ``prefix`` stripped (``/__test/ID``), or None when a header named it."""

    id: str
    request: Request
    prefix: str | None


class BadTest(NamedTuple):
    """A request that names a test by an id that cannot be one: ``message`` says why."""

    request: Request
    message: str


def bad_test_id(value: str) -> str | None:
    """Why ``value`` cannot be a test id (Rule 3), or None when it can."""
    if not value:
        return "a test id is empty"
    if len(value) > MAX_TEST_ID:
        return f"a test id is at most {MAX_TEST_ID} characters, got {len(value)}"
    if _VALID.fullmatch(value) is None:
        shown = value if value.isprintable() else value.encode("unicode_escape").decode()
        return f"test id {shown[:80]!r} has characters other than A-Z a-z 0-9 . _ - : @ + = ~"
    return None


def which_test(request: Request, header: str) -> ForTest | BadTest | None:
    """The test ``request`` belongs to: by its URL prefix (``TEST_PREFIX``), else by the
    ``header`` field (its name in lower case); None: no test (the shared mocks answer)."""
    target = request.target
    if target.startswith(TEST_PREFIX):
        return _prefixed(request, target)
    size = len(header)
    for name, value in request.headers.items_list:  # (Rule 2)
        if len(name) == size and name.lower() == header:
            why = bad_test_id(value.strip())
            if why is not None:
                return BadTest(request, f"{header}: {why}")
            return ForTest(value.strip(), request, None)
    return None


def _prefixed(request: Request, target: str) -> ForTest | BadTest:
    """A request whose target starts with ``/__test/ID``: ``ID`` and the request with the
    prefix stripped (``/__test/ID`` alone, or with a query, is ``/`` of ``ID``)."""
    rest = target[len(TEST_PREFIX) :]
    cut = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    value, rest = rest[:cut], rest[cut:]
    why = bad_test_id(value)
    if why is not None:
        return BadTest(request, f"URL prefix {TEST_PREFIX}ID/: {why}")
    stripped = rest if rest.startswith("/") else "/" + rest
    inner = Request(
        request.method,
        stripped,
        request.headers,
        request.body,
        request.http_version,
        request.trailers,
    )
    return ForTest(value, inner, TEST_PREFIX + value)


E = TypeVar("E")


def ranked_for_test(own: Sequence[E], shared: Sequence[E]) -> tuple[E, ...]:
    """The entries tried for a test's request, in order: the test's own first (each list
    already in its order: priority, then the newest), then the shared ones.  A test's
    mock so overrides a shared one (a built-in mock too) whatever their priorities."""
    return (*own, *shared)
