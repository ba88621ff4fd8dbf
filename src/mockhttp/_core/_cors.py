"""CORS for the mocks: which headers a reply gets, and the answer to a preflight.

Pure decisions (the Fetch standard, §3.2 "CORS protocol"); the server asks them only when
it was started with ``cors=`` (off by default, so the plain path pays nothing).

Rule 1: the allowed origin is echoed, never ``*``, and ``Access-Control-Allow-Credentials:
true`` goes with it: a page that fetches with ``credentials: "include"`` (or an
``EventSource`` with ``withCredentials``) works as one that does not, because a server
cannot tell the two apart from a preflight.
Rule 2: every reply says ``Vary: Origin`` (its CORS headers depend on the origin).
Rule 3: a preflight is answered for exactly the method and headers it asks for: a mock
server should let the client under test send what it sends, and its mocks decide.
Rule 4: the admin API never gets CORS (the server does not ask this module for it).
Rule 5: ``Origin: null`` (an opaque origin: every sandboxed iframe, ``file://`` page and
redirected request sends it alike) is never echoed with credentials: with no origin list it
gets ``Access-Control-Allow-Origin: *`` and no ``Access-Control-Allow-Credentials``, so such a
page can read a reply fetched without credentials and nothing more; with a list it is
refused like any origin not in it (a list cannot name it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ._errors import ConfigError
from ._reply import Reply, status
from ._request import Request

__all__ = ["OPAQUE", "Cors", "cors_policy", "exposed_names"]

OPAQUE = "null"  # the serialisation of an opaque origin (HTML, "origin" §7.5)

# Fetch §3.2.3: response headers a page may read without them being exposed
_SAFELISTED = frozenset(
    (
        "cache-control",
        "content-language",
        "content-length",
        "content-type",
        "expires",
        "last-modified",
        "pragma",
    )
)
_NOT_EXPOSED = ("access-control-", "vary", "transfer-encoding", "connection", "set-cookie")


@dataclass(frozen=True, slots=True)
class Cors:
    """Which page origins may call the mocks (``origins`` empty: any origin)."""

    origins: frozenset[str] = frozenset()

    def allows(self, origin: str) -> bool:
        """True when a page from ``origin`` may read the mocks' replies."""
        return not self.origins or origin.rstrip("/").lower() in self.origins

    def headers(self, request: Request) -> tuple[tuple[str, str], ...]:
        """The CORS headers every reply to ``request`` gets (Rules 1 and 2)."""
        origin = request.headers.get("origin")
        if origin is None or not self.allows(origin):
            return (("Vary", "Origin"),)
        if origin.strip().lower() == OPAQUE:  # Rule 5
            return (("Access-Control-Allow-Origin", "*"), ("Vary", "Origin"))
        return (
            ("Access-Control-Allow-Origin", origin),
            ("Access-Control-Allow-Credentials", "true"),
            ("Vary", "Origin"),
        )

    def preflight(self, request: Request) -> Reply | None:
        """The reply to ``request`` when it is a preflight (``OPTIONS`` with ``Origin``
        and ``Access-Control-Request-Method``), else None: route it to the mocks."""
        headers = request.headers
        if request.method != "OPTIONS":
            return None
        origin = headers.get("origin")
        method = headers.get("access-control-request-method")
        if origin is None or method is None:
            return None
        if not self.allows(origin):
            allowed = ", ".join(sorted(self.origins))
            return (
                status(403)
                .header("Vary", "Origin")
                .header("Content-Type", "text/plain; charset=utf-8")
                .body(f"origin {origin!r} is not allowed by cors (allowed: {allowed})\n")
            )
        reply = status(204)
        for name, value in self.headers(request):
            reply = reply.header(name, value)
        reply = reply.header("Access-Control-Allow-Methods", method.strip())
        asked = headers.get("access-control-request-headers")
        if asked and asked.strip():
            reply = reply.header("Access-Control-Allow-Headers", asked.strip())
        if headers.get("access-control-request-private-network", "").lower() == "true":
            reply = reply.header("Access-Control-Allow-Private-Network", "true")
        return reply


def cors_policy(value: object) -> Cors | None:
    """``cors=`` as given to the server: None/False (off), True or ``"*"`` (any origin),
    an origin, or a list of origins (``"http://localhost:3000"``).

    Raises:
        ConfigError: something else, or an origin that is not ``scheme://host[:port]``.
    """
    if value is None or value is False:
        return None
    if value is True or value == "*":
        return Cors()
    items: Sequence[object]
    if isinstance(value, str):
        items = [value]
    elif isinstance(value, list | tuple | set | frozenset):
        items = list(value)
    else:
        raise ConfigError(
            f"cors={value!r} must be True (any origin), an origin such as "
            "'http://localhost:3000', or a list of origins"
        )
    if not items or "*" in items:
        return Cors()
    return Cors(frozenset(_origin(item) for item in items))


def _origin(item: object) -> str:
    if not isinstance(item, str) or "://" not in item or item.count("/") > 3:
        raise ConfigError(
            f"cors origin {item!r} must be scheme://host[:port], e.g. 'http://localhost:3000'"
        )
    origin = item.rstrip("/").lower()
    if "/" in origin.split("://", 1)[1]:
        raise ConfigError(f"cors origin {item!r} must not have a path")
    return origin


def exposed_names(names: Iterable[str]) -> str:
    """The ``Access-Control-Expose-Headers`` value for a reply with headers ``names``:
    every one a page could not read otherwise (empty: none)."""
    seen: dict[str, None] = {}
    for name in names:
        lower = name.lower()
        if lower not in _SAFELISTED and not lower.startswith(_NOT_EXPOSED):
            seen.setdefault(lower)
    return ", ".join(seen)
