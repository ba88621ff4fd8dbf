"""The recording proxy: a mockhttp server that forwards each request to an upstream.

Every request is answered with a :class:`~mockhttp.Feed`: a thread sends the request
upstream (``_upstream``) and puts the reply's head and each read of its body into the
feed as they arrive, so the client reads the first event while the upstream is still
sending; each read also goes to the exchange's spool (``_spool``: redacted, capped, on
disk).  When the exchange ends, it becomes a mock (``_exchange.to_mock``), written to
``out`` as one file from the spool, one write at a time.

What happened is what is recorded, and what the client sees: a reply of any status as it
came; an upstream that cut its connection mid-body cuts the client's the same way and is
recorded with ``end: close`` (or ``reset``); an upstream that failed before its head
(refused, reset, closed) resets or closes the client's connection and is recorded as a
``reset`` or ``empty_response`` fault.

Rule 1: only an origin-form target (``/path?query``, RFC 9112 §3.2.1) reaches the
upstream.  An authority-form (``CONNECT host:port``, ``@host:port/...``), absolute-form
(a client using the recorder as ``HTTP_PROXY``) or ``//host`` target is refused with a
``400`` that says why, and a log line; the URL built is checked to name the upstream's
own scheme, host and port before anything is sent.
A path with a ``..`` segment, spelled in any case or percent-encoding (``%2e%2e``,
``.%2E``, ``..%2f``), is refused the same way: it would leave the upstream's base path
(``--upstream https://gateway/openai`` must not reach ``https://gateway/admin``).
Rule 5: an upstream that cannot be reached (no connection: refused, no such host, a
connect timeout) is answered ``502 Bad Gateway`` with a body that says why, as a gateway
answers, and is not recorded: nothing came from the upstream to reproduce (a reset in its
place would be the proxy's invention, replayed for good; SDKs report a 502 plainly and
retry it).  An upstream that connected and then failed before its head is the upstream's
own behaviour: recorded as a fault (``reset``, ``empty_response``), the client cut alike.
Rule 2: an exchange the client has finished is on disk, whole, before :meth:`close`
returns: each file is written to a temporary name and renamed, and ``close`` waits for
exchanges in flight up to one deadline, then says which it could not finish.
Rule 3: nothing written or logged holds a secret (``_core._redact``, the one rule).
Rule 4 (bounded): no reply is held whole.  The feed holds at most ``BUFFER`` bytes: a
client that does not read stops the proxy reading the upstream (whose sends then stall);
a recording keeps at most ``max_recording_size`` bytes (the client still gets them all)
and is marked ``truncated`` past it; a client that goes away cancels the upstream request
(its socket is shut down, its thread ends).  With ``out``, no body stays in memory.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import unquote

from .._core._errors import ConfigError
from .._core._mock import Mock, request
from .._core._plan import EndHow
from .._core._redact import Redactor
from .._core._reply import Reply, status
from .._core._request import Request
from .._server._admin import is_loopback
from .._server._feed import Feed
from .._server._server import LoopChoice, Server
from ._exchange import HOP_BY_HOP, Exchange, key_of, redactor_of, to_mock
from ._mocks import answering_once
from ._names import describe, numbered
from ._recording import Recording
from ._spool import MAX_RECORDING_SIZE, Spool, answering_once_in_file, write_mock

if TYPE_CHECKING:
    import httpcore

__all__ = ["Recorder", "climbs", "record"]

_SLUG = re.compile(r"[^a-z0-9]+")
_NUMBERED = re.compile(r"^\d{3}-.*\.yaml$")
_DROP_UPSTREAM = HOP_BY_HOP | {"host", "accept-encoding", "expect"}
#: The body bytes a feed holds for a client that does not read, before the proxy stops
#: reading the upstream.
BUFFER = 1024 * 1024
_JOURNAL = 100  # calls the proxy's server keeps (without bodies)


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
        redact: more header names whose values are secrets (the rule, ``REDACT`` and
            names with a secret word, always applies).
        timeout: seconds to connect to the upstream (reads wait as long as it streams); for
            a WebSocket upgrade, to connect and answer the upgrade (else the client gets 504).
        log: where to print one line per exchange (None: silent).
        verify: check the upstream's TLS certificate (True), or a CA bundle path.
        max_recording_size: the bytes of body a recording keeps (64 MiB); past them the
            client still gets the whole reply, and the recording is marked ``truncated``.
        loop: the proxy's server loop, as ``Server(loop=...)``: ``"auto"`` (uvloop when installed),
            ``"asyncio"`` or ``"uvloop"`` (the upstream side runs on threads either way).

    With ``out``, :attr:`mocks` reads the recordings back from their files (no body is
    kept in memory); without, it holds them.
    """

    def __init__(
        self,
        upstream: str,
        out: str | Path | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        redact: Iterable[str] = (),
        timeout: float = 10.0,
        log: TextIO | None = None,
        verify: bool | str = True,
        max_recording_size: int = MAX_RECORDING_SIZE,
        loop: LoopChoice = "auto",
    ) -> None:
        if not isinstance(upstream, str) or not re.match(r"^https?://[^/]", upstream):
            raise ConfigError(f"upstream={upstream!r} must be an http:// or https:// URL")
        self.upstream = upstream.rstrip("/")
        self.host = host
        self.out = None if out is None else Path(out)
        self.redact = tuple(n.lower() for n in redact)
        if type(max_recording_size) is not int or max_recording_size < 0:
            raise ConfigError(
                f"max_recording_size={max_recording_size!r} must be a number of bytes (>= 0)"
            )
        self.max_recording_size = max_recording_size
        self.log = log
        self._mocks: list[Mock] = []  # with out, without their bodies (those are on disk)
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._repeats: dict[str, list[int]] = {}  # request key -> indexes into mocks
        self._files: dict[int, Path] = {}
        self._first = 0
        self._taken: list[str] = []  # names of the mocks already in out
        self._threads: list[threading.Thread] = []
        self._names: dict[threading.Thread, str] = {}  # exchanges in flight, as logged
        self._late = False  # past close()'s deadline
        from ._upstream import Upstream  # on first use: importing mockhttp stays light

        self._upstream = Upstream(connect_timeout=timeout, verify=verify)
        self._verify = verify
        self._timeout = timeout
        # The proxy's own journal keeps no bodies: the recordings are the record.
        self.server = Server(host, port, journal_limit=_JOURNAL, journal_bytes=1, loop=loop)
        self.server.mock(request(None, None).respond_with(self._answer))

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Recorder:
        """Start listening; returns the recorder."""
        self._open_out()
        if not is_loopback(self.host):
            self._say(
                f"mockhttp record: warning: listening on {self.host}, not loopback: anyone "
                "who can reach this address can send requests (with your upstream's key "
                "if the client adds one) and read the replies"
            )
        self.server.start()
        return self

    def _open_out(self) -> None:
        if self.out is not None:
            self.out.mkdir(parents=True, exist_ok=True)
            numbers = [int(p.name[:3]) for p in self.out.iterdir() if _NUMBERED.match(p.name)]
            self._first = max(numbers, default=0)  # a second session adds, never overwrites
            self._taken = _names_in(self.out)

    def close(self, timeout: float = 30.0) -> list[str]:
        """Wait for exchanges in flight (all of them within ``timeout`` seconds), then
        stop.  Returns (and logs) the exchanges it could not finish: each a line such as
        ``POST /v1/chat/completions`` (those are not on disk)."""
        deadline = time.monotonic() + timeout
        for thread in list(self._threads):
            thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            unfinished = [name for t, name in self._names.items() if t.is_alive()]
            stuck = [t for t in self._names if t.is_alive()]
            self._late = True  # an exchange that ends from now on is not written
        for thread in stuck:  # their upstream requests end now: no thread left behind
            self._upstream.cancel(thread)
        for name in unfinished:
            self._say(f"mockhttp record: not finished within {timeout:g} s, not written: {name}")
        for exc in self.errors:
            self._say(f"mockhttp record: internal error: {type(exc).__name__}: {exc}")
        self.server.close()
        for thread in stuck:
            thread.join(1.0)
        self._upstream.close()
        return unfinished

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
    def mocks(self) -> list[Mock]:
        """The recorded mocks, in order (with ``out``, read back from their files)."""
        with self._lock:
            if self.out is None:
                return list(self._mocks)
            paths = [self._files[i] for i in range(len(self._mocks))]
        from .._mockfile._load import load

        return [m for path in paths for m in load(path)]

    @property
    def count(self) -> int:
        """How many exchanges are recorded (no file is read)."""
        with self._lock:
            return len(self._mocks)

    @property
    def url(self) -> str:
        """The proxy's base URL: give it to the client in place of the upstream's."""
        return self.server.url

    def wait(self, n: int, timeout: float = 5.0) -> list[Mock]:
        """Wait until ``n`` exchanges are recorded (they are once the reply has ended)."""
        deadline = time.monotonic() + timeout
        while self.count < n and time.monotonic() < deadline:
            time.sleep(0.005)
        return list(self.mocks)

    # -- per exchange ----------------------------------------------------------------------

    def _answer(self, req: Request) -> Reply:
        refused = self._refusal(req)
        if refused is not None:
            return refused
        if "websocket" in req.headers.get("upgrade", "").lower():
            return self._relay(req)
        threads: list[threading.Thread] = []

        def cancel() -> None:  # the client went away (or gave up before the head)
            self._upstream.cancel(threads[0])

        feed = Feed(limit=BUFFER, on_gone=cancel, on_eof=cancel)
        thread = threading.Thread(
            target=self._forward, args=(req, feed), name="mockhttp-record", daemon=True
        )
        threads.append(thread)
        try:
            thread.start()
        except RuntimeError as exc:  # no thread to be had: say so, never raise at close
            self.errors.append(exc)
            self._say(f"{self._shown(req)}: not forwarded: {exc}")
            return _refuse(503, f"mockhttp record could not start a thread: {exc}")
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
            self._names[thread] = self._shown(req)
        return feed.reply()

    def _relay(self, req: Request) -> Reply:
        """A WebSocket upgrade: answered as the upstream answers it (its 101 with its
        subprotocol, or its refusal), then the session relayed and recorded (``_ws``)."""
        import ssl

        from wsproto.utilities import generate_accept_token

        from .._server._upgrade import Handshake, switching_later
        from ._ws import Relay

        key = req.headers.get("sec-websocket-key", "")
        if not key or req.headers.get("sec-websocket-version") != "13":
            return _refuse(400, "a WebSocket upgrade needs Sec-WebSocket-Key and version 13")
        verify = self._verify
        context = None
        if isinstance(verify, str):
            context = ssl.create_default_context(cafile=verify)
        elif verify is False:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE

        def relay(handshake: Handshake) -> Relay:
            return Relay(
                self.upstream, req, self._keep_session, handshake, context, self.redact,
                self._timeout,
            )  # fmt: skip

        accept = generate_accept_token(key.encode()).decode()
        return switching_later(relay, "websocket").header("Sec-WebSocket-Accept", accept)

    def _keep_session(self, relay: Any) -> None:
        """A relayed WebSocket session ended: its mock, or the upstream's refusal's (Rule 2
        of ``_ws``); an upgrade the proxy answered itself is not recorded (Rule 3)."""
        from .._mockfile._dump import dump
        from ._ws import refusal_mock, websocket_mock

        shown = self._shown(relay.req)
        redactor = Redactor.of_request(relay.req, names=self.redact)
        if not relay.reached and relay.refused is None:  # Rule 3 of ``_ws``
            self._say(
                f"{shown}: not recorded: the WebSocket upstream {redactor.text(relay.failure)}"
            )
            return
        with self._lock:
            if self._late:
                return
            taken = [m.name or "" for m in self._mocks] + self._taken
            if relay.refused is not None:
                label = redactor.text(f"websocket {relay.req.path} refused")
                mock = refusal_mock(relay.req, relay.refused, numbered(label, taken), self.redact)
                what = f"{relay.refused.status} (the upgrade refused)"
            else:
                label = redactor.text(f"websocket {relay.req.path}")
                chosen = relay.subprotocol
                if chosen is not None:  # (an upstream could choose the key's protocol)
                    chosen = redactor.text(chosen)
                mock = websocket_mock(relay.req, relay.kept, numbered(label, taken), chosen)
                what = f"101 ({len(relay.kept)} messages)"
            index = len(self._mocks)
            self._mocks.append(mock)
            if self.out is not None:
                path = self._path(index)
                temporary = path.with_name(path.name + ".tmp")
                temporary.write_text(dump([mock]), encoding="utf-8")
                temporary.replace(path)
        self._recorded(mock if self.out is None else self._path(index))
        self._say(f"recorded {shown} -> {what}: {mock.name}")

    def _refusal(self, req: Request) -> Reply | None:
        """The 400 for a target that is not origin-form (Rule 1), else None."""
        target = req.target
        why = None
        if req.method == "CONNECT" or not target.startswith("/"):
            proxy = "://" in target.partition("/")[0] or "://" in target[:10]
            why = (
                "an absolute-form target (is the recorder set as HTTP_PROXY? give the client "
                f"{self.url} as its base URL instead)"
                if proxy
                else "an authority-form target (CONNECT or host:port)"
            )
        elif target.startswith("//"):
            why = "a target that starts with // (a host, not a path)"
        elif climbs(target):
            why = "a path with a '..' segment (it would climb out of the upstream's base path)"
        elif not self._to_upstream(self.upstream + target):
            why = "a target that would leave the upstream"
        if why is None:
            return None
        shown = Redactor.of_request(req).text(f"{req.method} {target}")
        self._say(f"refused {shown[:200]}: {why}; only /path?query is forwarded")
        return _refuse(400, f"mockhttp record forwards only /path?query targets, not {why}")

    def _to_upstream(self, url: str) -> bool:
        """True when ``url`` names the upstream's own scheme, host and port."""
        import httpx

        try:
            built, upstream = httpx.URL(url), httpx.URL(self.upstream)
        except (httpx.InvalidURL, ValueError):
            return False
        return (built.scheme, built.host, built.port, built.userinfo) == (
            upstream.scheme, upstream.host, upstream.port, upstream.userinfo,
        )  # fmt: skip

    def _shown(self, req: Request) -> str:
        return Redactor.of_request(req, names=self.redact).text(f"{req.method} {req.target}")

    def _forward(self, req: Request, feed: Feed) -> None:
        spool = None
        try:
            folder = self.out
            spool = Spool(folder, redactor_of(req, self.redact), self.max_recording_size)
            exchange = self._exchange(req, feed, spool)
            self._keep(exchange, spool)
        except Exception as exc:  # a bug: keep it, never leave the client hanging
            self.errors.append(exc)
            self._say(f"{self._shown(req)}: internal error: {type(exc).__name__}: {exc}")
            if not feed.gone:
                with contextlib.suppress(ConfigError):
                    feed.end("reset")
        finally:
            if spool is not None:
                spool.discard()
            with self._lock:
                self._names.pop(threading.current_thread(), None)

    def _exchange(self, req: Request, feed: Feed, spool: Spool) -> Exchange:
        from ._upstream import Cancelled, Unreachable, UpstreamError

        headers = [(k, v) for k, v in req.headers.items_list if k.lower() not in _DROP_UPSTREAM]
        headers.append(("Accept-Encoding", "identity"))
        url = self.upstream + req.target
        start = time.monotonic()
        head: tuple[int, str, tuple[tuple[str, str], ...], int | None] | None = None
        head_at = start
        end: EndHow = "complete"
        try:
            with self._upstream.stream(req.method, url, headers, req.body) as resp:
                head_at = time.monotonic()
                head = _head(resp)
                code, reason, raw, length = head
                sent = [(k, v) for k, v in raw if k.lower() not in HOP_BY_HOP]
                feed.head(code, sent, reason=reason or None, length=length)
                for chunk in resp.iter_stream():
                    spool.add(time.monotonic() - head_at, chunk)
                    feed.data(chunk)  # waits while the client does not read
                    if feed.gone:
                        end = "close"  # the client hung up: the recording stops here
                        break
        except Cancelled:
            end = "close"
            self._say(f"{self._shown(req)}: the client went away; upstream request cancelled")
        except Unreachable as exc:  # no connection: nothing of the upstream to reproduce
            return self._unreachable(req, feed, spool, exc)
        except UpstreamError as exc:
            end = "reset" if _was_reset(exc) else "close"
            shown = redactor_of(req, self.redact).text(f"{type(exc).__name__}: {exc}")
            self._say(f"{self._shown(req)}: upstream {shown}")
        spool.finish()
        if not feed.gone:
            feed.end(end)
        if head is None:
            failure = "reset" if end == "reset" else "empty_response"
            return Exchange(req, 0, "", (), 0.0, (), None, end, failure=failure)
        code, reason, raw, length = head
        return Exchange(req, code, reason, raw, head_at - start, (), length, end)

    def _unreachable(self, req: Request, feed: Feed, spool: Spool, exc: Exception) -> Exchange:
        """Rule 5: the client gets a ``502`` that says why; nothing is recorded."""
        shown = redactor_of(req, self.redact).text(f"{type(exc).__name__}: {exc}")
        self._say(f"{self._shown(req)}: not recorded: the upstream is unreachable ({shown})")
        spool.finish()
        if not feed.gone:
            body = f"mockhttp: the upstream {self.upstream} is unreachable ({shown})\n".encode()
            text = [("Content-Type", "text/plain; charset=utf-8")]
            feed.head(502, text, reason="Bad Gateway", length=len(body))
            feed.data(body)
            feed.end("complete")
        return Exchange(req, 0, "", (), 0.0, (), None, "close", failure="unreachable")

    def _keep(self, exchange: Exchange, spool: Spool) -> None:
        if exchange.failure == "unreachable":  # Rule 5: said already, not recorded
            return
        key = key_of(exchange.request)
        with self._lock:
            if self._late:
                return
            repeats = self._repeats.setdefault(key, [])
            mock = _spooled(to_mock(exchange, redact=self.redact, call=len(repeats)), spool)
            taken = [m.name or "" for m in self._mocks] + self._taken
            label = redactor_of(exchange.request, self.redact).text(describe(exchange.request))
            mock = dataclasses.replace(mock, name=numbered(label, taken))  # no secret in a name
            index = len(self._mocks)
            self._mocks.append(mock if self.out is None else _bodiless(mock))
            if repeats:  # the previous call of the same request now answers once
                before = repeats[-1]
                self._mocks[before] = answering_once(self._mocks[before])
                if self.out is not None:
                    answering_once_in_file(self._path(before))
            repeats.append(index)
            if self.out is None:
                self._recorded(mock)
            else:  # served from the whole file, before it shows in the folder
                write_mock(self._path(index), mock, spool, whole=self._recorded)
            over = "" if self.out is None else _over_limit(self._path(index))
        what = "failed" if exchange.failure else str(exchange.status)
        self._say(
            f"recorded {self._shown(exchange.request)} -> {what}"
            + (f" ({exchange.end})" if exchange.end != "complete" else "")
            + (
                f" (truncated: {spool.kept} of {spool.seen} bytes kept, --max-recording-size)"
                if spool.truncated
                else ""
            )
            + f": {mock.name}"
            + over
        )

    def _recorded(self, recorded: Mock | Path) -> None:
        """A hook: a mock was just recorded (in memory, or whole in its file when the
        recorder keeps files); ``_missing`` serves it."""

    def _path(self, index: int) -> Path:
        assert self.out is not None
        path = self._files.get(index)
        if path is None:
            mock = self._mocks[index]
            slug = _SLUG.sub("-", f"{mock.method}-{mock.path}".lower()).strip("-")[:60]
            path = self.out / f"{self._first + index + 1:03d}-{slug}.yaml"
            self._files[index] = path
        return path

    def _say(self, line: str) -> None:
        if self.log is not None:
            print(line, file=self.log, flush=True)


def _over_limit(path: Path) -> str:
    """What the log line says of a recording too large to load as a mock file (``serve``
    refuses it until the limit is raised), else ``""``."""
    from .._mockfile._load import FILE_BYTES_ENV, max_file_bytes, raise_with

    size = path.stat().st_size
    limit = max_file_bytes()
    if size <= limit:
        return ""
    return (
        f" (warning: {size:,} bytes, over the {limit:,}-byte limit of a mock file: to replay "
        f"it, {raise_with(FILE_BYTES_ENV, size)}; or record less with --max-recording-size)"
    )


def climbs(target: str) -> bool:
    """True when the path of ``target`` has a ``..`` segment once percent-decoded (up to
    three times: ``%252e`` too), ``/`` or ``\\`` splitting segments."""
    path = target.partition("?")[0].partition("#")[0]
    for _ in range(3):
        if ".." in re.split(r"[/\\]", path):
            return True
        decoded = unquote(path)
        if decoded == path:
            return False
        path = decoded
    return ".." in re.split(r"[/\\]", path)


def _refuse(code: int, message: str) -> Reply:
    return status(code).json({"error": {"type": "mockhttp_record_refused", "message": message}})


def _names_in(folder: Path) -> list[str]:
    """The names of the mocks in ``folder``'s files (a file that does not load has none)."""
    from .._mockfile._load import load

    names = []
    for path in sorted(folder.glob("*.yaml")):
        with contextlib.suppress(ConfigError, OSError):
            names += [m.name for m in load(path) if m.name]
    return names


def _head(resp: httpcore.Response) -> tuple[int, str, tuple[tuple[str, str], ...], int | None]:
    """Status, reason, raw headers and announced length of an upstream's reply."""
    raw = tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in resp.headers)
    reason = resp.extensions.get("reason_phrase", b"")
    names = {k.lower(): v for k, v in raw}
    value = names.get("content-length")
    chunked = "transfer-encoding" in names
    length = int(value) if value is not None and value.isdigit() and not chunked else None
    return resp.status, reason.decode("latin-1"), raw, length


def _spooled(mock: Mock, spool: Spool) -> Mock:
    """``mock`` (from an exchange without writes) with the spool's: in memory when the
    recorder keeps no files; the length follows redaction; a truncated recording says so."""
    reply = mock.response
    if not isinstance(reply, Recording):
        return mock  # a failure before the head: a fault
    length = reply.length
    if spool.truncated:
        reply = dataclasses.replace(reply, length=None, end="close", truncated=spool.seen)
    elif length is not None:
        reply = dataclasses.replace(reply, length=length + spool.written - spool.kept)
    return dataclasses.replace(mock, response=dataclasses.replace(reply, writes=spool.in_memory()))


def _bodiless(mock: Mock) -> Mock:
    reply = mock.response
    if isinstance(reply, Recording):
        return dataclasses.replace(mock, response=dataclasses.replace(reply, writes=()))
    return mock


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
