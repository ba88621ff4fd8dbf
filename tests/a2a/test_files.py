"""A2A agents in mock files: loading, errors at their place, the round trip, the defaults."""

from __future__ import annotations

import textwrap
from pathlib import Path

import httpx
import pytest

import mockhttp
from mockhttp import a2a

DEFAULTS = Path(mockhttp.__file__).parent / "defaults" / "a2a.yaml"

FILE = textwrap.dedent(
    """\
    request:
      path: [any_of, /, /.well-known/agent-card.json, /.well-known/agent.json]
    response:
      a2a:
        name: weather
        tasks:
          - - {status: working, text: Looking it up}
            - {artifact: 21 °C, append: true, last_chunk: true}
            - {status: completed}
          - {steps: [{status: failed}], duplicate_final: true}
          - {message: Hello}
          - {error: busy, code: -32000}
        versions: "1.0"
    """
)


def test_a_file_loads_to_the_python_agent() -> None:
    """``response: {a2a: ...}`` builds the agent the Python calls build."""
    (mock,) = mockhttp.loads(FILE)
    assert mock.kind == a2a.A2aAgent(
        [
            a2a.task(
                a2a.status("working", "Looking it up"),
                a2a.artifact("21 °C", append=True, last_chunk=True),
                a2a.status("completed"),
            ),
            a2a.task(a2a.status("failed"), duplicate_final=True),
            a2a.message("Hello"),
            a2a.error("busy", -32000),
        ],
        name="weather",
        versions=["1.0"],
    )


def test_round_trip() -> None:
    """``to_yaml`` writes the agent back as data that loads to an equal agent and mock."""
    (mock,) = mockhttp.loads(FILE)
    (again,) = mockhttp.loads(mock.to_yaml())
    assert again.kind == mock.kind
    assert again.path == mock.path
    (made,) = mockhttp.loads(a2a.agent().to_yaml())
    assert made.kind == a2a.A2aAgent()


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        (
            "{status: failed}",
            "{status: done}",
            "<string>:10:27 at response.a2a.tasks[1].steps[0].status: 'done' is not a task "
            "state; expected one of submitted, working, input-required",
        ),
        (
            "append: true",
            "appends: true",
            "<string>:8:11 at response.a2a.tasks[0][1]: unknown key 'appends', expected "
            "one of artifact, data, name, id, append, last_chunk, delay",
        ),
        (
            'versions: "1.0"',
            'versions: "2.0"',
            "<string>:13:15 at response.a2a.versions: '2.0' must be among 0.3, 1.0",
        ),
    ],
)
def test_errors_point_at_the_node(old: str, new: str, where: str) -> None:
    with pytest.raises(mockhttp.MockfileError) as caught:
        mockhttp.loads(FILE.replace(old, new))
    assert str(caught.value).startswith(where)


def test_the_defaults_serve_an_agent() -> None:
    """The built-in ``a2a.yaml``: the card points at /a2a, which streams the task."""
    mocks = mockhttp.load(DEFAULTS)
    with mockhttp.Server() as server, httpx.Client(base_url=server.url) as client:
        server.mock(mocks)
        card = client.get("/.well-known/agent-card.json").json()
        message = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]}
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
        task = client.post("/a2a", json=body).json()["result"]["task"]
    assert card["supportedInterfaces"][0]["url"] == server.url + "/a2a"
    assert task["artifacts"][0]["parts"] == [{"text": "Hello from "}, {"text": "mockhttp"}]
