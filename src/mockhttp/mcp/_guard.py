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

import ipaddress
from collections.abc import Sequence
from urllib.parse import urlsplit

__all__ = ["refusal"]


def refusal(
    host: str | None,
    origin: str | None,
    allow_hosts: Sequence[str] = (),
    allow_origins: Sequence[str] = (),
) -> str | None:
    """Why a request with these headers is refused (the reply's message), or None."""
    if host is not None and not _own_host(host, allow_hosts):
        return (
            f"Forbidden: Host {host!r} does not name this server (DNS rebinding?); use an IP "
            "address or localhost, or allow the name (allow_hosts, --allow-host)"
        )
    if origin is not None and not _allowed_origin(origin, host, allow_origins):
        return (
            f"Forbidden: Origin {origin!r} is not allowed (a web page of another site); "
            "allow it with allow_origins (--allow-origin)"
        )
    return None


def host_name(host: str) -> str:
    """The name of a ``Host`` value, without port or IPv6 brackets, lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    name, colon, port = host.rpartition(":")
    return name if colon and port.isdigit() and ":" not in name else host


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _own_host(host: str, allowed: Sequence[str]) -> bool:
    name = host_name(host)
    return (
        _is_ip(name)
        or _loopback_name(name)
        or name in (host_name(a) for a in allowed)
        or "*" in allowed
    )


def _loopback_name(name: str) -> bool:
    return name == "localhost" or name.endswith(".localhost")


def _loopback(name: str) -> bool:
    if _loopback_name(name):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _allowed_origin(origin: str, host: str | None, allowed: Sequence[str]) -> bool:
    if "*" in allowed or origin.rstrip("/") in (a.rstrip("/") for a in allowed):
        return True
    try:
        parts = urlsplit(origin.strip())
        name = (parts.hostname or "").lower()
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not name:
        return False
    same = host is not None and parts.netloc.lower() == host.strip().lower()
    return same or _loopback(name)
