"""Record an ``a2a-sdk`` server's streams, byte for byte, as test data for the ``a2a``
contract profile (tests/data/a2a_sdk/).

It serves the official Python SDK's JSON-RPC endpoint (``create_jsonrpc_routes`` with the
0.3 compatibility on, ``DefaultRequestHandler``, an in-memory task store) on loopback with
an agent that works, streams an artifact in two chunks and completes; then it POSTs one
streaming request in each version (1.0 ``SendStreamingMessage`` with ``A2A-Version: 1.0``,
0.3 ``message/stream``) and writes each request (``NAME.request.json``) and the raw
answer body (``NAME.sse``).  The SDK's ids are UUIDs, so each recording differs in its
ids; the tests check what the profile says of them, not their bytes.

Usage: python scripts/a2a_sdk_streams.py [OUT_DIR]   (default tests/data/a2a_sdk)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.helpers.a2a_sdk_server import serving  # noqa: E402 (after the path is set)

REQUESTS: dict[str, tuple[dict[str, Any], dict[str, str]]] = {
    "send_streaming_message_1_0": (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "SendStreamingMessage",
            "params": {
                "message": {
                    "messageId": "m1",
                    "role": "ROLE_USER",
                    "parts": [{"text": "Weather in Brest?"}],
                }
            },
        },
        {"A2A-Version": "1.0"},
    ),
    "message_stream_0_3": (
        {
            "jsonrpc": "2.0",
            "id": "r-7",
            "method": "message/stream",
            "params": {
                "message": {
                    "kind": "message",
                    "messageId": "m1",
                    "role": "user",
                    "parts": [{"kind": "text", "text": "Weather in Brest?"}],
                }
            },
        },
        {},
    ),
}


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "tests" / "data" / "a2a_sdk"
    out.mkdir(parents=True, exist_ok=True)
    with serving() as url:
        for name, (body, headers) in REQUESTS.items():
            answer = httpx.post(
                url, json=body, headers={"Accept": "text/event-stream", **headers}, timeout=10
            )
            answer.raise_for_status()
            (out / f"{name}.request.json").write_text(json.dumps(body, indent=2) + "\n")
            (out / f"{name}.sse").write_bytes(answer.content)
            print(f"{name}: {answer.headers['content-type']}, {len(answer.content)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
