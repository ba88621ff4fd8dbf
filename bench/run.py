"""mockhttp benchmark: one command, loopback only, a few minutes at most.

    .venv/bin/python bench/run.py             # everything (about 2 minutes)
    .venv/bin/python bench/run.py --quick     # 500 and 1,000 streams, 3 s of wrk
    .venv/bin/python bench/run.py --repeat 3  # on a busy machine: best of 3 per figure

The server runs in one process (``bench/serve.py``, pinned to CPU 0 with ``taskset``) and
the load in another (pinned to CPU 1):

1. concurrent event streams (50 events, 20 ms apart) at 500, 1,000, 2,000 and 3,000
   streams, all connecting at once (ramp 0) and connecting over 500 ms, driven by
   ``sseload`` (a C epoll client, compiled here from ``../shared/tools/sseload.c`` or
   ``--sseload-src`` / ``$MOCKHTTP_SSELOAD_SRC``);
2. keep-alive requests per second for a small JSON mock with 50 connections (``wrk``);
   ``--shape json``: ``POST``s of a ~300-byte chat body matched by JSONPath instead
   (``bench/shapes.py``, sent by a wrk Lua script);
3. time from ``Server()`` to the first served request, cold (fresh process) and warm
   (second server in the same process) — ``bench/startup.py``.

A fresh server process is started for each measurement.  Each load is also run against
``bench/reference.py`` (a minimal asyncio.Protocol + httptools server, the yardstick of
DESIGN.md) in the same run, so a busy machine shows in both columns; ``--no-reference``
skips it.  ``--json FILE`` writes every figure.  Targets (issue 2, "Speed") are printed
next to the figures.
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
    """``bench/serve.py`` (or ``reference.py``) in a child process; ``port`` once it listens."""

    def __init__(
        self, script: str, pin: bool, args: argparse.Namespace, extra: tuple[str, ...] = ()
    ) -> None:
        argv = [sys.executable, str(HERE / script), "--events", str(args.events)]
        argv += ["--delay", str(args.delay_ms / 1000), "--loop", args.loop, *extra]
        if script == "serve.py":
            argv += args.serve_arg
            if args.workers:  # `mockhttp serve --workers N`: every CPU (the load shares one)
                argv += ["--workers", str(args.workers)]
                pin = False
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
            raise RuntimeError(f"bench/{script} did not start: {line!r}")
        self.port = int(line.split()[1])

    def cpu_s(self) -> float:
        """CPU seconds (user + system) the server process has used so far."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def preempted(self) -> int:
        """Involuntary context switches of the server's threads so far (another process
        took the server's CPU: a busy machine, not a slow server)."""
        total = 0
        for status in Path(f"/proc/{self.proc.pid}/task").glob("*/status"):
            try:
                for line in status.read_text().splitlines():
                    if line.startswith("nonvoluntary_ctxt_switches:"):
                        total += int(line.split()[1])
            except OSError:
                pass
        return total

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


def run_streams(
    script: str, exe: Path, streams: int, ramp_ms: int, args: argparse.Namespace, pin: bool
) -> dict[str, Any]:
    server = ServerProcess(script, pin, args)
    try:
        time.sleep(0.3)  # let the server process settle (gc.freeze, thread start)
        argv = [str(exe), "-p", str(server.port), "-c", str(streams), "-n", str(args.events)]
        cpu0, preempted0 = server.cpu_s(), server.preempted()
        argv += ["-t", str(args.timeout), "-r", str(ramp_ms), "-d", str(args.delay_ms)]
        out = subprocess.run(
            pinned(LOAD_CPU, argv, pin),
            capture_output=True,
            text=True,
            timeout=args.timeout + 30,
            check=True,
        ).stdout
        result: dict[str, Any] = json.loads(out)
        result["server_cpu_us_per_event"] = (server.cpu_s() - cpu0) / max(result["events"], 1) * 1e6
        result["server_preempted"] = server.preempted() - preempted0
    finally:
        result_server = server.stop()
    result["server"] = result_server
    return result


def wrk_shape(shape: str, workdir: Path) -> tuple[str, list[str]]:
    """The path wrk requests and its extra arguments for ``shape`` (``--shape``)."""
    if shape == "small":
        return "/small", []
    import shapes

    lua = workdir / "json.lua"
    lua.write_text(shapes.lua_script())
    return shapes.JSON_PATH, ["-s", str(lua)]


def run_wrk(
    script: str, wrk: str, args: argparse.Namespace, pin: bool, extra: tuple[str, ...] = ()
) -> dict[str, Any]:
    server = ServerProcess(script, pin, args, extra)
    workdir = tempfile.TemporaryDirectory(prefix="mockhttp-wrk-")
    try:
        path, shape_args = wrk_shape(args.shape, Path(workdir.name))
        url = f"http://127.0.0.1:{server.port}{path}"
        base = [wrk, "-t1", "-c50", "--latency", *shape_args]
        subprocess.run(  # warm-up, not counted
            pinned(LOAD_CPU, [*base, "-d1s", url], pin), capture_output=True, check=True
        )
        cpu0, preempted0 = server.cpu_s(), server.preempted()
        out = subprocess.run(
            pinned(LOAD_CPU, [*base, f"-d{args.wrk_seconds}s", url], pin),
            capture_output=True,
            text=True,
            timeout=args.wrk_seconds + 30,
            check=True,
        ).stdout
        cpu = server.cpu_s() - cpu0
        preempted = server.preempted() - preempted0
    finally:
        result_server = server.stop()
        workdir.cleanup()
    done = re.search(r"(\d+) requests in", out)
    total = int(done.group(1)) if done else 0
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    socket_errors = re.search(r"Socket errors:(.*)", out)
    lat = {p: re.search(rf"^\s+{p}%\s+([\d.]+\w+)", out, re.M) for p in ("50", "99")}
    return {
        "requests_per_s": float(rps.group(1)) if rps else None,
        "requests": total,
        "non_2xx": int(errors.group(1)) if errors else 0,
        "socket_errors": socket_errors.group(1).strip() if socket_errors else "",
        "latency_p50": lat["50"].group(1) if lat["50"] else None,
        "latency_p99": lat["99"].group(1) if lat["99"] else None,
        "server_cpu_us_per_request": cpu / int(done.group(1)) * 1e6 if done else None,
        "server_preempted": preempted,
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


def _ms(text: str | None) -> float:
    """wrk's latency text (``850.00us``, ``1.20ms``, ``2.01s``) in milliseconds."""
    if not text:
        return float("nan")
    found = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    if found is None:
        return float("nan")
    scale = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4}[found.group(2)]
    return float(found.group(1)) * scale


def schedule_ceiling(r: dict[str, Any]) -> float:
    """The events/s a run cannot beat: every event, over the ramp plus one stream's span."""
    span_ms = r["ramp_ms"] + (r["expect"] - 1) * r["delay_ms"]
    return r["conc"] * r["expect"] / (span_ms / 1000) if span_ms else float("inf")


def side_by_side(streams: list[dict[str, Any]]) -> list[str]:
    """Issue 22's stream targets, judged against the reference of the same run: at 2,000
    streams over 500 ms, events/s >= 1.2x the reference's (unless the reference already
    delivers the schedule's ceiling) and time-to-first-event p99 <= 2x the reference's."""
    lines = []
    for r in streams:
        ref = r.get("reference")
        if not ref or r["conc"] != 2000 or r["ramp_ms"] != 500:
            continue
        ceiling = schedule_ceiling(r)
        ratio = r["events_per_s"] / max(ref["events_per_s"], 1)
        share, ref_share = r["events_per_s"] / ceiling, ref["events_per_s"] / ceiling
        if ref_share >= 0.9:  # no server can deliver 1.2x of that
            events = (
                f"not judged: the reference delivers {ref_share:.0%} of the schedule's "
                f"ceiling of {ceiling:.0f}/s, mockhttp {share:.0%}"
            )
        else:
            events = verdict(ratio >= 1.2)
        ttfe = r["ttfe_ms"]["p99"] / max(ref["ttfe_ms"]["p99"], 0.001)
        lines.append(
            f"2000 streams over 500 ms: events/s {ratio:.2f}x the reference's (target >= "
            f"1.2x: {events}); ttfe p99 {ttfe:.1f}x the reference's (target <= 2x: "
            f"{verdict(ttfe <= 2)})"
        )
    return lines


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def report(results: dict[str, Any]) -> None:
    print()
    print(f"machine: {results['machine']}; load average at start {results['load_average']:.1f}")
    print(
        f"loop: {results['loop']} (mockhttp and reference); "
        + (f"mockhttp serve --workers {results['workers']}" if results["workers"] else "1 process")
    )
    streams = results["streams"]
    if streams:
        print()
        print("1. concurrent event streams (50 events, 20 ms apart), server on one core")
        print(
            f"{'streams':>7} {'ramp':>6} {'complete':>9} {'events/s':>9} "
            f"{'gap p50':>8} {'gap p99':>8} "
            f"{'ttfe p50':>9} {'ttfe p99':>9} {'cpu/ev':>7} {'preempt':>7}  "
            f"{'| reference: gap p99':>20} {'ttfe p99':>9} {'events/s':>9}  target"
        )
        targets = {500: ("p99 gap <= 25 ms", 25.0), 1000: ("p99 gap <= 30 ms", 30.0)}
        for r in streams:
            conc = r["conc"]
            gap, ttfe = r["gap_ms"], r["ttfe_ms"]
            complete = r["complete_rate"] == 1
            if conc in targets:
                text, limit = targets[conc]
                target = f"{text}: {verdict(gap['p99'] <= limit and complete)}"
            elif conc >= 3000:
                target = f"all complete: {verdict(complete)}"
            else:
                target = ""
            ref = r.get("reference")
            ref_text = (
                f"| {ref['gap_ms']['p99']:>9.1f}ms{'' if ref['complete_rate'] == 1 else '*'}"
                f" {ref['ttfe_ms']['p99']:>7.1f}ms {ref['events_per_s']:>9.0f}"
                if ref
                else f"{'':>20} {'':>9} {'':>9}"
            )
            print(
                f"{conc:>7} {r['ramp_ms']:>4}ms {r['complete_rate'] * 100:>8.1f}% "
                f"{r['events_per_s']:>9.0f} "
                f"{gap['p50']:>6.1f}ms {gap['p99']:>6.1f}ms {ttfe['p50']:>7.1f}ms "
                f"{ttfe['p99']:>7.1f}ms {r['server_cpu_us_per_event']:>5.1f}us "
                f"{r['server_preempted']:>7}  {ref_text:>40}  {target}"
            )
        for line in side_by_side(streams):
            print(line)
        best = max(r["events_per_s"] for r in streams)
        floor = 0.8 * MINIMAL_EVENTS_PER_S
        line = (
            f"peak events/s {best:.0f}: target >= {floor:.0f} (80% of DESIGN.md's minimal "
            f"server, {MINIMAL_EVENTS_PER_S}): {verdict(best >= floor)}"
        )
        refs = [r["reference"]["events_per_s"] for r in streams if r.get("reference")]
        if refs:
            line += f"; reference now {max(refs):.0f} ({best / max(refs) * 100:.0f}%)"
        print(line)
        print(
            "(cpu/ev: server CPU per event delivered; preempt: times another process took "
            "the server's CPU; * reference incomplete)"
        )
    wrk = results.get("requests")
    if wrk:
        print()
        what = {
            "small": "small JSON mock",
            "json": "POST of a ~300-byte JSON body matched by JSONPath",
        }[results.get("shape", "small")]
        print(f"2. keep-alive requests/s, {what}, 50 connections (wrk -t1 -c50)")
        rps = wrk["requests_per_s"] or 0.0
        print(
            f"   {rps:.0f} requests/s, latency p50 {wrk['latency_p50']} "
            f"p99 {wrk['latency_p99']} over {wrk.get('requests', 0):,} requests, "
            f"non-2xx {wrk['non_2xx']} (p99 target <= 5 ms: "
            f"{verdict(_ms(wrk['latency_p99']) <= 5.0)})"
        )
        cpu = wrk["server_cpu_us_per_request"]
        if cpu:
            print(
                f"   server CPU {cpu:.1f} us per request "
                f"(= {1e6 / cpu:.0f} requests/s on a core of its own); "
                f"server preempted {wrk['server_preempted']} times"
            )
        gcs = (wrk.get("server") or {}).get("gc")
        if gcs:
            print(
                "   server garbage collections: "
                + ", ".join(
                    f"gen{g} {gcs[f'gen{g}']['n']} (max {gcs[f'gen{g}']['max_ms']:.1f} ms)"
                    for g in range(3)
                )
            )
        ref = wrk.get("reference")
        if ref:
            ratio = rps / (ref["requests_per_s"] or float("nan"))
            print(
                f"   reference: {ref['requests_per_s'] or 0:.0f} requests/s, latency p99 "
                f"{ref['latency_p99']}, "
                f"{ref['server_cpu_us_per_request'] or float('nan'):.1f} us CPU per request; "
                f"mockhttp/reference {ratio:.2f} (target >= 0.5, issue 22: "
                f"{verdict(ratio >= 0.5)}; >= 0.6, issue 13: {verdict(ratio >= 0.6)})"
            )
    s = results.get("startup")
    if s:
        print()
        print(f"3. Server() to first served request ({s['runs']} fresh processes, median / max)")
        print(
            f"   cold {s['cold_ms']['median']:.2f} / {s['cold_ms']['max']:.2f} ms "
            f"(target <= 5 ms: {verdict(s['cold_ms']['median'] <= 5)}); "
            f"warm {s['warm_ms']['median']:.2f} / {s['warm_ms']['max']:.2f} ms; "
            f"import mockhttp {s['import_ms']['median']:.0f} ms (not counted)"
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
    parser.add_argument(
        "--ramp-ms",
        default="0,500",
        help="connect ramps to run (sseload -r): 0 opens every stream at once, 500 spreads "
        "the connects over 500 ms (all streams still run together from 0.5 s to 1 s)",
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="sseload timeout, seconds")
    parser.add_argument("--wrk-seconds", type=int, default=5)
    parser.add_argument("--startup-runs", type=int, default=7)
    parser.add_argument("--only", choices=["streams", "requests", "startup"], action="append")
    parser.add_argument(
        "--shape",
        choices=["small", "json"],
        default="small",
        help="the requests/s load: GET /small, or json: POSTs of a ~300-byte chat body "
        "matched by JSONPath (bench/shapes.py)",
    )
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
        "--loop",
        default="asyncio",
        choices=["asyncio", "uvloop"],
        help="the event loop of both mockhttp and the reference (asyncio)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="measure `mockhttp serve --workers N` (not pinned: it may use every CPU)",
    )
    parser.add_argument(
        "--no-reference", action="store_true", help="skip the minimal reference server"
    )
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
        "loop": args.loop,
        "workers": args.workers,
        "shape": args.shape,
        "machine": machine(),
        "pinned": pin,
        "load_average": load,
        "streams": [],
    }
    started = time.monotonic()
    servers = ["serve.py"] if args.no_reference else ["serve.py", "reference.py"]
    with tempfile.TemporaryDirectory(prefix="mockhttp-bench-") as tmp:
        if "streams" in only:
            exe = build_sseload(args.sseload_src, Path(tmp))
            levels = [int(s) for s in args.streams.split(",")]
            ramps = [int(r) for r in args.ramp_ms.split(",")]
            for ramp_ms, streams in ((r, s) for r in ramps for s in levels):
                log(f"streams: {streams}, ramp {ramp_ms} ms ...")
                runs: dict[str, list[dict[str, Any]]] = {s: [] for s in servers}
                for _ in range(args.repeat):  # interleaved, so both see the same machine
                    for script in servers:
                        runs[script].append(run_streams(script, exe, streams, ramp_ms, args, pin))
                best = {
                    script: max(rs, key=lambda r: (r["complete_rate"], -r["gap_ms"]["p99"]))
                    for script, rs in runs.items()
                }
                for script, rs in runs.items():
                    best[script]["repeats_gap_p99"] = [r["gap_ms"]["p99"] for r in rs]
                row = best["serve.py"]
                row["reference"] = best.get("reference.py")
                row["ramp_ms"] = ramp_ms
                results["streams"].append(row)
    wrk = shutil.which("wrk")
    if "requests" in only and wrk is None:
        log("wrk not found: skipping requests/s (apt-get install -y wrk)")
    elif "requests" in only:
        assert wrk is not None
        log("requests/s: wrk ...")
        wrk_runs: dict[str, list[dict[str, Any]]] = {s: [] for s in servers}
        for _ in range(args.repeat):
            for script in servers:
                wrk_runs[script].append(run_wrk(script, wrk, args, pin))
        best_wrk = {
            script: max(rs, key=lambda r: r["requests_per_s"] or 0.0)
            for script, rs in wrk_runs.items()
        }
        results["requests"] = best_wrk["serve.py"]
        results["requests"]["reference"] = best_wrk.get("reference.py")
        results["requests"]["repeats"] = {
            script: [(r["requests_per_s"], r["latency_p99"]) for r in rs]
            for script, rs in wrk_runs.items()
        }
    if "startup" in only:
        log("start-up ...")
        results["startup"] = run_startup(args.startup_runs, pin)
    results["elapsed_s"] = time.monotonic() - started
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    report(results)
    print(f"\n(took {results['elapsed_s']:.0f} s)")


if __name__ == "__main__":
    main()
