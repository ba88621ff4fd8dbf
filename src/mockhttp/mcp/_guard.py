"""DNS rebinding protection (``basic/transports``, "Security Warning"; ``basic/security_
best_practices``): which ``Host`` and ``Origin`` an MCP endpoint answers.

Rule 1: a ``Host`` that is an IP address, ``localhost`` or a name under ``.localhost``
is the server's own; any other name is refused unless allowed (``allow_hosts``, the CLI's
``--allow-host``): a page on evil.example whose name was made to resolve to 127.0.0.1
sends ``Host: evil.example``.
Rule 2: a request with no ``Origin`` is no browser's and passes; an ``Origin`` whose
host is loopback (``localhost``, ``*.localhost``, ``127.0.0.0/8``, ``::1``) or the
request's own ``Host`` passes; any other is refused unless allowed (``allow_origins``,
``--allow-origin``; ``*`` allows every origin).
"""

from __future__ import annotations

from collections.abc import Sequence

from .._core._origin import allowed_origin, host_name, own_host

__all__ = ["host_name", "refusal"]


def refusal(
    host: str | None,
    origin: str | None,
    allow_hosts: Sequence[str] = (),
    allow_origins: Sequence[str] = (),
) -> str | None:
    """Why a request with these headers is refused (the reply's message), or None."""
    if host is not None and not own_host(host, allow_hosts):
        return (
            f"Forbidden: Host {host!r} does not name this server (DNS rebinding?); use an IP "
            "address or localhost, or allow the name (allow_hosts, --allow-host)"
        )
    if origin is not None and not allowed_origin(origin, host, allow_origins):
        return (
            f"Forbidden: Origin {origin!r} is not allowed (a web page of another site); "
            "allow it with allow_origins (--allow-origin)"
        )
    return None
