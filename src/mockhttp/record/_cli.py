"""``mockhttp record`` and the variants ``mockhttp serve --variants`` serves.

``record`` prints the proxy's URL on stdout (one line, flushed) like ``serve``, then one
line per recorded exchange on stderr, until SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from .._core._errors import ConfigError, ServerError
from .._core._mock import Mock
from .._server._budget import parse_size
from .._server._server import LOOPS
from ._exchange import REDACT
from ._mocks import replying, under_prefix
from ._proxy import Recorder
from ._recording import Recording
from ._spool import MAX_RECORDING_SIZE
from ._variants import VARIANTS, applies

__all__ = ["configure_parser", "run", "with_variants"]


def configure_parser(parser: argparse.ArgumentParser) -> None:
    """Add the ``record`` arguments to ``parser``."""
    parser.description = (
        "Forward every request to UPSTREAM, stream each reply back as it arrives, and "
        "write one mock file per exchange to --out.  Prints the proxy's URL on stdout."
    )
    parser.add_argument("--upstream", required=True, metavar="URL", help="http(s) base URL")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind (127.0.0.1: loopback; another address is warned about)",
    )
    parser.add_argument("--port", type=int, default=0, help="port (0: a free one)")
    parser.add_argument(
        "--out",
        default="recordings",
        metavar="DIR",
        help="the folder the mock files are written to, one per exchange, numbered after "
        "the files already there (created if missing; default: ./recordings)",
    )
    parser.add_argument(
        "--redact",
        action="append",
        default=[],
        metavar="HEADER",
        help=f"another header whose value is secret (always: {', '.join(REDACT)}, and "
        "names with token, secret, password, auth, key, credential, signature)",
    )
    parser.add_argument(
        "--stop-timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="at SIGINT/SIGTERM, wait this long for exchanges in flight to be written (30)",
    )
    parser.add_argument(
        "--max-recording-size",
        type=_size,
        default=MAX_RECORDING_SIZE,
        metavar="SIZE",
        help="keep at most SIZE of one reply's body in its recording (64MiB; 0: no body); "
        "past it the client still gets the whole reply and the recording is marked "
        "truncated",
    )
    parser.add_argument(
        "--loop",
        choices=LOOPS,
        default="auto",
        help="the proxy's event loop: auto (the default: uvloop when installed), asyncio, "
        "or uvloop (pip install 'mockhttp[fast]')",
    )
    parser.add_argument(
        "--insecure",
        action="store_true",
        help="do not verify the upstream's TLS certificate (a self-signed or internal "
        "upstream); the proxy's own side is plain http on loopback",
    )


def run(args: argparse.Namespace) -> int:
    """Record until interrupted; return the exit status."""
    try:
        recorder = Recorder(
            args.upstream,
            args.out,
            host=args.host,
            port=args.port,
            redact=args.redact,
            log=sys.stderr,
            verify=not args.insecure,
            max_recording_size=args.max_recording_size,
            loop=args.loop,
        )
        recorder.start()
    except (ConfigError, ServerError, OSError) as exc:
        print(f"mockhttp record: error: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, ConfigError) else 1
    stop = threading.Event()

    def handle(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handle) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        print(recorder.url, flush=True)
        print(
            f"mockhttp: recording {args.upstream} into {args.out}/ through {recorder.url} "
            f"({recorder.server.loop_name})",
            file=sys.stderr,
            flush=True,
        )
        while not stop.wait(0.25):
            pass
    finally:
        unfinished = recorder.close(args.stop_timeout)
        for sig, old in previous.items():
            signal.signal(sig, old)
    print(f"mockhttp: recorded {recorder.count} exchanges", file=sys.stderr)
    return 1 if unfinished or recorder.errors else 0


def _size(text: str) -> int:
    """A size such as ``64MiB``, ``500k`` or ``1000000`` (0 allowed)."""
    try:
        return parse_size(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def with_variants(mocks: Sequence[Mock]) -> tuple[list[Mock], list[str]]:
    """``mocks``, then for each variant that applies to some recorded event stream, every
    mock again under ``/<variant>/...`` (recordings replaying that variant, where it
    applies).  Returns the mocks and the variant names served."""
    names = [
        name
        for name in VARIANTS
        if any(
            isinstance(m.response, Recording)
            and m.response.is_event_stream
            and applies(m.response, name) is None
            for m in mocks
        )
    ]
    out = list(mocks)
    for name in names:
        for mock in mocks:
            reply = mock.response
            stream = isinstance(reply, Recording) and reply.is_event_stream
            if stream and isinstance(reply, Recording) and applies(reply, name) is None:
                mock = replying(mock, reply.with_(variant=name), name)
            moved = under_prefix(mock, name)
            if moved is not None:
                out.append(moved)
    return out, names
