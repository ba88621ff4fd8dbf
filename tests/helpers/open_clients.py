"""A test that ends with an HTTP client still holding a socket fails at its own teardown.

The official SDKs' clients (openai, anthropic, google-genai) sit in reference cycles (their
resources point back at them), so a client a test leaves open is freed by the cyclic collector
at a random moment of a random later test.  When the socket's finalizer runs before the SDK
wrapper's ``__del__``, the socket warns, and with ``filterwarnings = error`` that later test
fails: 1 whole-suite run in 3 under load did, in an unrelated test.  This plugin names the test
that left the client open instead, every time.

It follows the clients a test makes while it runs (the ``call`` phase) -- ``httpx`` and
``httpx2`` (the openai and google-genai SDKs' transport) -- weakly, so it keeps none alive.  A
fixture's client is the fixture's to close; a module's may stay open across its tests.
"""

from __future__ import annotations

import weakref
from collections.abc import Generator
from typing import Any

import httpx
import pytest

_TRANSPORTS: list[Any] = [httpx]
try:
    import httpx2

    _TRANSPORTS.append(httpx2)
except ImportError:  # pragma: no cover - the SDKs in the test extras bring it
    pass

_made: weakref.WeakSet[Any] = weakref.WeakSet()
_following = [False]


def _follow(cls: Any) -> None:
    made = cls.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        if _following[0]:
            _made.add(self)

    cls.__init__ = __init__


for _module in _TRANSPORTS:
    _follow(_module.Client)
    _follow(_module.AsyncClient)


def open_sockets(client: Any) -> int:
    """How many of ``client``'s pooled connections are still open."""
    if client.is_closed:
        return 0
    transports = [client._transport, *client._mounts.values()]
    pools = [getattr(transport, "_pool", None) for transport in transports]
    return sum(
        not connection.is_closed()
        for pool in pools
        for connection in getattr(pool, "connections", ())
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    _made.clear()
    _following[0] = True
    try:
        return (yield)
    finally:
        _following[0] = False


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    result = yield
    left = [type(client).__name__ for client in list(_made) if open_sockets(client)]
    _made.clear()
    if left:
        pytest.fail(
            f"{item.nodeid} left {len(left)} HTTP client(s) open with a live socket "
            f"({', '.join(left)}): close them (`with openai.OpenAI(...) as client:`), or the "
            "collector frees their sockets in some later test, which then fails",
            pytrace=False,
        )
    return result
