"""The ``mockhttp`` command: ``serve``, ``validate``, ``check`` and ``record``.

``serve`` prints the base URL on stdout (one line, flushed) once it listens, so a script can
read it; everything else (one line per request, reloads, errors) goes to stderr.

Rule 1: a file set is used whole or not at all: a bad file at start exits with status 1,
and a bad file on ``--watch`` keeps the mocks already served.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import shutil
import signal
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import FrameType

from .._core._cors import cors_policy
from .._core._errors import ConfigError, MockfileError, ServerError
from .._core._isolation import TEST_HEADER
from .._core._mock import Mock
from .._mockfile._load import (
    Names,
    file_problems,
    files,
    load,
    load_sourced,
    overlap_warnings,
)
from .._server._admin import is_loopback, test_header
from .._server._budget import CLI_DEFAULT
from .._server._dashboard import UI_PATH
from .._server._metrics import require as require_metrics
from .._server._otel import require as require_otel
from .._server._server import LOOPS, Server, loop_factory
from .._server._shared import StateChannel
from .._server._shared import join as join_admissions
from .._server._tests import test_header_of
from .._server._tls import kept_certs, make_certs
from .._server._tls import require as require_tls
from .._server._watch import watch_of
from .._server._workers import (
    ControlAdmin,
    ForwardingAdmin,
    ForwardingMetrics,
    Supervisor,
    take_secret,
    wait_for_listen,
    worker_count,
)
from ..mcp import allowing
from ..ws import allowing as ws_allowing
from . import _argtypes as argtypes
from . import _missing as missing
from ._serve import DEFAULTS, Served, Snapshot, not_reloaded, plural, watch_snapshot
from ._version import VersionAction

__all__ = ["TOKEN_ENV", "admin_warning", "main"]

_POLL = 0.25  # seconds between checks for a signal or a changed file
_STOP_WAIT = 0.5  # seconds to wait for the server's thread at exit (it may be stuck)
TOKEN_ENV = "MOCKHTTP_ADMIN_TOKEN"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); return the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["check"]:
        return _check(args[1:])
    if args[:1] == ["record"]:
        return _record(args[1:])
    if args[:1] == ["ui"]:
        return _ui(args[1:])
    parsed = _parser().parse_args(args)
    if parsed.command == "serve":
        return _serve(parsed)
    if parsed.command == "validate":
        return _validate(parsed.paths)
    if parsed.command == "defaults":
        return _defaults(parsed.out)
    _parser().print_help(sys.stderr)
    return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mockhttp",
        description="A mock HTTP server for clients of streaming (Server-Sent Events) APIs.",
    )
    parser.add_argument("--version", action=VersionAction)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    serve = commands.add_parser(
        "serve",
        help="serve mock files (or the built-in LLM mocks)",
        description="Serve the mocks in PATHs (files or directories of *.yaml, *.yml, "
        "*.json); with no PATH (or with --defaults), the built-in mocks: OpenAI Chat "
        "Completions and Responses, Anthropic Messages, Gemini generateContent and "
        "streamGenerateContent, and the models lists (`mockhttp defaults` lists them).  "
        "Prints the base URL on stdout when listening; GET /__mockhttp/health answers 200 "
        "once it does.  The admin API is under /__mockhttp/.",
    )
    serve.add_argument("paths", nargs="*", metavar="PATH", help="mock files or directories")
    serve.add_argument(
        "--defaults",
        action="store_true",
        help="serve the built-in mocks too, after yours: yours are tried first, and one of "
        "yours with a built-in mock's name replaces it",
    )
    serve.add_argument(
        "--allow-empty",
        action="store_true",
        help="start even when a directory holds no mock file (with --watch, add them later)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8080, help="port (8080; 0 picks a free one)")
    loud = serve.add_mutually_exclusive_group()
    loud.add_argument("--quiet", action="store_true", help="log no requests, only errors")
    loud.add_argument("--verbose", action="store_true", help="log request headers and bodies")
    serve.add_argument("--watch", action="store_true", help="reload files when they change")
    serve.add_argument(
        "--variants",
        action="store_true",
        help="also serve every mock under /VARIANT/..., recordings as that variant",
    )
    serve.add_argument(
        "--loop",
        choices=LOOPS,
        default="auto",
        help="event loop: auto (the default: uvloop when installed, else asyncio's), "
        "asyncio, or uvloop (pip install 'mockhttp[fast]')",
    )
    serve.add_argument(
        "--workers",
        type=_workers_arg,
        default=None,
        metavar="N",
        help="serve with N processes sharing the port (SO_REUSEPORT); auto: one per CPU.  "
        "The admin API covers all of them",
    )
    serve.add_argument("--worker", help=argparse.SUPPRESS)  # N:HUBPORT, set by the supervisor
    serve.add_argument(
        "--metrics",
        action="store_true",
        help="answer GET /metrics in Prometheus text under vLLM's names (pip install "
        "'mockhttp[metrics]'); under --workers one answer for all (?per_worker=1: by worker)",
    )
    serve.add_argument(
        "--otel",
        action="store_true",
        help="emit a span per call (GenAI semantic conventions for LLM replies) by "
        "OTLP/HTTP, as the OTEL_* variables say (pip install 'mockhttp[otel]')",
    )
    serve.add_argument(
        "--journal-limit",
        type=_positive,
        default=10_000,
        metavar="N",
        help="keep the newest N calls in the journal (10000); counts stay exact",
    )
    serve.add_argument(
        "--journal-bytes",
        type=argtypes.size,
        default=CLI_DEFAULT,
        metavar="SIZE",
        help="keep request and reply bodies in the journal up to SIZE (64MiB); the oldest "
        "are dropped first, their length and SHA-256 kept",
    )
    serve.add_argument(
        "--header-timeout",
        type=argtypes.seconds,
        default=10.0,
        metavar="SECONDS",
        help="close connections whose request head takes longer, or whose body pauses longer (10)",
    )
    serve.add_argument(
        "--idle-timeout",
        type=argtypes.seconds,
        default=300.0,
        metavar="SECONDS",
        help="close connections idle for longer between requests (300)",
    )
    serve.add_argument(
        "--test-header",
        default=TEST_HEADER,
        metavar="NAME",
        help="the request header that names a request's test: its own mocks, journal and "
        "reset (per-test isolation, docs/isolation.md; default x-mockhttp-test; "
        "'' for none, and no /__test/ID/ prefix either)",
    )
    serve.add_argument(
        "--cors",
        nargs="*",
        action="extend",
        metavar="ORIGIN",
        help="let web pages from ORIGIN (http://localhost:3000; none given: any origin) "
        "call the mocks: preflights answered, CORS headers on every reply (not the admin API)",
    )
    missing.add_arguments(serve)
    serve.add_argument(
        "--tls",
        action="store_true",
        help="serve https with a throwaway CA made for the run (pip install 'mockhttp[tls]'); "
        "its PEM file's path is printed: trust it (SSL_CERT_FILE, NODE_EXTRA_CA_CERTS)",
    )
    serve.add_argument(
        "--ca-dir",
        metavar="DIR",
        help="with --tls: keep the CA and the server's certificate in DIR (made there at the "
        "first run, used as they are after), so a client can trust DIR/ca.pem before the "
        "server starts",
    )
    serve.add_argument("--tls-dir", help=argparse.SUPPRESS)  # the supervisor's, for workers
    serve.add_argument(
        "--http2",
        action="store_true",
        help="serve HTTP/2 too (pip install 'mockhttp[http2]'): by ALPN with --tls, "
        "and h2c with prior knowledge on plain http",
    )
    admin = serve.add_argument_group("admin API")
    admin.add_argument("--no-admin", action="store_true", help="turn the admin API off")
    admin.add_argument(
        "--admin-token",
        metavar="TOKEN",
        help=f"require 'Authorization: Bearer TOKEN' on the admin API (default: ${TOKEN_ENV})",
    )
    admin.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also accept this Host name on the admin API and on MCP endpoints (IP addresses "
        "and localhost are); '*': any",
    )
    admin.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="also answer MCP requests and WebSocket upgrades from web pages of this Origin "
        "(http://app.example:3000; loopback ones are); '*': any",
    )
    admin.add_argument(
        "--ui",
        action="store_true",
        help="print the dashboard's URL (/__mockhttp/ui/: the journal live, stream timelines) "
        "and watch from the first call, so that each stream's timeline shows its plan",
    )
    admin.add_argument(
        "--no-redact",
        action="store_true",
        help="show secret headers (Authorization, x-api-key, ...) in the admin journal and log",
    )
    validate = commands.add_parser(
        "validate",
        help="check mock files",
        description="Check mock files (directories: their subdirectories too); print every "
        "error with its file, line and column.  "
        "Exit status 0 when every file loads, 1 otherwise.",
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", help="mock files or directories")
    defaults = commands.add_parser(
        "defaults",
        help="list the built-in mocks, or write them as files to edit",
        description="List the built-in mocks (`mockhttp serve` with no PATH, or --defaults); "
        "with --out DIR, write their files into DIR (created if missing; existing files are "
        "not overwritten) to edit and serve as your own.",
    )
    defaults.add_argument(
        "--out", type=Path, metavar="DIR", help="write the built-in mock files into DIR"
    )
    commands.add_parser(
        "record",
        help="record an upstream's replies as mock files, through a proxy",
        description="See `mockhttp record --help`.",
        add_help=False,
    )
    commands.add_parser(
        "ui",
        help="turn recordings into a journal the dashboard opens offline",
        description="See `mockhttp ui --help`.",
        add_help=False,
    )
    commands.add_parser(
        "check",
        help="check a live streaming endpoint against a provider contract",
        description="See `mockhttp check --help`.",
        add_help=False,
    )
    return parser


# -- serve ----------------------------------------------------------------------------------


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number from 0 to 65535")
    return int(text)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive whole number")
    return int(text)


def _workers_arg(text: str) -> int:
    try:
        return worker_count(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _serve(args: argparse.Namespace) -> int:
    paths = [Path(p) for p in args.paths] or [DEFAULTS]
    if paths == [DEFAULTS]:
        args.defaults = False  # (they are the files already)
    wrong = missing.problem(args, paths)
    if wrong is not None:
        print(f"mockhttp: {wrong}", file=sys.stderr)
        return 2
    if args.record_missing:  # an empty or new folder is where recording starts
        paths[0].mkdir(parents=True, exist_ok=True)
        args.allow_empty = True
    snapshot = watch_snapshot(paths) if args.watch else None  # before loading: miss no change
    try:
        empty = _empty_folders(paths)
        sourced = load_sourced(*paths)
        mocks = _with_defaults([mock for mock, _ in sourced], args.defaults)
    except MockfileError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.worker is None:  # (the supervisor's, not each worker's)
        for line in overlap_warnings(sourced):
            print(line, file=sys.stderr)
    if empty and not args.allow_empty:
        for folder in empty:
            print(f"{folder}: no mock files (*.yaml, *.yml, *.json) in it", file=sys.stderr)
        print("mockhttp: nothing to serve; --allow-empty starts anyway", file=sys.stderr)
        return 2
    try:
        if args.ca_dir is not None and not args.tls:
            raise ConfigError("--ca-dir DIR keeps the certificates of --tls: add --tls")
        if args.tls:
            require_tls()
        if args.ca_dir is not None and args.worker is None:
            args.tls_dir = str(kept_certs(args.host, Path(args.ca_dir)))
        if args.tls and args.tls_dir is None and args.workers is not None and args.worker is None:
            args.tls_dir = str(make_certs(args.host).folder)
        loop_factory(args.loop)
        test_header_of(args.test_header or None)
        cors_policy(args.cors)
        if args.metrics:
            require_metrics()
        if args.otel:
            require_otel()
    except ConfigError as exc:
        hint = "\n(paths go before --cors, or end its origins with --)" if args.cors else ""
        print(f"mockhttp: {exc}{hint}", file=sys.stderr)
        return 1
    token = args.admin_token or os.environ.get(TOKEN_ENV) or None
    if args.ui and args.no_admin:
        why = "--no-admin turns it off"
        print(f"mockhttp: --ui: the dashboard is part of the admin API ({why})", file=sys.stderr)
        return 2
    warning = admin_warning(args.host, token, admin=not args.no_admin)
    if warning is not None and args.worker is None:  # (the supervisor's, not each worker's)
        print(warning, file=sys.stderr)
    if args.workers is not None and args.worker is None:
        return _supervise(args, paths, len(mocks), snapshot)
    server = Server(
        args.host,
        args.port,
        journal_limit=args.journal_limit,
        loop=args.loop,
        reuse_port=args.worker is not None,
        journal_bytes=args.journal_bytes,
        header_timeout=args.header_timeout,
        idle_timeout=args.idle_timeout,
        cors=args.cors,
        metrics=args.metrics,
        otel=args.otel,
        tls=args.tls_dir or args.tls,
        http2=args.http2,
        test_header=args.test_header or None,
    )
    if args.variants:
        mocks = _variants(mocks)
    mocks = _widened(mocks, args.allow_host, args.allow_origin)
    recorder = None
    if args.record_missing:
        try:
            recorder = missing.recorder(args, server, lambda mock: served.add(mock))
        except ConfigError as exc:
            print(f"mockhttp: {exc}", file=sys.stderr)
            return 2
        mocks = [*mocks, recorder.fallback()]
    served = Served(
        server,
        paths,
        mocks,
        args.quiet,
        args.verbose,
        admin=None if args.no_admin else {
            "token": token, "hosts": args.allow_host, "redact": not args.no_redact
        },
        redact=not args.no_redact,
    )  # fmt: skip
    if args.defaults or args.variants:
        served.expand = _expander(args.defaults, args.variants)
    if args.allow_host or args.allow_origin:
        served.expand = _allowing(served.expand, args.allow_host, args.allow_origin)
    served.with_defaults = args.defaults
    if recorder is not None:
        served.expand = missing.with_fallback(served.expand, mocks[-1])
    control: Server | None = None
    if args.worker is not None:  # one of --workers: its admin API is everybody's
        _number, hub_port, fd = args.worker.split(":")
        secret = take_secret()
        channel = StateChannel(socket.socket(fileno=int(fd)))
        server.share(channel)  # the state of the mocks, and the kinds', is the supervisor's
        join_admissions(channel.ask, channel.tell)  # capacities count in the supervisor
        control = _control(served, secret)
        if served.admin is not None:  # (refused here, in the worker, before forwarding)
            header = test_header(server)  # (a test named by the header goes as ?test=)
            server.admin = ForwardingAdmin(
                int(hub_port), secret, served.admin.refusal, header, served.admin.handle
            )
        if args.metrics:  # one /metrics for the server: the supervisor merges (_merged)
            server.metrics_source = ForwardingMetrics(int(hub_port), secret)
    if args.ui:
        watch_of(server).install()  # (from the first call: each stream's plan is kept)
    try:
        server.start()
    except ServerError as exc:
        print(f"mockhttp: {exc}", file=sys.stderr)
        return 1
    # What exists now (modules, mocks, the loop) lives as long as the process: keep it out of
    # the collector's full passes, which otherwise stall every stream (see docs/performance.md).
    gc.freeze()
    stop = threading.Event()
    previous = {sig: signal.signal(sig, _stopper(stop)) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if control is None:
            served.announce()
            if args.ui:
                asks = " (it asks for the admin token)" if token else ""
                print(f"mockhttp: dashboard at {server.url}{UI_PATH}{asks}", file=sys.stderr,
                      flush=True)  # fmt: skip
            if recorder is not None:
                print(f"mockhttp: forwarding misses to {recorder.upstream}, recording them "
                      f"into {paths[0]}", file=sys.stderr, flush=True)  # fmt: skip
            if args.tls:
                kept = args.ca_dir is not None
                print(_ca_line(server.ca_path, kept=kept), file=sys.stderr, flush=True)
        else:
            print(server.url, flush=True)  # to the supervisor
            # the supervisor holds our stdin: at its end (it died, even by SIGKILL), stop
            threading.Thread(target=_stop_at_eof, args=(stop,), daemon=True).start()
        while not stop.wait(_POLL):
            if snapshot is not None:
                snapshot = served.reload_if_changed(snapshot)
    finally:
        stopped = server.close(timeout=_STOP_WAIT)
        if recorder is not None:
            recorder.close(timeout=_STOP_WAIT)
        if control is not None:
            control.close(timeout=_STOP_WAIT)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if not stopped:  # its loop is stuck (a slow matcher): the interpreter's own exit would
        sys.stdout.flush()  # wait on that thread for the lock, so leave at once
        sys.stderr.flush()
        os._exit(0)
    return 0


def _stop_at_eof(stop: threading.Event) -> None:
    sys.stdin.read()
    stop.set()


def _control(served: Served, secret: str) -> Server:
    """A worker's private admin port; wait for the supervisor's word to listen."""
    control = Server("127.0.0.1", 0, loop="asyncio")
    control.admin = ControlAdmin(
        served.admin.handle if served.admin is not None else None,
        lambda: served.reload_if_changed((), settle=False),
        secret,
    )
    control.start()
    print(f"CONTROL {control.port}", flush=True)
    wait_for_listen()
    return control


def _supervise(
    args: argparse.Namespace, paths: list[Path], mocks: int, snapshot: Snapshot | None
) -> int:
    """``serve --workers N``: start the workers, replace dead ones, stop them all."""
    argv = [sys.executable, "-m", "mockhttp", "serve", *map(str, paths), "--host", args.host]
    argv += ["--loop", args.loop, "--journal-limit", str(args.journal_limit)]
    argv += ["--journal-bytes", str(args.journal_bytes), "--header-timeout"]
    argv += [str(args.header_timeout), "--idle-timeout", str(args.idle_timeout)]
    argv += [f"--allow-host={name}" for name in args.allow_host]
    argv += [f"--allow-origin={origin}" for origin in args.allow_origin]
    argv += ["--no-admin"] * args.no_admin + ["--no-redact"] * args.no_redact
    argv += [] if args.cors is None else [f"--cors={origin}" for origin in args.cors or ["*"]]
    argv += ["--defaults"] * args.defaults + ["--allow-empty"] * args.allow_empty
    argv += ["--metrics"] * args.metrics + ["--otel"] * args.otel
    argv += [] if args.tls_dir is None else ["--tls-dir", args.tls_dir]
    argv += ["--http2"] * args.http2 + ["--ui"] * args.ui
    argv += [f"--test-header={args.test_header}"]
    if args.admin_token:  # to the workers through their environment, not their argv
        os.environ[TOKEN_ENV] = args.admin_token
    argv += ["--quiet"] if args.quiet else ["--verbose"] if args.verbose else []

    def log(text: str) -> None:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()

    try:
        supervisor = Supervisor(
            args.host,
            args.port,
            args.workers,
            argv,
            log,
            admin=not args.no_admin,
            metrics=args.metrics,
        )
        supervisor.scheme = "http" if args.tls_dir is None else "https"
    except OSError as exc:
        print(f"mockhttp: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    stop = threading.Event()
    previous = {sig: signal.signal(sig, _stopper(stop)) for sig in (signal.SIGINT, signal.SIGTERM)}
    watched = [snapshot]

    def tick() -> None:  # --watch: the workers reload together, through the hub
        if watched[0] is None:
            return
        current = watch_snapshot(paths)
        if current == watched[0]:
            return
        watched[0] = current
        try:
            _with_defaults(load(*paths), args.defaults)
        except Exception as exc:  # a save never stops the server: the last good mocks stay
            log(not_reloaded(exc))
            return
        supervisor.broadcast("POST", "/__mockhttp/_reload")

    try:
        supervisor.start()
        where = "the built-in mocks" if paths == [DEFAULTS] else ", ".join(map(str, paths))
        where += " and the built-in mocks" if args.defaults else ""
        print(supervisor.url, flush=True)
        log(
            f"mockhttp: serving {mocks} mocks from {where} on {supervisor.url} "
            f"with {args.workers} workers" + ("" if args.loop == "auto" else f" ({args.loop})")
        )
        if args.tls_dir is not None:
            log(_ca_line(Path(args.tls_dir) / "ca.pem", kept=args.ca_dir is not None))
        if args.ui:
            asks = " (it asks for the admin token)" if os.environ.get(TOKEN_ENV) else ""
            log(f"mockhttp: dashboard at {supervisor.url}{UI_PATH} (every worker's calls){asks}")
        supervisor.watch(stop, _POLL, tick)
    except RuntimeError as exc:
        log(f"mockhttp: {exc}")
        return 1
    finally:
        supervisor.stop()
        if args.tls_dir is not None and args.ca_dir is None:  # (--ca-dir: the user's)
            shutil.rmtree(args.tls_dir, ignore_errors=True)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 0


def _ca_line(ca_path: Path | str, kept: bool = False) -> str:
    """What ``serve --tls`` says on stderr: the CA's PEM file, and how to trust it."""
    which = "the CA kept in --ca-dir" if kept else "a throwaway CA"
    return (
        f"mockhttp: https with {which}: {ca_path} (trust it: SSL_CERT_FILE, "
        "REQUESTS_CA_BUNDLE, NODE_EXTRA_CA_CERTS; see docs/tls.md)"
    )


def admin_warning(host: str, token: str | None, *, admin: bool) -> str | None:
    """The warning for an admin API that the network can reach without a token, or None."""
    if not admin or token is not None or is_loopback(host):
        return None
    return (
        f"mockhttp: warning: the admin API on {host} is open to the network without a "
        "token; anyone who reaches it can change the mocks and read the journal (set "
        f"--admin-token or ${TOKEN_ENV}, or --no-admin)"
    )


def _stopper(stop: threading.Event) -> Callable[[int, FrameType | None], None]:
    def handle(signum: int, frame: FrameType | None) -> None:
        stop.set()

    return handle


def _variants(mocks: list[Mock]) -> list[Mock]:
    from ..record._cli import with_variants

    expanded, names = with_variants(mocks)
    where = ", ".join(f"/{n}/" for n in names) or "none: no recorded event stream"
    print(f"mockhttp: variants under {where}", file=sys.stderr, flush=True)
    return expanded


def _empty_folders(paths: Sequence[Path]) -> list[Path]:
    """The directories among ``paths`` that hold no mock file."""
    return [p for p in paths if p.is_dir() and not files([p])]


def _with_defaults(mocks: list[Mock], defaults: bool) -> list[Mock]:
    """``serve --defaults``: the built-in mocks, then ``mocks``; ranked below every one of
    ``mocks`` (a lower priority), and left out where one of ``mocks`` takes their name."""
    if not defaults:
        return mocks
    names = {m.name for m in mocks if m.name is not None}
    below = min([0, *(m.priority for m in mocks)]) - 1
    built_in = [
        dataclasses.replace(m, priority=below + m.priority)
        for m in load(DEFAULTS)
        if m.name not in names
    ]
    return built_in + mocks


def _allowing(
    expand: Callable[[list[Mock]], list[Mock]], hosts: list[str], origins: list[str]
) -> Callable[[list[Mock]], list[Mock]]:
    """``expand``, then the MCP endpoints widened by --allow-host and --allow-origin (what
    a reload serves)."""
    return lambda mocks: _widened(expand(mocks), hosts, origins)


def _widened(mocks: list[Mock], hosts: list[str], origins: list[str]) -> list[Mock]:
    """MCP endpoints widened by --allow-host and --allow-origin, WebSocket endpoints by
    --allow-origin."""
    return ws_allowing(allowing(mocks, hosts, origins), origins)


def _expander(defaults: bool, variants: bool) -> Callable[[list[Mock]], list[Mock]]:
    """What a reload adds to the files' mocks: the built-in mocks, then the variants."""

    def expand(mocks: list[Mock]) -> list[Mock]:
        mocks = _with_defaults(mocks, defaults)
        return _variants(mocks) if variants else mocks

    return expand


# -- defaults -------------------------------------------------------------------------------


def _defaults(out: Path | None) -> int:
    if out is None:
        for path in files([DEFAULTS]):
            for mock in load(path):
                method, where = mock.method or "*", mock.path or "*"
                print(f"{mock.name!s:<18} {method:<5} {where!s}  ({path.name})")
        return 0
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"mockhttp defaults: cannot create {out}: {exc.strerror}", file=sys.stderr)
        return 1
    status = 0
    for path in files([DEFAULTS]):
        target = out / path.name
        try:
            with target.open("x", encoding="utf-8") as written:
                written.write(path.read_text(encoding="utf-8"))
        except FileExistsError:
            print(f"{target}: exists, left as it is", file=sys.stderr)
            status = 1
            continue
        except OSError as exc:
            print(f"mockhttp defaults: cannot write {target}: {exc.strerror}", file=sys.stderr)
            return 1
        print(target)
    return status


# -- validate -------------------------------------------------------------------------------


def _validate(paths: Sequence[str]) -> int:
    status = 0
    names = Names()  # one set for every path: serve loads them together
    for given in paths:
        try:
            found = files([given])
        except MockfileError as exc:
            print(exc, file=sys.stderr)
            status = 1
            continue
        if not found:
            print(f"{given}: no mock files (*.yaml, *.yml, *.json) in it", file=sys.stderr)
            status = 1
        for path in found:
            errors = file_problems(path, names)
            for error in errors:
                print(error, file=sys.stderr)
            if errors:
                status = 1
            else:
                print(f"{path}: ok, {plural(len(load(path)), 'mock')}")
    if status == 0:
        for line in overlap_warnings(load_sourced(*paths)):
            print(line, file=sys.stderr)
    return status


# -- check ----------------------------------------------------------------------------------


def _check(argv: list[str]) -> int:
    from . import _check as contract_cli

    parser = argparse.ArgumentParser(
        prog="mockhttp check",
        description="Check a streaming endpoint against a provider's stream contract.",
    )
    contract_cli.configure_parser(parser)
    status: int = contract_cli.run(parser.parse_args(argv))
    return status


# -- record ---------------------------------------------------------------------------------


def _record(argv: list[str]) -> int:
    from ..record import _cli as record_cli

    parser = argparse.ArgumentParser(
        prog="mockhttp record",
        description="Record an upstream's replies as mock files, through a proxy.",
    )
    record_cli.configure_parser(parser)
    return record_cli.run(parser.parse_args(argv))


def _ui(argv: list[str]) -> int:
    from . import _ui as ui_cli

    parser = argparse.ArgumentParser(
        prog="mockhttp ui",
        description="Turn recorded mock files (mockhttp record's) into a saved journal that "
        "the dashboard opens offline ('Open a saved journal'): each exchange a call, its "
        "writes the stream's timeline.",
    )
    ui_cli.configure_parser(parser)
    return ui_cli.run(parser.parse_args(argv))
