"""``mockhttp serve --workers N``: N processes serving one port, one admin API over all.

The supervisor (the ``mockhttp serve`` process) holds the port (a bound socket with
``SO_REUSEPORT``, not listening) and starts N workers, each a ``mockhttp serve`` process
that listens on the same port with ``SO_REUSEPORT``: the kernel spreads connections over
them, and each serves every mock.

The admin API is a layer above each worker's own (``_admin.AdminAPI``):

- each worker also serves its own admin API on a private control port (127.0.0.1, a free
  port), which only the supervisor uses;
- an admin request that reaches a worker on the shared port is forwarded to the
  supervisor's hub, which sends it to every worker's control port at once (one admin
  request at a time), and answers with the workers' answers merged (counts added up, calls of every
  worker); so a mock added, replaced or removed is on every worker before the admin call
  returns, and the journal and counts cover all workers;
- the hub keeps every change that succeeded (POST, PUT, PATCH, DELETE) and replays them
  to a worker that replaces a dead one before that worker starts listening, so it serves
  what the others serve, with the same mock ids (but a scenario moved by hand: its state
  is the supervisor's, ``replayed``);
- the state of mocks that keep one (``times``, ``replies`` sequences, scenarios) and of
  the capacities is the supervisor's (``_shared.Keeper``): a worker asks it over a
  socketpair of its own, and what a worker that dies held is given back (``_shared``);
  a mock that keeps no state is answered without asking;
- with ``--metrics``, a worker's ``GET /metrics`` asks the hub (``ForwardingMetrics``),
  which asks every worker's control port for its samples and merges them (``_merged``):
  one answer for the whole server (the hub runs for this even with ``--no-admin``).

Rule 1: the supervisor serialises admin requests (one lock), so every worker sees the
same changes in the same order.  A write is all-or-nothing: a worker that cannot answer
it (it died, or took longer than ``hop_timeout``: 30 s plus the body's reading) is killed
and replaced from the kept changes, so the change is kept when every worker that answered
applied it; a worker waits for the hub longer than that (``forward_timeout``), so the
client gets the hub's answer, never a 502 for a change that was kept.
Rule 2: a worker never blocks its loop on the hub for admin work: its reply to a
forwarded admin request is a plan that waits for the answer a thread fetches.  (A state
question is one short round trip on a socketpair, answered under a lock that nothing else
holds for long: it is asked on the loop.)
Rule 3: the private ports (the hub, each worker's control port) take only the
supervisor and its workers: every request carries the run's secret (``SECRET_HEADER``,
made at start, given to the workers through their environment, compared in constant
time, never logged); anything else gets a 403 (the hub's: before it reads the body).  With
``--no-admin`` there is no hub, and a control port only reloads, for the supervisor.
"""

from __future__ import annotations

import hmac
import http.client
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote

from .._core._gc import collector_off
from .._core._reply import Reply, status
from .._core._request import Request
from ._admin import MAX_ADMIN_BODY
from ._hub_events import EVENTS_PATH, open_merged, relay
from ._merged import Book, dump
from ._metrics import families
from ._shared import Keeper
from ._sliced import dumps, loads

__all__ = [
    "SECRET_ENV",
    "SECRET_HEADER",
    "ControlAdmin",
    "ForwardingAdmin",
    "ForwardingMetrics",
    "Supervisor",
    "forward_timeout",
    "hop_timeout",
    "merge",
    "replayed",
    "take_secret",
    "worker_count",
]

_TIMEOUT = 30.0  # seconds for one admin request to a worker, plus the body's reading
_SLOWEST_READ = 32 * 1024  # bytes of mocks a second a worker reads at least (a busy machine)
_SUMMED = frozenset({"call_count", "count", "calls_total", "dropped"})
SECRET_HEADER = "X-Mockhttp-Secret"
METRICS_TARGET = "/__mockhttp/_metrics"  # a worker's samples (control), all merged (hub)
UI_PREFIX = "/__mockhttp/ui"  # the dashboard's files and session: each worker answers
SECRET_ENV = "MOCKHTTP_WORKER_SECRET"  # how a worker gets the run's secret (then forgets it)


def take_secret() -> str:
    """A worker: the run's secret, removed from the environment (its children never see it)."""
    return os.environ.pop(SECRET_ENV, "")


def _has_secret(given: str | None, secret: str) -> bool:
    return bool(secret) and hmac.compare_digest((given or "").encode(), secret.encode())


def _refused_json() -> dict[str, Any]:
    message = "this port is private to mockhttp serve --workers"
    return {"error": {"type": "forbidden", "message": message}}


def _refused() -> Reply:
    return status(403).json(_refused_json())


def worker_count(text: str) -> int:
    """``--workers``: a positive number, or ``auto`` (the CPUs this process may use)."""
    if text == "auto":
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # not Linux
            return max(1, os.cpu_count() or 1)
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{text!r} is not a positive whole number or 'auto'")
    return int(text)


# -- merging the workers' answers -----------------------------------------------------


def merge(answers: Sequence[Any], key: str = "") -> Any:
    """One JSON answer from every worker's: counts (``call_count``, ``count``) added up,
    ``calls`` lists joined (each call tagged with its ``worker``), lists of objects merged
    item by item (the workers hold the same mocks, in the same order), anything else as
    the first worker said."""
    first = answers[0]
    if key == "exact" and all(type(a) is bool for a in answers):
        return all(answers)
    if key in _SUMMED and all(type(a) is int for a in answers):
        return sum(answers)
    if key == "calls" and all(isinstance(a, list) for a in answers):
        joined = []
        for worker, calls in enumerate(answers):
            for call in calls:
                joined.append({**call, "worker": worker} if isinstance(call, dict) else call)
        if all(isinstance(c, dict) and "time" in c for c in joined):
            joined.sort(key=lambda c: c["time"])
        return joined
    if isinstance(first, dict) and all(isinstance(a, dict) for a in answers):
        return {k: merge([a.get(k) for a in answers], k) for k in first}
    if (
        isinstance(first, list)
        and all(isinstance(a, list) and len(a) == len(first) for a in answers)
        and all(isinstance(item, dict) for item in first)
    ):
        return [merge([a[i] for a in answers], key) for i in range(len(first))]
    return first


# -- the worker's side --------------------------------------------------------------------


def hop_timeout(size: int) -> float:
    """Seconds the hub waits for a worker's answer to an admin request with a body of
    ``size`` bytes: ``_TIMEOUT``, plus the time a busy machine takes to read that many
    bytes of small mocks (16 MiB took 82 s; a fixed 30 s made the hub drop a worker that
    was still reading, and the client get a 502 for mocks that were added)."""
    return _TIMEOUT + size / _SLOWEST_READ


def forward_timeout(size: int) -> float:
    """Seconds a worker waits for the hub's answer: longer than the hub waits for the
    workers (which it asks all at once), so the client always gets the hub's answer."""
    return hop_timeout(size) + _TIMEOUT


def _http(
    port: int,
    secret: str,
    method: str,
    target: str,
    body: bytes,
    content_type: str,
    timeout: float | None = None,
) -> tuple[int, bytes]:
    wait = hop_timeout(len(body)) if timeout is None else timeout
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=wait)
    try:
        headers = {SECRET_HEADER: secret}
        if content_type:
            headers["Content-Type"] = content_type
        conn.request(method, target, body=body or None, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def _as_reply(code: int, body: bytes) -> Reply:
    return status(code).header("Content-Type", "application/json").body(body)


class ForwardingAdmin:
    """A worker's admin API on the shared port: every request goes to the supervisor's
    hub, which runs it on all workers (set as ``server.admin``; the server calls it on its
    admin thread, so it may block).  ``refusal`` is the worker's own guard (``Origin``,
    ``Host``, token), applied here before anything is forwarded."""

    def __init__(
        self,
        hub_port: int,
        secret: str,
        refusal: Callable[[Request], Reply | None] = lambda r: None,
        test_header: str | None = None,
        local: Callable[[Request], Reply] | None = None,
    ) -> None:
        self.hub_port = hub_port
        self.secret = secret
        self.refusal = refusal
        self.test_header = test_header
        self.local = local  # the worker's own admin API: the dashboard's files and cookie

    def _target(self, request: Request) -> str:
        """The target forwarded: a test named by the test header goes as ``?test=ID``
        (the hub forwards no other header: every worker's admin API scopes by it)."""
        header = self.test_header
        test = None if header is None else request.headers.get(header)
        if test is None or request.query_value("test") is not None:
            return request.target
        joiner = "&" if "?" in request.target else "?"
        return f"{request.target}{joiner}test={quote(test.strip(), safe='')}"

    def __call__(self, request: Request) -> Reply:
        refused = self.refusal(request)
        if refused is not None:
            return refused
        if self.local is not None and request.path.startswith(UI_PREFIX):
            return self.local(request)  # (the same on every worker: no data in them)
        if request.path == EVENTS_PATH and request.method == "GET":  # every worker's, live
            headers = {SECRET_HEADER: self.secret}
            resume = request.headers.get("last-event-id")
            if resume:  # (the page reconnects: the hub resumes every worker's stream)
                headers["Last-Event-ID"] = resume
            return relay(self.hub_port, self._target(request), headers)
        return self._forward(request)

    def _forward(self, request: Request) -> Reply:
        try:
            code, body = _http(
                self.hub_port,
                self.secret,
                request.method,
                self._target(request),
                request.body,
                request.headers.get("content-type", ""),
                forward_timeout(len(request.body)),
            )
        except OSError as exc:
            message = {"error": {"type": "workers", "message": f"supervisor unreachable: {exc}"}}
            return status(502).json(message)
        return _as_reply(code, body)


class ForwardingMetrics:
    """A worker's ``GET /metrics`` under ``--workers``: the supervisor's merged answer
    (``_merged``), asked on the worker's admin thread (Rule 2); ``?per_worker=1`` asks
    for one series per worker."""

    def __init__(self, hub_port: int, secret: str) -> None:
        self.hub_port = hub_port
        self.secret = secret

    def __call__(self, request: Request) -> Reply:
        query = request.target.partition("?")[2]
        target = METRICS_TARGET + (f"?{query}" if query else "")
        try:
            code, body = _http(self.hub_port, self.secret, "GET", target, b"", "", _TIMEOUT)
        except OSError as exc:
            text = f"mockhttp: the supervisor is out of reach ({exc})\n"
            return status(502).header("Content-Type", "text/plain; charset=utf-8").body(text)
        kind = _PROMETHEUS if code == 200 else "application/json"
        return status(code).header("Content-Type", kind).body(body)


_PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8"


def replayed(method: str, target: str) -> bool:
    """Whether an admin write is kept for the workers that start later: every one but a
    scenario moved by hand (``PUT scenarios/{name}/state``), whose state is the
    supervisor's (a new worker asks it there; played again, it would undo the moves
    made since)."""
    path = target.partition("?")[0].rstrip("/")
    return not (
        method == "PUT" and path.startswith("/__mockhttp/scenarios/") and path.endswith("/state")
    )


def _per_worker(target: str) -> bool:
    """``?per_worker=1`` (or ``true``): one series per worker, labelled ``worker``."""
    query = parse_qs(target.partition("?")[2])
    return query.get("per_worker", [""])[-1].lower() in ("1", "true", "yes")


class ControlAdmin:
    """A worker's admin API on its private control port (only the supervisor calls it):
    ``admin`` answers without the guards (the worker applied them before forwarding), or
    is None (``--no-admin``: only the reload of ``--watch``); a request without the run's
    ``secret`` gets a 403 (Rule 3)."""

    def __init__(
        self, admin: Callable[[Request], Reply] | None, reload: Callable[[], object], secret: str
    ) -> None:
        self.admin = admin
        self.reload = reload
        self.secret = secret

    def __call__(self, request: Request) -> Reply:
        if not _has_secret(request.headers.get(SECRET_HEADER), self.secret):
            return _refused()
        if request.path == METRICS_TARGET and request.method == "GET":  # its own samples
            found = families()
            return status(200).json(dump(found.registry) if found is not None else [])
        if request.path.rstrip("/") == "/__mockhttp/_reload" and request.method == "POST":
            self.reload()
            return status(200).json({"reloaded": True})
        if self.admin is None:
            return status(404).json({"error": {"type": "no_admin", "message": "no admin API"}})
        return self.admin(request)


# -- the supervisor -----------------------------------------------------------------------


@dataclass
class _Worker:
    number: int
    proc: subprocess.Popen[str]
    control: int  # its control port


class Supervisor:
    """Starts ``count`` workers on ``host:port``, replaces those that die, runs the hub.

    Args:
        worker_argv: the ``mockhttp serve`` command line of one worker, without
            ``--port`` and ``--worker`` (the supervisor adds them).
        log: writes a line to the log (stderr).
        admin: the hub runs admin requests on every worker (False: ``--no-admin``).
        metrics: the hub merges the workers' ``/metrics`` (``_merged``); without
            ``admin`` nor ``metrics`` there is no hub at all.
    """

    def __init__(
        self,
        host: str,
        port: int,
        count: int,
        worker_argv: Sequence[str],
        log: Callable[[str], None],
        admin: bool = True,
        metrics: bool = False,
    ) -> None:
        self.host = host
        self.admin = admin
        self.count = count
        self.worker_argv = list(worker_argv)
        self.log = log
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        if port:  # a port someone uses, even with SO_REUSEPORT, is not ours to share
            with socket.socket(family, socket.SOCK_STREAM) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind((host, port))
        self._hold = socket.socket(family, socket.SOCK_STREAM)  # keeps the port ours
        self._hold.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._hold.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        try:
            self._hold.bind((host, port))
        except OSError:
            self._hold.close()
            raise
        self.port: int = self._hold.getsockname()[1]
        self.workers: list[_Worker | None] = [None] * count
        self.changes: list[tuple[str, str, bytes, str]] = []  # admin changes, for new workers
        self.lock = threading.Lock()
        self.stopping = False
        self.secret = secrets.token_urlsafe(32)  # Rule 3
        self.keeper = Keeper()
        self.book = Book()  # the workers' metrics (_merged)
        self._scrape_lock = threading.Lock()
        self._hub: ThreadingHTTPServer | None = None
        self.hub_port = 0
        if admin or metrics:
            self._hub = ThreadingHTTPServer(("127.0.0.1", 0), _hub_handler(self))
            self._hub.daemon_threads = True
            self.hub_port = self._hub.server_address[1]
            threading.Thread(
                target=self._hub.serve_forever, name="mockhttp-hub", daemon=True
            ).start()

    scheme = "http"  # "https": the workers serve TLS (serve --tls)

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"

    def start(self) -> None:
        """Start every worker (each listening once it is ready)."""
        with self.lock:
            for number in range(self.count):
                self.workers[number] = self._spawn(number)

    def _spawn(self, number: int) -> _Worker:
        """Start worker ``number``, bring it up to date, let it listen (lock held)."""
        ours, theirs = socket.socketpair()
        argv = [
            *self.worker_argv,
            "--port",
            str(self.port),
            "--worker",
            f"{number}:{self.hub_port}:{theirs.fileno()}",
        ]
        env = {**os.environ, SECRET_ENV: self.secret}
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=env,
                pass_fds=(theirs.fileno(),),
            )
        finally:
            theirs.close()
        threading.Thread(
            target=self.keeper.serve, args=(ours,), name=f"mockhttp-state:{number}", daemon=True
        ).start()
        assert proc.stdout is not None
        assert proc.stdin is not None
        line = proc.stdout.readline()
        if not line.startswith("CONTROL "):
            proc.kill()
            proc.wait()
            raise RuntimeError(f"worker {number} did not start (it said {line.strip()!r})")
        worker = _Worker(number, proc, int(line.split()[1]))
        for change in self.changes:  # what the others were told since they started
            _http(worker.control, self.secret, *change)
        proc.stdin.write("listen\n")
        proc.stdin.flush()
        line = proc.stdout.readline()  # its URL, once it listens
        if not line.startswith("http"):
            proc.kill()
            proc.wait()
            raise RuntimeError(f"worker {number} did not listen (it said {line.strip()!r})")
        return worker

    def watch(self, stop: threading.Event, every: float, tick: Callable[[], None]) -> None:
        """Until ``stop``: replace workers that died (and say so), call ``tick``."""
        while not stop.wait(every):
            tick()
            for number, worker in enumerate(self.workers):
                if worker is None or worker.proc.poll() is None:
                    continue
                code = worker.proc.returncode
                how = f"signal {-code}" if code < 0 else f"exit status {code}"
                self.log(
                    f"mockhttp: worker {number} (pid {worker.proc.pid}) died ({how}); "
                    "starting a new one"
                )
                with self.lock:
                    try:
                        self.workers[number] = new = self._spawn(number)
                    except (RuntimeError, OSError) as exc:
                        self.log(f"mockhttp: worker {number} could not be restarted: {exc}")
                        continue
                self.log(f"mockhttp: worker {number} restarted (pid {new.proc.pid})")

    def broadcast(
        self, method: str, target: str, body: bytes = b"", content_type: str = ""
    ) -> tuple[int, Any]:
        """Run one admin request on every worker; return the merged status and answer.

        All or nothing (Rule 1): a worker that does not answer is killed (``watch``
        replaces it from the kept changes), so a write that every answering worker
        applied is kept, and one that none applied is not."""
        write = method not in ("GET", "HEAD")
        with self.lock:
            answers: list[tuple[int, Any]] = []
            live = [w for w in self.workers if w is not None and w.proc.poll() is None]
            # (a dead one is being replaced, from the kept changes)
            for worker, got in zip(live, _ask_all(live, self.secret, method, target, body,
                                                  content_type), strict=True):  # fmt: skip
                if isinstance(got, Exception):
                    self._drop(worker, got)
                else:
                    answers.append(got)
            if write and answers and all(code < 400 for code, _ in answers):
                if replayed(method, target):
                    self.changes.append((method, target, body, content_type))
                self.keeper.after(method, target)
        if not answers:
            return 503, {"error": {"type": "workers", "message": "no worker answered"}}
        codes = {code for code, _ in answers}
        if len(codes) > 1:  # the workers disagree: say so rather than pick one
            return 500, {
                "error": {"type": "workers", "message": "workers answered differently"},
                "answers": [a for _, a in answers],
            }
        return answers[0][0], merge([a for _, a in answers])

    def live(self) -> list[_Worker]:
        """The workers running now (a dead one is being replaced)."""
        return [w for w in self.workers if w is not None and w.proc.poll() is None]

    def scrape(self, per_worker: bool = False) -> bytes:
        """Every worker's metrics, merged (``_merged``): one ``/metrics`` for the server.

        A worker that does not answer is not dropped (that is for admin writes): its
        totals of the last scrape stand in for it."""
        with self._scrape_lock:
            workers = list(self.workers)
            live = [w for w in workers if w is not None and w.proc.poll() is None]
            got = _ask_all(live, self.secret, "GET", METRICS_TARGET, b"", "")
            answered = {w.number: (w.proc.pid, a) for w, a in zip(live, got, strict=True)}
            for number, worker in enumerate(workers):
                pid, answer = answered.get(number, (0, None))
                ok = isinstance(answer, tuple) and answer[0] == 200
                if not ok or worker is None:
                    self.book.read(number, pid, None)
                else:
                    assert isinstance(answer, tuple)
                    self.book.read(number, pid, answer[1])
            return self.book.text(per_worker)

    def _drop(self, worker: _Worker, exc: Exception) -> None:
        """A worker that did not answer an admin request: kill it, to be replaced."""
        self.log(f"mockhttp: worker {worker.number} did not answer ({exc}); replacing it")
        if worker.proc.poll() is None:
            worker.proc.kill()
        worker.proc.wait()

    def stop(self, timeout: float = 5.0) -> None:
        """SIGTERM every worker; kill those still running after ``timeout`` seconds."""
        self.stopping = True
        procs = [w.proc for w in self.workers if w is not None]
        for proc in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for proc in procs:
            try:
                proc.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._hub is not None:
            self._hub.shutdown()
            self._hub.server_close()
        self._hold.close()


def _ask_all(
    workers: Sequence[_Worker], secret: str, method: str, target: str, body: bytes, kind: str
) -> list[tuple[int, Any] | Exception]:
    """Every worker's answer to one admin request (or why it gave none), asked all at
    once: one after another, a big body took N times as long to answer."""
    got: list[tuple[int, Any] | Exception] = [OSError("no answer")] * len(workers)

    def ask(i: int, worker: _Worker) -> None:
        try:
            code, raw = _http(worker.control, secret, method, target, body, kind)
            got[i] = (code, loads(raw) if raw else None)  # (a big one in slices: _sliced)
        except (OSError, ValueError) as exc:
            got[i] = exc

    threads = [threading.Thread(target=ask, args=pair, daemon=True) for pair in enumerate(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return got


def _hub_handler(supervisor: Supervisor) -> type[BaseHTTPRequestHandler]:
    class Hub(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _any(self) -> None:
            if not _has_secret(self.headers.get(SECRET_HEADER), supervisor.secret):
                self.close_connection = True  # its body stays unread
                return self._send(403, _refused_json())
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if not 0 <= length <= MAX_ADMIN_BODY:  # refused unread, as the admin API does
                self.close_connection = True
                return self._send(*_bad_length(length))
            body = self.rfile.read(length) if length else b""
            path = self.path.partition("?")[0]
            if path == METRICS_TARGET and self.command == "GET":
                return self._text(supervisor.scrape(_per_worker(self.path)))
            if not supervisor.admin or path.rstrip("/") == "/__mockhttp/_reload":
                return self._send(404, {"error": {"type": "unknown_endpoint", "message": ""}})
            if path == EVENTS_PATH and self.command == "GET":
                return self._events()
            with collector_off():  # (its passes over the answers held the interpreter)
                code, answer = supervisor.broadcast(
                    self.command, self.path, body, self.headers.get("Content-Type", "")
                )
                self._send(code, answer)

        def _events(self) -> None:
            """Every worker's journal stream, merged (``_hub_events``), until a worker's
            ends or the page goes."""
            live = supervisor.live()
            if not live:
                return self._send(503, {"error": {"type": "workers", "message": "no worker runs"}})
            opened = open_merged(
                [(w.number, w.control) for w in live],
                self.path,
                {SECRET_HEADER: supervisor.secret},
                self.headers.get("Last-Event-ID"),
            )
            if isinstance(opened, tuple):
                code, body = opened
                try:
                    answer = loads(body) if body else None
                except ValueError:  # (a worker's answer that is no JSON: say so)
                    text = body[:200].decode("utf-8", "replace")
                    answer = {"error": {"type": "workers", "message": text}}
                return self._send(code, answer)
            self.close_connection = True  # (the stream ends with the connection)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                opened.run(self.wfile.write, opened.merger(merge))
            except OSError:
                pass  # the page went
            finally:
                opened.close()

        def _send(self, code: int, answer: Any) -> None:
            data = dumps(answer)  # (a big one in slices: _sliced)
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _text(self, data: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", _PROMETHEUS)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _any

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the workers log the admin calls

    return Hub


def _bad_length(length: int) -> tuple[int, dict[str, Any]]:
    """The hub's answer to a ``Content-Length`` it does not read: over the admin API's
    body limit (413, its words), or no number (400)."""
    if length > MAX_ADMIN_BODY:
        message = f"the body is larger than {MAX_ADMIN_BODY} bytes; split the mocks"
        return 413, {"error": {"type": "too_large", "message": message}}
    return 400, {"error": {"type": "bad_request", "message": "Content-Length is no length"}}


def wait_for_listen() -> None:
    """A worker: wait until the supervisor says ``listen`` on stdin."""
    line = sys.stdin.readline()
    if line.strip() != "listen":
        raise SystemExit(0)  # the supervisor went away
