"""What ``mockhttp serve`` keeps while it runs: its file mocks, the request log, reloads.

Rule 1: a reload adds the new mocks before it removes the old ones, so no request finds
the server empty; replies already running keep their plan and are not interrupted.
Rule 2: mocks added through the admin API are not file mocks: a reload leaves them alone,
and ``POST /__mockhttp/reset`` clears them and loads the files' mocks again.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .._core._errors import MockfileError
from .._core._explain import explain
from .._core._mock import Mock
from .._core._redact import Redactor, is_secret, masked
from .._core._reply import Reply
from .._core._request import Request
from .._mockfile._load import files, load
from .._server._admin import PREFIX, AdminAPI
from .._server._journal import Call
from .._server._server import Server
from .._server._verify import ActiveMock

__all__ = [
    "DEFAULTS",
    "Served",
    "log_line",
    "not_reloaded",
    "plural",
    "shown",
    "watch_snapshot",
]

DEFAULTS = Path(__file__).parent.parent / "defaults"

Snapshot = tuple[tuple[str, int, int], ...]
_ADMIN_DEFAULTS: Mapping[str, Any] = MappingProxyType({})  # AdminAPI's own defaults


def log_line(call: Call, mocks: Sequence[Mock], now: datetime, redact: bool = True) -> str:
    """One request as a log line: time, request, who answered, status, and how it ended.

    ``12:00:01.250 POST /v1/chat/completions → mock 'chat' 200, 4 events, complete``;
    a miss says why: ``→ no match (closest: 'chat', path: got …, expected …) 404, …``
    (secrets hidden by the one rule, ``_core._redact``, unless ``redact`` is False).
    """
    request = call.request
    redactor = Redactor.of_request(request) if redact else None
    if request.path.startswith(PREFIX):
        who = "admin"
    elif call.mock is not None:
        who = f"mock {call.mock.describe()}"
    elif call.explanation is None and _preflight(request):
        who = "cors preflight"  # answered by the server itself (server.preflights)
    else:
        why = call.explanation or explain(request, mocks)
        who = f"no match ({(why if redactor is None else why.redacted(redactor)).line})"
    code = "-" if call.status is None else str(call.status)
    stream = call.mock is not None and (_streams(call.mock) or call.events > 0)
    sent = plural(call.events, "event") if stream else plural(call.body_bytes, "byte")
    stamp = now.strftime("%H:%M:%S.%f")[:-3]
    target = request.target if redactor is None else redactor.text(request.target)
    return f"{stamp} {request.method} {target} → {who} {code}, {sent}, {call.outcome}"


def _preflight(request: Request) -> bool:
    """A CORS preflight: ``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``."""
    headers = request.headers
    return (
        request.method == "OPTIONS"
        and headers.get("origin") is not None
        and headers.get("access-control-request-method") is not None
    )


def plural(n: int, noun: str) -> str:
    """``1 event``, ``2 events``, ``0 bytes``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _streams(mock: Mock) -> bool:
    replies = [r for r, _ in mock.sequence] or ([] if mock.response is None else [mock.response])
    return any(isinstance(r, Reply) and r.stream is not None for r in replies)


def shown(name: str, value: str) -> str:
    """A header's value as the log shows it: ``[redacted]`` for a secret (``is_secret``)."""
    return masked(value) if is_secret(name) else value


def _details(call: Call, redact: bool) -> list[str]:
    """The ``--verbose`` lines of a call: its headers and body (secrets hidden)."""
    headers = list(call.request.headers.items_list)
    text = call.request.text if call.request.body else ""
    text = text if len(text) <= 2000 else text[:2000] + "…"
    if redact:
        redactor = Redactor.of_request(call.request)
        headers, text = redactor.headers(headers), redactor.text(text)
    return [f"    {name}: {value}" for name, value in headers] + ([f"    {text}"] * bool(text))


def watch_snapshot(paths: Sequence[Path]) -> Snapshot:
    """The mock files under ``paths`` with their change times and sizes."""
    try:
        found = files(paths)
    except MockfileError:
        return ()
    result = []
    for path in found:
        try:
            stat = path.stat()
        except OSError:
            continue
        result.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(result)


def not_reloaded(exc: Exception) -> str:
    """The log line of ``--watch`` when the files changed but do not load: why (a
    :class:`MockfileError` names file:line:column), and that the previous mocks stay."""
    why = str(exc) if isinstance(exc, MockfileError) else f"{type(exc).__name__}: {exc}"
    return f"mockhttp: not reloaded, still serving the previous mocks:\n{why}"


class Served:
    """The server of ``mockhttp serve``, its file mocks and its log."""

    def __init__(
        self,
        server: Server,
        paths: Sequence[Path],
        mocks: list[Mock],
        quiet: bool,
        verbose: bool,
        admin: Mapping[str, Any] | None = _ADMIN_DEFAULTS,
        redact: bool = True,
    ) -> None:
        self.server = server
        self.paths = paths
        self.mocks = mocks
        self.quiet = quiet
        self.verbose = verbose
        self.active: list[ActiveMock] = []
        self.expand: Callable[[list[Mock]], list[Mock]] = list  # what --variants adds
        self.with_defaults = False  # --defaults: the built-in mocks are served too
        self._settling: Snapshot | None = None  # a changed snapshot seen once, not yet loaded
        self._lock = threading.Lock()
        server.on_call_end = None if quiet else self.log  # --quiet: no per-call callback
        self.admin = None if admin is None else AdminAPI(server, self.install_files, **admin)
        self.redact = bool(admin.get("redact", True)) if admin is not None else redact
        server.admin = self.admin
        self.install_files()

    def install_files(self) -> None:
        """Register the file mocks (again, after a reset)."""
        with self._lock:
            self.active = self.server._add(self.mocks)

    def add(self, mock: Mock) -> None:
        """Serve ``mock`` as a file mock from now on (``--record-missing`` recorded it)."""
        with self._lock:
            self.active = [*self.active, *self.server._add([mock])]
            self.mocks = [*self.mocks, mock]

    def announce(self) -> None:
        """Print the URL on stdout, and what is served on stderr."""
        print(self.server.url, flush=True)
        where = (
            "the built-in mocks"
            if list(self.paths) == [DEFAULTS]
            else ", ".join(map(str, self.paths))
        ) + (" and the built-in mocks" if self.with_defaults else "")
        self._err(
            f"mockhttp: serving {plural(len(self.mocks), 'mock')} from {where} "
            f"on {self.server.url} "
            f"({self.server.loop_name})"
        )

    def reload_if_changed(self, snapshot: Snapshot, *, settle: bool = True) -> Snapshot:
        """Reload the files if they changed since ``snapshot`` and have stayed the same
        since the previous call (one poll), so that a save written in several steps
        reloads once, from the whole file; return the snapshot now served.  ``settle=False``:
        the caller has already waited (a worker told to reload by its supervisor)."""
        current = watch_snapshot(self.paths)
        if current == snapshot:
            self._settling = None
            return snapshot
        if settle and current != self._settling:  # still being written: look again at the next poll
            self._settling = current
            return snapshot
        self._settling = None
        try:
            mocks = self.expand(load(*self.paths))
        except Exception as exc:  # a save never stops the server: the last good mocks stay
            self._err(not_reloaded(exc))
            return current
        with self._lock:
            self.active = self.server.replace(self.active, mocks)
            self.mocks = mocks
        self._err(f"mockhttp: reloaded {plural(len(mocks), 'mock')}")
        return current

    def log(self, call: Call) -> None:
        """Log a finished call (the server's ``on_call_end``)."""
        if self.quiet:
            return
        mocks = [a.mock for a in self.server.mocks] if call.mock is None else []
        lines = [log_line(call, mocks, datetime.now(), self.redact)]
        if self.verbose:
            lines.extend(_details(call, self.redact))
        self._err("\n".join(lines))

    def _err(self, text: str) -> None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
