"""Seeded chaos for WebSocket sessions (ws/_chaos.py): the draw (pure), then sessions
broken on loopback, the same messages on every run."""

from __future__ import annotations

import json
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

import mockhttp
from mockhttp import ConfigError, llm, ws
from mockhttp.ws._chaos import CHAOS_FAULTS, Chaos, chaos_of

# -- the draw, pure --------------------------------------------------------------------------------


def test_the_draw_depends_only_on_seed_session_and_message() -> None:
    chaos = Chaos(0.3, seed=7)
    first = [chaos.decide(s, m) for s in range(5) for m in range(40)]
    assert first == [Chaos(0.3, seed=7).decide(s, m) for s in range(5) for m in range(40)]
    other = [Chaos(0.3, seed=8).decide(s, m) for s in range(5) for m in range(40)]
    assert first != other
    broken = [f for f in first if f is not None]
    assert 0.2 < len(broken) / len(first) < 0.4  # about p of 200 draws
    assert set(broken) == {"drop", "cut", "close", "invalid_utf8"}  # the default faults


def test_p_zero_never_and_p_one_always() -> None:
    assert {Chaos(0).decide(0, m) for m in range(50)} == {None}
    assert None not in {Chaos(1, faults=["stall"]).decide(0, m) for m in range(50)}


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"p": 2}, "probability"),
        ({"p": True}, "probability"),
        ({"p": 0.5, "seed": "x"}, "seed"),
        ({"p": 0.5, "faults": []}, "non-empty"),
        ({"p": 0.5, "faults": "drop"}, "non-empty"),
        ({"p": 0.5, "faults": ["dorp"]}, "did you mean 'drop'"),
    ],
)
def test_bad_options_say_so(options: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        chaos_of(options)


def test_the_file_form_round_trips_and_names_its_mistakes() -> None:
    made = chaos_of({"p": 0.25, "seed": 3, "faults": ["drop", "stall"]})
    assert made == Chaos(0.25, 3, ("drop", "stall"))
    assert made is not None
    assert chaos_of(made.to_args()) == made
    assert Chaos(0.5).to_args() == {"p": 0.5}
    assert chaos_of(None) is None
    with pytest.raises(ConfigError, match="needs p"):
        chaos_of({"seed": 1})
    with pytest.raises(ConfigError, match="chaos option"):
        chaos_of({"p": 0.1, "sed": 1})
    with pytest.raises(ConfigError, match="must be"):
        chaos_of(0.5)
    assert set(CHAOS_FAULTS) >= {"drop", "cut", "close", "invalid_utf8", "stall"}


# -- on loopback -----------------------------------------------------------------------------------


def _read_all(url: str, quiet: float = 3.0) -> tuple[list[str | bytes], int | None]:
    """The messages a client gets before the session ends, and the close code of the
    closing handshake (the server's, else the client's own: 1007 for invalid UTF-8; None:
    no close frame either way; -1: still open after ``quiet`` seconds of silence)."""
    got: list[str | bytes] = []
    with connect(url, max_size=None) as client:
        try:
            while True:
                got.append(client.recv(timeout=quiet))
        except ConnectionClosed as closed:
            frame = closed.rcvd if closed.rcvd is not None else closed.sent
            return got, frame.code if frame is not None else None
        except TimeoutError:  # a stall: the session is open and says nothing more
            return got, -1


def _first_broken(chaos: Chaos, messages: int) -> tuple[int, str]:
    for m in range(messages):
        fault = chaos.decide(0, m)
        if fault is not None:
            return m, fault
    raise AssertionError("no message broken")


@pytest.mark.parametrize("fault", ["drop", "cut", "close", "invalid_utf8", "stall"])
def test_each_fault_breaks_the_drawn_message(fault: str) -> None:
    chaos = Chaos(0.3, seed=11, faults=[fault])
    at, drawn = _first_broken(chaos, 20)
    assert drawn == fault
    endpoint = ws.websocket(*[ws.send(f"m{i}") for i in range(20)], chaos=chaos)
    with mockhttp.Server() as server:
        server.mock(endpoint.mock("/c"))
        got, code = _read_all(f"ws://127.0.0.1:{server.port}/c", 10.0 if fault != "stall" else 2.0)
    assert got == [f"m{i}" for i in range(at)]  # every message before it, none after
    expected = {"drop": None, "cut": None, "close": 1011, "invalid_utf8": 1007, "stall": -1}
    assert code == expected[fault]
    (session,) = endpoint.wait_ended()
    kinds = [f.kind for f in session.frames if f.direction == "sent"]
    shown = {
        "drop": "drop",
        "cut": "cut",
        "close": "close",
        "invalid_utf8": "raw",
        "stall": "stall",
    }
    assert shown[fault] in kinds


def test_the_same_seed_breaks_the_same_messages_of_each_session() -> None:
    endpoint = ws.websocket(*[ws.send(str(i)) for i in range(12)], chaos=ws.chaos(0.15, seed=5))
    runs = []
    for _ in range(2):
        endpoint.forget()
        with mockhttp.Server() as server:
            server.mock(endpoint.mock("/c"))
            url = f"ws://127.0.0.1:{server.port}/c"
            runs.append([_read_all(url) for _ in range(3)])
    assert runs[0] == runs[1]
    assert len({len(got) for got, _code in runs[0]}) > 1  # sessions differ from each other


def test_chaos_on_an_openai_realtime_session_and_its_file_form() -> None:
    chaos = Chaos(0.2, seed=2, faults=["close"])
    realtime = llm.openai_realtime("one two three four five", chaos=chaos)
    with mockhttp.Server() as server:
        server.mock(realtime.mock())
        with connect(f"ws://127.0.0.1:{server.port}/v1/realtime") as client:
            client.send(json.dumps({"type": "response.create"}))
            events = []
            with pytest.raises(ConnectionClosed) as closed:  # noqa: PT012 - read until closed
                while True:
                    events.append(json.loads(client.recv(timeout=5)))
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1011
    assert 1 <= len(events) < 14  # session.created came, response.done did not
    assert realtime.to_args()["chaos"] == {"p": 0.2, "seed": 2, "faults": ["close"]}
    (mock,) = mockhttp.loads(
        "- request: {method: GET, path: /ws}\n"
        "  response:\n"
        "    websocket:\n"
        "      script: [{send: hi}]\n"
        "      chaos: {p: 0.5, seed: 1, faults: [drop]}\n"
    )
    assert isinstance(mock.kind, ws.WebSocket)
    assert mock.kind.chaos == Chaos(0.5, 1, ("drop",))
