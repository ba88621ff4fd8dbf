"""Record-on-miss: ``mockhttp serve DIR --record-missing --upstream URL``.

The mocks in DIR answer what they match; every other request reaches the fallback mock
this module builds (the lowest priority, any method, any path), which is the recording
proxy's own answer (``_proxy.Recorder``): the request goes upstream, the reply streams
through to the client as it arrives, and the exchange is written into DIR as a new mock
file, named and redacted as ``mockhttp record`` names and redacts, and handed to
``serve`` to answer the same request next time without the upstream.

Rule 1: this module only composes the recorder (target checks, forwarding, names, files,
redaction are ``_proxy``'s, ``_exchange``'s and ``_names``'s); the server never imports
it: the CLI installs the fallback mock and takes the recorded mocks (the seam is a mock
with a handler, like any other).
Rule 2: a recorded mock is served from the moment its file is whole on disk.
Rule 3: an upstream that failed before its head (refused, reset, closed) is not recorded:
the client sees the failure, this time only, and the next miss is forwarded again
(``mockhttp record`` keeps such failures as faults; here one would answer for good).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TextIO

from .._core._errors import MockfileError
from .._core._mock import Mock, request
from ._exchange import Exchange
from ._proxy import Recorder
from ._spool import Spool

__all__ = ["FALLBACK", "LOWEST", "MissRecorder"]

FALLBACK = "record-missing"
LOWEST = -sys.maxsize  # below any priority a mock file gives: the mocks are tried first


class MissRecorder(Recorder):
    """The recorder behind ``serve --record-missing``: no listener of its own.

    Args:
        upstream: the base URL misses are forwarded to.
        out: the folder the recorded mock files go to (the one ``serve`` serves).
        url: the serving server's base URL, when asked (for the refusal messages).
        serve: called with each recorded mock once its file is written.
        redact, timeout, log, verify: as for :class:`Recorder`.
    """

    def __init__(
        self,
        upstream: str,
        out: str | Path,
        *,
        url: Callable[[], str],
        serve: Callable[[Mock], None],
        redact: Iterable[str] = (),
        timeout: float = 10.0,
        log: TextIO | None = None,
        verify: bool | str = True,
    ) -> None:
        super().__init__(upstream, out, redact=redact, timeout=timeout, log=log, verify=verify)
        self._url = url
        self._serve = serve
        self._open_out()  # the numbering continues after the files already in ``out``

    @property
    def url(self) -> str:
        """The base URL of the server the misses arrive at."""
        return self._url()

    def fallback(self) -> Mock:
        """The mock that answers what no other does: forward, stream, record."""
        return request(None, None, name=FALLBACK, priority=LOWEST).respond_with(self._answer)

    def _recorded(self, recorded: Mock | Path) -> None:
        if isinstance(recorded, Mock):
            self._serve(recorded)
            return
        from .._mockfile._load import load  # its file is whole: Rule 2

        try:
            mocks = load(recorded)
        except MockfileError as exc:  # too large to load: on disk, said, not served
            self._say(f"recorded, not served: {exc.reason}")
            return
        for mock in mocks:
            self._serve(mock)

    def _keep(self, exchange: Exchange, spool: Spool) -> None:
        if exchange.failure == "unreachable":  # a 502, said by the recorder already
            return
        if exchange.failure is not None:  # Rule 3
            self._say(
                f"{self._shown(exchange.request)}: not recorded: the upstream did not answer "
                f"({exchange.failure.replace('_', ' ')})"
            )
            return
        super()._keep(exchange, spool)
