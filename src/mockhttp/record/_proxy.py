"""The recording proxy: a mockhttp server that forwards each request to an upstream.

Every request is answered with a :class:`~mockhttp.Feed`: a thread sends the request
upstream with httpx and puts the reply's head and each read of its body into the feed as
they arrive, so the client reads the first event while the upstream is still sending.
When the exchange ends, it becomes a mock (``_exchange.to_mock``), kept in
:attr:`Recorder.mocks` and written to ``out`` as one file.

What happened is what is recorded, and what the client sees: a reply of any status as it
came; an upstream that cut its connection mid-body cuts the client's the same way and is
recorded with ``end: close`` (or ``reset``); an upstream that failed before its head
(refused, reset, closed) resets or closes the client's connection and is recorded as a
``reset`` or ``empty_response`` fault.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

from .._core._errors import ConfigError, MockfileError
from .._core._mock import Mock, request
from .._core._plan import EndHow
from .._core._reply import Reply
from .._core._request import Request
from .._mockfile._dump import dump
from .._mockfile._load import files, load
from .._server._feed import Feed
from .._server._server import Server
from ._exchange import HOP_BY_HOP, REDACT, Exchange, key_of, to_mock
from ._mocks import answering_once, uniquely_named
from ._pieces import Write

if TYPE_CHECKING:
    import httpx

__all__ = ["Recorder", "record"]

_SLUG = re.compile(r"[^a-z0-9]+")
_NUMBERED = re.compile(r"^\d{3}-.*\.yaml$")
_DROP_UPSTREAM = HOP_BY_HOP | {"host", "accept-encoding", "expect"}


class Recorder:
    """A recording proxy in front of ``upstream``, as a context manager.

    Point a client at :attr:`url`; each exchange is forwarded, streamed back as it
    arrives, and recorded: :attr:`mocks` holds the mocks in order, and with ``out`` each
    is also written there as a mock file (``001-post-v1-chat-completions.yaml``, ...).

    Args:
        upstream: the base URL requests go to (``https://api.openai.com``); the client's
            path and query are appended.
        out: a directory for the mock files (None: keep them in memory only).
        host, port: where the proxy listens (port 0: a free one).
        redact: header names whose values are secrets (see ``REDACT``).
        timeout: seconds to connect to the upstream (reads wait as long as it streams).
        log: where to print one line per exchange (None: silent).
        verify: check the upstream's TLS certificate (True), or a CA bundle path.
    """

    def __init__(
        self,
        upstream: str,
        out: str | Path | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        redact: Iterable[str] = REDACT,
        timeout: float = 10.0,
        log: TextIO | None = None,
        verify: bool | str = True,
    ) -> None:
        if not isinstance(upstream, str) or not re.match(r"^https?://[^/]", upstream):
            raise ConfigError(f"upstream={upstream!r} must be an http:// or https:// URL")
        self.upstream = upstream.rstrip("/")
        self.out = None if out is None else Path(out)
        self.redact = tuple(n.lower() for n in redact)
        self.log = log
        self.mocks: list[Mock] = []
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._repeats: dict[str, list[int]] = {}  # request key -> indexes into mocks
        self._files: dict[int, Path] = {}
        self._first = 0
        self._names: set[str] = set()  # the names given so far (in ``out`` too)
        self._threads: list[threading.Thread] = []
        import httpx  # on first use: importing mockhttp stays light

        self._client = httpx.Client(
            timeout=httpx.Timeout(None, connect=timeout),
            follow_redirects=False,
            trust_env=False,
            verify=verify,
        )
        self.server = Server(host, port)
        self.server.mock(request(None, None).respond_with(self._answer))

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Recorder:
        """Start listening; returns the recorder."""
        if self.out is not None:
            self.out.mkdir(parents=True, exist_ok=True)
            numbers = [int(p.name[:3]) for p in self.out.iterdir() if _NUMBERED.match(p.name)]
            self._first = max(numbers, default=0)  # a second session adds, never overwrites
            self._names = _names_in(self.out)  # ... under names of its own
        self.server.start()
        return self

    def close(self) -> None:
        """Wait for exchanges in flight (up to 10 s), then stop."""
        for thread in list(self._threads):
            thread.join(10)
        self.server.close()
        self._client.close()

    def __enter__(self) -> Recorder:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
        if exc is None:
            self.check()

    def check(self) -> None:
        """Raise the first error the recorder itself hit (a bug, not an upstream's
        failure: those are recorded)."""
        if self.errors:
            raise self.errors[0]

    @property
    def url(self) -> str:
        """The proxy's base URL: give it to the client in place of the upstream's."""
        return self.server.url

    def wait(self, n: int, timeout: float = 5.0) -> list[Mock]:
        """Wait until ``n`` exchanges are recorded (they are once the reply has ended)."""
        deadline = time.monotonic() + timeout
        while len(self.mocks) < n and time.monotonic() < deadline:
            time.sleep(0.005)
        return list(self.mocks)

    # -- per exchange ----------------------------------------------------------------------

    def _answer(self, req: Request) -> Reply:
        feed = Feed()
        thread = threading.Thread(
            target=self._forward, args=(req, feed), name="mockhttp-record", daemon=True
        )
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return feed.reply()

    def _forward(self, req: Request, feed: Feed) -> None:
        try:
            exchange = self._exchange(req, feed)
            self._keep(exchange)
        except Exception as exc:  # a bug: keep it, never leave the client hanging
            self.errors.append(exc)
            if not feed.gone:
                with contextlib.suppress(ConfigError):
                    feed.end("reset")

    def _exchange(self, req: Request, feed: Feed) -> Exchange:
        import httpx

        headers = [(k, v) for k, v in req.headers.items_list if k.lower() not in _DROP_UPSTREAM]
        headers.append(("Accept-Encoding", "identity"))
        url = self.upstream + req.target
        start = time.monotonic()
        writes: list[Write] = []
        head: tuple[int, str, tuple[tuple[str, str], ...], int | None] | None = None
        head_at = start
        end: EndHow = "complete"
        try:
            with self._client.stream(req.method, url, headers=headers, content=req.body) as resp:
                head_at = time.monotonic()
                raw = tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in resp.headers.raw)
                length = _length(resp)
                head = (resp.status_code, resp.reason_phrase, raw, length)
                sent = [(k, v) for k, v in raw if k.lower() not in HOP_BY_HOP]
                feed.head(resp.status_code, sent, reason=resp.reason_phrase or None, length=length)
                for chunk in resp.iter_raw():
                    writes.append(Write(time.monotonic() - head_at, chunk))
                    if feed.gone:
                        end = "close"  # the client hung up: the recording stops here
                        break
                    feed.data(chunk)
        except (
            httpx.RemoteProtocolError,
            httpx.ReadError,
            httpx.ConnectError,
            httpx.TimeoutException,
            httpx.WriteError,
        ) as exc:
            end = "reset" if _was_reset(exc) else "close"
            self._say(f"{req.method} {req.target}: upstream {type(exc).__name__}: {exc}")
        if not feed.gone:
            feed.end(end)
        if head is None:
            return Exchange(
                req,
                0,
                "",
                (),
                0.0,
                (),
                None,
                end,
                failure="reset" if end == "reset" else "empty_response",
            )
        status, reason, raw, length = head
        return Exchange(req, status, reason, raw, head_at - start, tuple(writes), length, end)

    def _keep(self, exchange: Exchange) -> None:
        key = key_of(exchange.request)
        with self._lock:
            repeats = self._repeats.setdefault(key, [])
            mock = to_mock(exchange, redact=self.redact, call=len(repeats))
            mock = uniquely_named(mock, self._names)
            index = len(self.mocks)
            self.mocks.append(mock)
            if repeats:  # the previous call of the same request now answers once
                before = repeats[-1]
                self.mocks[before] = answering_once(self.mocks[before])
                self._write(before)
            repeats.append(index)
            self._write(index)
        what = "failed" if exchange.failure else str(exchange.status)
        self._say(
            f"recorded {exchange.request.method} {exchange.request.target} -> {what}"
            + (f" ({exchange.end})" if exchange.end != "complete" else "")
        )

    def _write(self, index: int) -> None:
        if self.out is None:
            return
        path = self._files.get(index)
        if path is None:
            mock = self.mocks[index]
            slug = _SLUG.sub("-", f"{mock.method}-{mock.path}".lower()).strip("-")[:60]
            path = self.out / f"{self._first + index + 1:03d}-{slug}.yaml"
            self._files[index] = path
        path.write_text(dump(self.mocks[index]), encoding="utf-8")

    def _say(self, line: str) -> None:
        if self.log is not None:
            print(line, file=self.log, flush=True)


def _names_in(folder: Path) -> set[str]:
    """The mock names of the files already in ``folder`` (a file that does not load is
    not ours to judge here: ``serve`` and ``validate`` will say)."""
    found: set[str] = set()
    for path in files([folder]):
        try:
            found.update(m.name for m in load(path) if m.name is not None)
        except MockfileError:
            continue
    return found


def _length(resp: httpx.Response) -> int | None:
    if "transfer-encoding" in resp.headers:
        return None
    value = resp.headers.get("content-length")
    return int(value) if value is not None and value.isdigit() else None


def _was_reset(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ConnectionResetError | ConnectionRefusedError):
            return True
        if "reset" in str(seen).lower() or "refused" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def record(upstream: str, out: str | Path | None = None, **options: object) -> Recorder:
    """A :class:`Recorder` (not started: use it in a ``with`` block)."""
    return Recorder(upstream, out, **options)  # type: ignore[arg-type]
