"""Live ``a2a``: read the agent card, POST one streaming message in each A2A version its
JSON-RPC interfaces name, and check each stream.

Rule 1: the card is read at the URL's well-known path (``URL/.well-known/agent-card.json``,
then the older ``agent.json``), then at the host's root.  Each JSON-RPC interface it lists
says a URL and a version: 1.0's ``supportedInterfaces`` (``protocolBinding: JSONRPC``,
``protocolVersion``) and 0.3's ``url`` with ``preferredTransport`` and
``additionalInterfaces``.  Each version is checked once, newest first, at its interface's
URL: 1.0 with ``SendStreamingMessage`` and ``A2A-Version: 1.0``, 0.3 with
``message/stream``.
Rule 2: with no card (or none that names a JSON-RPC interface) the URL is the endpoint and
0.3's ``message/stream`` is sent, as before cards; ``--request`` (the user's JSON) is laid
over the request of each version (its ``method`` picks the version when it names one).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpx

from ._a2a import METHODS
from ._check import Outcome
from ._posted import Exchanged, check_posted
from ._record import Limits

__all__ = ["a2a_request", "interfaces", "read_card", "run_a2a_live"]

CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
_JSONRPC = ("JSONRPC", "JSON-RPC", "JSON_RPC")


def a2a_request(request: Mapping[str, Any] | None = None, version: str = "0.3") -> dict[str, Any]:
    """The request sent: one user text part ``Hello`` in ``version``'s streaming method
    (0.3 ``message/stream``, 1.0 ``SendStreamingMessage``); ``request`` (the user's own
    JSON) is laid over it."""
    if version == "1.0":
        message: dict[str, Any] = {
            "messageId": "m1",
            "role": "ROLE_USER",
            "parts": [{"text": "Hello"}],
        }
        method = "SendStreamingMessage"
    else:
        message = {
            "kind": "message",
            "messageId": "m1",
            "role": "user",
            "parts": [{"kind": "text", "text": "Hello"}],
        }
        method = "message/stream"
    base: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": method,
        "params": {"message": message},
    }
    return {**base, **(request or {})}


def read_card(url: str, headers: Mapping[str, str], timeout: float) -> dict[str, Any] | None:
    """The agent card for ``url`` (Rule 1), or None."""
    base = url.rstrip("/")
    parts = urlsplit(url)
    root = f"{parts.scheme}://{parts.netloc}"
    tried: list[str] = []
    for prefix in (base, root):
        for path in CARD_PATHS:
            where = prefix + path
            if where in tried:
                continue
            tried.append(where)
            try:
                answer = httpx.get(where, headers=dict(headers), timeout=timeout)
                card = answer.json() if answer.status_code == 200 else None
            except (httpx.HTTPError, ValueError):
                card = None
            if isinstance(card, dict):
                return card
    return None


def interfaces(card: Mapping[str, Any], url: str) -> dict[str, str]:
    """The card's JSON-RPC interfaces: version -> URL, newest first (Rule 1)."""
    found: dict[str, str] = {}
    for item in card.get("supportedInterfaces") or []:
        if not isinstance(item, Mapping) or item.get("protocolBinding") not in _JSONRPC:
            continue
        version = _version(item.get("protocolVersion"))
        if version is not None and isinstance(item.get("url"), str):
            found.setdefault(version, urljoin(url, item["url"]))
    old = _version(card.get("protocolVersion"))
    if old == "0.3" and "0.3" not in found:
        named: list[Mapping[str, Any]] = [
            {"url": card.get("url"), "transport": card.get("preferredTransport")}
        ]
        named += [i for i in card.get("additionalInterfaces") or [] if isinstance(i, Mapping)]
        for item in named:
            if (item.get("transport") or "JSONRPC") in _JSONRPC and isinstance(
                item.get("url"), str
            ):
                found["0.3"] = urljoin(url, item["url"])
                break
    return dict(sorted(found.items(), reverse=True))


def _version(value: Any) -> str | None:
    text = str(value) if isinstance(value, str | int | float) else ""
    return "1.0" if text.startswith("1.") else "0.3" if text.startswith("0.3") else None


def run_a2a_live(
    url: str,
    headers: Mapping[str, str],
    timeout: float,
    limits: Limits | None = None,
    on_exchange: Exchanged | None = None,
    *,
    request: Mapping[str, Any] | None = None,
) -> list[Outcome]:
    """Check the agent at ``url`` in each version its card names (see the module's rules);
    Ctrl-C checks what arrived."""
    card = read_card(url, headers, timeout)
    found = interfaces(card, url) if card is not None else {}
    asked = METHODS.get(str((request or {}).get("method")))
    if asked is not None:
        found = {asked[0]: found.get(asked[0], url)}
    outcomes: list[Outcome] = []
    for version, endpoint in (found or {"0.3": url}).items():
        body = a2a_request(request, version)
        sent = {"A2A-Version": "1.0", **headers} if version == "1.0" else dict(headers)
        name = f"{body.get('method')} (A2A {version})" if found else str(body.get("method"))
        outcomes += check_posted(
            endpoint, body, sent, timeout, limits, on_exchange, profile="a2a", exchange=name
        )
    return outcomes
