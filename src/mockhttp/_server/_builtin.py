"""The server's own endpoints, as routes ranked above the user's mocks.

The readiness probe, the admin API, CORS preflights and ``GET /metrics`` are mocks the
server registers for itself: each a ``Builtin`` entry whose ``Mock`` says which requests
it takes, tried by the same ``_core._route.route`` before every user mock (the path index
puts them first: ``_core._paths`` Rule 2).  What the server does with a builtin's answer
is its ``kind`` (``_answer.py`` plans it):

- ``health``: ``GET /__mockhttp/health`` answers ``{"status": "ok", "mocks": N}``, with or
  without the admin API, and needs no token; not journaled;
- ``admin``: anything under ``/__mockhttp/`` (``admin=True``), answered on the admin
  thread (``_admin.AdminAPI``); journaled only by the admin API's own rules;
- ``preflight``: an ``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``
  (``cors=``), answered by ``_core._cors``; kept in ``server.preflights``;
- ``metrics``: ``GET /metrics`` (``metrics=True``), Prometheus text; not journaled.

Rule 1: a builtin keeps no state (no ``times``, no replies, no scenario), so routing with
the state held elsewhere (``serve --workers``) answers it without asking, and its number
(``id``) is negative: never a user mock's.
Rule 2: only ``metrics`` replies carry the CORS headers; the admin API never does
(``_core._cors`` Rule 4), a preflight has its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from .._core._cors import Cors
from .._core._match import Matcher, exists
from .._core._mock import Mock
from .._core._reply import Reply, ok, status
from .._core._request import Request

__all__ = [
    "ADMIN_PREFIX",
    "HEALTH_PATH",
    "METRICS_PATH",
    "Builtin",
    "BuiltinKind",
    "builtins",
    "may_take",
]

ADMIN_PREFIX = "/__mockhttp/"
#: The readiness probe: ``GET`` answers 200 and ``{"status": "ok", "mocks": N}`` once the
#: server listens, with or without the admin API, and needs no token (it tells nothing else).
HEALTH_PATH = "/__mockhttp/health"
METRICS_PATH = "/metrics"
BuiltinKind = Literal["health", "admin", "preflight", "metrics"]


class Builtin:
    """One of the server's own endpoints, as routing reads an entry (``_core._route``)."""

    __slots__ = ("cors", "id", "kind", "mock")

    call_count = 0  # (Rule 1: it keeps no state)
    exhausted = False

    def __init__(self, kind: BuiltinKind, mock: Mock, number: int) -> None:
        self.kind: BuiltinKind = kind
        self.mock = mock
        self.id = -number
        self.cors = kind == "metrics"  # Rule 2

    def __repr__(self) -> str:
        return f"Builtin({self.kind!r})"


def may_take(request: Request) -> bool:
    """False when no builtin can take ``request`` (most requests: the mocks' own paths),
    so that routing tries none of them: only an ``OPTIONS``, a path under
    ``/__mockhttp/`` and ``/metrics`` may be the server's."""
    path = request.path
    return request.method == "OPTIONS" or path.startswith(ADMIN_PREFIX) or path == METRICS_PATH


def builtins(
    count: Callable[[], int],
    *,
    admin: bool = False,
    cors: Cors | None = None,
    metrics: Callable[[], Reply] | None = None,
) -> tuple[Builtin, ...]:
    """The server's own endpoints, in the order they are tried: the readiness probe
    (``count``: how many mocks are registered), then those the server was asked for."""

    def health(request: Request) -> Reply:
        return status(200).json({"status": "ok", "mocks": count()})

    found = [  # (HEAD too, before the admin API takes any method)
        Builtin("health", Mock("GET", HEALTH_PATH, handler=health), 1),
        Builtin("health", Mock("HEAD", HEALTH_PATH, handler=health), 5),
    ]
    if admin:  # (its reply is made on the admin thread: this one is never sent)
        taken = Mock(None, _Under(ADMIN_PREFIX), response=ok())
        found.append(Builtin("admin", taken, 2))
    if cors is not None:
        preflight = cors.preflight
        asks = (
            Mock("OPTIONS", None, handler=lambda request: preflight(request) or ok())
            .header("origin", exists())
            .header("access-control-request-method", exists())
        )
        found.append(Builtin("preflight", asks, 3))
    if metrics is not None:
        reply = metrics
        found.append(Builtin("metrics", Mock("GET", METRICS_PATH, handler=lambda r: reply()), 4))
    return tuple(found)


class _Under(Matcher):
    """A path under ``prefix`` (``starts_with``'s test alone: tried on every request)."""

    name = "starts_with"

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def matches(self, value: Any) -> bool:
        return type(value) is str and value.startswith(self.prefix)

    def explain(self, value: Any) -> str | None:
        return None if self.matches(value) else f"got {value!r}, expected {self.prefix!r}..."

    def _args(self) -> tuple[Any, ...]:
        return (self.prefix,)
