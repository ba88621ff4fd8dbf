"""Instructions per stream event and per stream start, counted by valgrind: stable under load.

``bench/instructions.py`` counts a keep-alive request; this counts the event-stream path:
``--streams`` connections (fake transports, as in ``bench/micro.py``) each ``POST`` once
and get ``bench/serve.py``'s stream (OpenAI-style chunks ``--delay`` apart), their starts
spread evenly over ``--ramp-ms``.  Three runs under ``valgrind --tool=callgrind``:

- A: ``S`` streams of ``E`` events;  B: ``S`` streams of ``2E``;  C: ``2S`` streams of ``E``;
- per event = (B - A) / (S * E): the timer, the plan's steps, the call's record, the write;
- per stream = (C - A) / S - E * per event: the request (parse, match, journal entry, wire
  plan, runner) and the end of the reply, i.e. what a stream costs besides its events.

On asyncio the loop runs on a virtual clock (its selector never sleeps: a wait moves the
clock on), so valgrind's slowness never puts a stream behind its schedule and every event
is one timer and one write, as on a core that keeps up; the timers fall as they would on
the wire (``2000`` streams over ``500`` ms: about 4 due in each millisecond).  uvloop's
clock cannot be faked: ``--loop uvloop`` runs on the real clock, with events ``--delay``
apart (use a long one, e.g. 0.3 s with 20 streams, so that nothing falls behind).

``--reference`` counts ``bench/reference.py``'s protocol the same way (same bytes, same
deadlines, no matching, no journal): the yardstick.

    .venv/bin/python bench/event_instructions.py [--src OTHER/src] [--reference]
        [--streams 400] [--events 20] [--ramp-ms 100] [--loop asyncio|uvloop]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import re
import selectors
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


class Clock:
    now = 1000.0


class VirtualSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]
    """Polls without sleeping; a wait with nothing ready moves the virtual clock on."""

    def select(self, timeout: float | None = None) -> list[Any]:
        ready = super().select(0)
        if not ready and timeout:
            Clock.now += timeout
        return ready


class VirtualLoop(asyncio.SelectorEventLoop):
    def __init__(self) -> None:
        super().__init__(VirtualSelector())

    def time(self) -> float:
        return Clock.now


def child(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(HERE))
    import micro  # puts --src on sys.path

    if args.reference:
        import reference

        reference.Stream.EVENTS = reference.events(args.events)
        reference.Stream.DELAY = args.delay
    else:
        import serve

        import mockhttp

    class Transport(micro.FakeTransport):
        def get_extra_info(self, name: str, default: Any = None) -> Any:
            return _Sock() if name == "socket" and args.reference else default

    async def run() -> None:
        loop = asyncio.get_running_loop()
        if args.reference:
            conns: list[Any] = []

            def start() -> None:
                conn = reference.Stream()
                conn.connection_made(Transport())
                conns.append(conn)
                conn.data_received(micro.STREAM)
                later()

            def running() -> bool:
                return len(conns) < args.streams or any(c.next < args.events for c in conns)
        else:
            server = mockhttp.Server()
            chunks = [serve.chunk(i) for i in range(args.events - 1)]
            server.mock(
                mockhttp.post("/v1/chat/completions").reply(
                    mockhttp.ok().event_stream(
                        *chunks, mockhttp.Event(data="[DONE]"), event_delay=args.delay
                    )
                )
            )
            conns = []

            def start() -> None:
                conn = micro._connection.Connection(server)
                conn.connection_made(Transport())
                conns.append(conn)
                conn.data_received(micro.STREAM)
                later()

            def running() -> bool:
                return len(conns) < args.streams or any(c.runner is not None for c in conns)

        gc.collect()
        gc.freeze()  # as bench/serve.py does after start-up
        t0 = loop.time()

        def later() -> None:  # one start timer at a time: the harness's timers stay few
            if len(conns) < args.streams:
                loop.call_at(t0 + args.ramp_ms / 1e3 * len(conns) / args.streams, start)

        later()
        while running():
            await asyncio.sleep(args.delay / 2)
        if not args.reference:  # the first and last calls (reading all would be counted)
            calls = server.journal
            assert len(calls) == args.streams, "requests missing"
            for call in (calls[0], calls[-1]):
                assert (call.outcome, call.events) == ("complete", args.events), call

    if args.loop == "uvloop":
        import uvloop

        uvloop.run(run())
    else:
        loop = VirtualLoop()
        try:
            loop.run_until_complete(run())
        finally:
            loop.close()


class _Sock:
    def setsockopt(self, *_: object) -> None:
        pass


def counted(args: argparse.Namespace, streams: int, events: int) -> int:
    """The user-space instructions of a child running ``streams`` x ``events``."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
        argv += [sys.executable, __file__, "--child", "--src", args.src, "--loop", args.loop]
        argv += ["--streams", str(streams), "--events", str(events), "--delay", str(args.delay)]
        argv += ["--ramp-ms", str(args.ramp_ms)] + (["--reference"] if args.reference else [])
        env = {**os.environ, "MOCKHTTP_BENCH_SRC": args.src, "PYTHONHASHSEED": "0"}
        subprocess.run(argv, check=True, capture_output=True, env=env)
        found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.M)
        assert found, "no totals in callgrind's output"
        return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", default=str(HERE.parent / "src"))
    parser.add_argument("--streams", type=int, default=400)
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--delay", type=float, default=0.020)
    parser.add_argument("--ramp-ms", type=float, default=100.0)
    parser.add_argument("--loop", choices=("asyncio", "uvloop"), default="asyncio")
    parser.add_argument("--reference", action="store_true")
    parser.add_argument("--child", action="store_true")
    args = parser.parse_args()
    if args.child:
        return child(args)
    s, e = args.streams, args.events
    a, b, c = counted(args, s, e), counted(args, s, 2 * e), counted(args, 2 * s, e)
    per_event = (b - a) / (s * e)
    per_stream = (c - a) / s - e * per_event
    who = "reference" if args.reference else args.src
    print(
        f"{per_event:,.0f} instructions an event, {per_stream:,.0f} a stream besides its "
        f"events ({who}, {args.loop}, {s} streams x {e} events, {args.ramp_ms:g} ms ramp)"
    )


if __name__ == "__main__":
    main()
