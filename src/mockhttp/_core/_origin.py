"""Which hosts and origins a server answers: loopback and its own, and those allowed.

Pure logic shared by the endpoints that refuse web pages of other sites: MCP's DNS
rebinding protection (``mcp/_guard.py``) and WebSocket mocks' Origin policy
(``ws/_kind.py``), both widened by ``mockhttp serve --allow-origin``.

- ``own_host(host, allowed)``: an IP address, ``localhost``, a name under ``.localhost``,
  or a name ``allowed`` lists (``*``: any).
- ``allowed_origin(origin, host, allowed)``: an ``http(s)`` origin whose host is loopback
  or is the request's own ``Host``, or one ``allowed`` lists (``*``: any).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from urllib.parse import urlsplit

__all__ = ["allowed_origin", "host_name", "own_host"]


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


def own_host(host: str, allowed: Sequence[str]) -> bool:
    """True for an IP address, a loopback name, or a name ``allowed`` lists."""
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


def allowed_origin(origin: str, host: str | None, allowed: Sequence[str]) -> bool:
    """True for a loopback origin, the request's own host, or one ``allowed`` lists."""
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
