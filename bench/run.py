"""mockhttp benchmark: one command, loopback only, a few minutes at most.

    .venv/bin/python bench/run.py            # everything (about 1.5 minutes)
    .venv/bin/python bench/run.py --quick    # smaller: 500 and 1,000 streams, 3 s of wrk

The server runs in one process (``bench/serve.py``, pinned to CPU 0 with ``taskset``) and
the load in another (pinned to CPU 1):

1. concurrent event streams (50 events, 20 ms apart) at 500, 1,000, 2,000 and 3,000
   streams, driven by ``sseload`` (a C epoll client, compiled here from
   ``../shared/tools/sseload.c`` or ``--sseload-src`` / ``$MOCKHTTP_SSELOAD_SRC``);
2. keep-alive requests per second for a small JSON mock with 50 connections (``wrk``);
3. time from ``Server()`` to the first served request, cold (fresh process) and warm
   (second server in the same process) — ``bench/startup.py``.

A fresh server process is started for each measurement.  ``--json FILE`` writes every
figure.  Targets (issue 2, "Speed") are printed next to the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_SSELOAD = ROOT.parent / "shared" / "tools" / "sseload.c"
MINIMAL_EVENTS_PER_S = 34_000  # DESIGN.md: a minimal asyncio.Protocol + httptools server
SERVER_CPU, LOAD_CPU = "0", "1"


def log(*args: object) -> None:
    print(*args, file=sys.stderr, flush=True)


def pinned(cpu: str, argv: list[str], pin: bool) -> list[str]:
    return ["taskset", "-c", cpu, *argv] if pin else argv


class ServerProcess:
    """``bench/serve.py`` in a child process; ``port`` once it listens."""

    def __init__(self, pin: bool, events: int, delay_s: float, extra: list[str]) -> None:
        argv = [sys.executable, str(HERE / "serve.py"), "--events", str(events)]
        argv += ["--delay", str(delay_s), *extra]
        self.proc = subprocess.Popen(
            pinned(SERVER_CPU, argv, pin),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line.startswith("PORT "):
            self.proc.kill()
            raise RuntimeError(f"bench/serve.py did not start: {line!r}")
        self.port = int(line.split()[1])

    def stop(self) -> dict[str, Any]:
        """Close its stdin (it exits) and read its server-side counts."""
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.close()
        try:
            out = self.proc.stdout.read()
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return {}
        try:
            return dict(json.loads(out.strip().splitlines()[-1]))
        except (ValueError, IndexError):
            return {}


def build_sseload(src: Path, workdir: Path) -> Path:
    if not src.is_file():
        sys.exit(f"sseload source not found at {src} (pass --sseload-src or MOCKHTTP_SSELOAD_SRC)")
    exe = workdir / "sseload"
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(src), "-lm"], check=True)
    return exe


def run_streams(exe: Path, streams: int, args: argparse.Namespace, pin: bool) -> dict[str, Any]:
    server = ServerProcess(pin, args.events, args.delay_ms / 1000, args.serve_arg)
    try:
        time.sleep(0.3)  # let the server process settle (gc.freeze, thread start)
        argv = [str(exe), "-p", str(server.port), "-c", str(streams), "-n", str(args.events)]
        argv += ["-t", str(args.timeout), "-r", str(args.ramp_ms), "-d", str(args.delay_ms)]
        out = subprocess.run(
            pinned(LOAD_CPU, argv, pin),
            capture_output=True,
            text=True,
            timeout=args.timeout + 30,
            check=True,
        ).stdout
        result: dict[str, Any] = json.loads(out)
    finally:
        result_server = server.stop()
    result["server"] = result_server
    return result


def run_wrk(args: argparse.Namespace, pin: bool) -> dict[str, Any] | None:
    wrk = shutil.which("wrk")
    if wrk is None:
        log("wrk not found: skipping requests/s (apt-get install -y wrk)")
        return None
    server = ServerProcess(pin, args.events, args.delay_ms / 1000, args.serve_arg)
    try:
        url = f"http://127.0.0.1:{server.port}/small"
        base = [wrk, "-t1", "-c50", "--latency"]
        subprocess.run(  # warm-up, not counted
            pinned(LOAD_CPU, [*base, "-d1s", url], pin), capture_output=True, check=True
        )
        out = subprocess.run(
            pinned(LOAD_CPU, [*base, f"-d{args.wrk_seconds}s", url], pin),
            capture_output=True,
            text=True,
            timeout=args.wrk_seconds + 30,
            check=True,
        ).stdout
    finally:
        result_server = server.stop()
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    socket_errors = re.search(r"Socket errors:(.*)", out)
    lat = {p: re.search(rf"^\s+{p}%\s+([\d.]+\w+)", out, re.M) for p in ("50", "99")}
    return {
        "requests_per_s": float(rps.group(1)) if rps else None,
        "non_2xx": int(errors.group(1)) if errors else 0,
        "socket_errors": socket_errors.group(1).strip() if socket_errors else "",
        "latency_p50": lat["50"].group(1) if lat["50"] else None,
        "latency_p99": lat["99"].group(1) if lat["99"] else None,
        "server": result_server,
    }


def run_startup(runs: int, pin: bool) -> dict[str, Any]:
    samples = []
    for _ in range(runs):
        out = subprocess.run(
            pinned(SERVER_CPU, [sys.executable, str(HERE / "startup.py")], pin),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
        samples.append(json.loads(out))

    def stats(key: str) -> dict[str, float]:
        values = sorted(s[key] for s in samples)
        return {"median": statistics.median(values), "max": values[-1], "min": values[0]}

    return {"runs": runs, **{k: stats(k) for k in ("import_ms", "cold_ms", "warm_ms")}}


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def report(results: dict[str, Any]) -> None:
    print()
    print(f"machine: {results['machine']}")
    print()
    print("1. concurrent event streams (50 events, 20 ms apart), server on one core")
    head = (
        f"{'streams':>7} {'complete':>9} {'events/s':>9} {'gap p50':>8} {'gap p99':>8} "
        f"{'ttfe p50':>9} {'ttfe p99':>9}  target"
    )
    print(head)
    targets = {500: ("p99 gap <= 25 ms", 25.0), 1000: ("p99 gap <= 35 ms", 35.0)}
    for r in results["streams"]:
        conc = r["conc"]
        gap, ttfe = r["gap_ms"], r["ttfe_ms"]
        if conc in targets:
            text, limit = targets[conc]
            target = f"{text}: {verdict(gap['p99'] <= limit and r['complete_rate'] == 1)}"
        elif conc >= 3000:
            target = f"all complete: {verdict(r['complete_rate'] == 1)}"
        else:
            target = ""
        print(
            f"{conc:>7} {r['complete_rate'] * 100:>8.1f}% {r['events_per_s']:>9.0f} "
            f"{gap['p50']:>6.1f}ms {gap['p99']:>6.1f}ms {ttfe['p50']:>7.1f}ms "
            f"{ttfe['p99']:>7.1f}ms  {target}"
        )
    if results["streams"]:
        best = max(r["events_per_s"] for r in results["streams"])
        floor = 0.8 * MINIMAL_EVENTS_PER_S
        print(
            f"peak events/s {best:.0f} (target >= {floor:.0f}, 80% of a minimal server's "
            f"{MINIMAL_EVENTS_PER_S}): {verdict(best >= floor)}"
        )
    print()
    wrk = results.get("requests")
    print("2. keep-alive requests/s, small JSON mock, 50 connections (wrk -t1 -c50)")
    if wrk and wrk["requests_per_s"] is not None:
        print(
            f"   {wrk['requests_per_s']:.0f} requests/s, latency p50 {wrk['latency_p50']} "
            f"p99 {wrk['latency_p99']}, non-2xx {wrk['non_2xx']} "
            f"(target >= 40000: {verdict(wrk['requests_per_s'] >= 40_000)})"
        )
    else:
        print("   skipped (no wrk)")
    print()
    s = results["startup"]
    print(f"3. Server() to first served request ({s['runs']} fresh processes, median / max)")
    print(
        f"   cold {s['cold_ms']['median']:.2f} / {s['cold_ms']['max']:.2f} ms "
        f"(target <= 5 ms: {verdict(s['cold_ms']['median'] <= 5)}); "
        f"warm {s['warm_ms']['median']:.2f} / {s['warm_ms']['max']:.2f} ms; "
        f"import mockhttp {s['import_ms']['median']:.0f} ms"
    )


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, {sys.platform}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description="mockhttp benchmark", formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="500 and 1,000 streams; 3 s wrk")
    parser.add_argument("--streams", default="500,1000,2000,3000", help="stream counts")
    parser.add_argument("--events", type=int, default=50)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--ramp-ms", type=int, default=0, help="spread connects (sseload -r)")
    parser.add_argument("--timeout", type=float, default=30.0, help="sseload timeout, seconds")
    parser.add_argument("--wrk-seconds", type=int, default=5)
    parser.add_argument("--startup-runs", type=int, default=7)
    parser.add_argument("--only", choices=["streams", "requests", "startup"], action="append")
    parser.add_argument(
        "--serve-arg", action="append", default=[], help="extra argument for bench/serve.py"
    )
    parser.add_argument(
        "--sseload-src",
        type=Path,
        default=Path(os.environ.get("MOCKHTTP_SSELOAD_SRC", DEFAULT_SSELOAD)),
    )
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    parser.add_argument(
        "--src", type=Path, help="measure the mockhttp package in this src/ directory instead"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="run each stream level and wrk N times and keep the best (on a busy machine)",
    )
    args = parser.parse_args()
    if args.quick:
        args.streams = "500,1000"
        args.wrk_seconds = 3
        args.startup_runs = 3
    only = set(args.only or ["streams", "requests", "startup"])
    if args.src is not None:
        os.environ["MOCKHTTP_BENCH_SRC"] = str(args.src.resolve())
    load = os.getloadavg()[0]
    if load > 0.5:
        log(f"warning: load average {load:.1f}: other processes compete for the CPUs")
    pin = shutil.which("taskset") is not None and (os.cpu_count() or 1) >= 2
    if not pin:
        log("warning: not pinning server and load to separate CPUs (no taskset or one CPU)")

    results: dict[str, Any] = {
        "machine": machine(),
        "pinned": pin,
        "load_average": load,
        "streams": [],
    }
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="mockhttp-bench-") as tmp:
        if "streams" in only:
            exe = build_sseload(args.sseload_src, Path(tmp))
            for streams in (int(s) for s in args.streams.split(",")):
                log(f"streams: {streams} ...")
                runs = [run_streams(exe, streams, args, pin) for _ in range(args.repeat)]
                best = max(runs, key=lambda r: (r["complete_rate"], -r["gap_ms"]["p99"]))
                best["repeats"] = [r["gap_ms"]["p99"] for r in runs]
                results["streams"].append(best)
    if "requests" in only:
        log("requests/s: wrk ...")
        wrk_runs = [run_wrk(args, pin) for _ in range(args.repeat)]
        results["requests"] = max(
            wrk_runs, key=lambda r: -1.0 if r is None else r["requests_per_s"] or 0.0
        )
    if "startup" in only:
        log("start-up ...")
        results["startup"] = run_startup(args.startup_runs, pin)
    else:
        results["startup"] = None
    results["elapsed_s"] = time.monotonic() - started
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    if results["startup"] is None:
        results["startup"] = {}
    report_partial(results)


def report_partial(results: dict[str, Any]) -> None:
    if not results["startup"]:
        results["startup"] = {
            "runs": 0,
            **{k: {"median": float("nan"), "max": float("nan")} for k in ("cold_ms", "warm_ms")},
            "import_ms": {"median": float("nan")},
        }
    report(results)
    print(f"\n(took {results['elapsed_s']:.0f} s)")


if __name__ == "__main__":
    main()
