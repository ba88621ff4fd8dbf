"""HTTP/2 attacks driven frame by frame with the ``h2`` library over a loopback socket
(issue 37, N1 and N2): streams that advertise a zero receive window, and control-frame
floods.  Used by tests/server/test_h2_bounds.py (small sizes) and bench/h2_attack.py
(the full figures)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.settings


def rss_mib(pid: int) -> float:
    """The resident set size of process ``pid``, in MiB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def _client(window: int) -> h2.connection.H2Connection:
    client = h2.connection.H2Connection(
        h2.config.H2Configuration(client_side=True, header_encoding=None)
    )
    client.initiate_connection()
    client.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: window})
    return client


class Starved:
    """One connection that advertises a zero receive window and opens ``streams``
    streams for ``path``: the server may send each reply's head, never a body byte."""

    def __init__(self, host: str, port: int, path: str, streams: int) -> None:
        self.sock = socket.create_connection((host, port), timeout=10)
        self.client = client = _client(0)
        self.streams = [1 + 2 * i for i in range(streams)]
        headers = [(":method", "GET"), (":path", path), (":scheme", "http"), (":authority", host)]
        for stream_id in self.streams:
            client.send_headers(stream_id, headers, end_stream=True)
        self.sock.sendall(client.data_to_send())
        self.heads: set[int] = set()
        self.resets: dict[int, int] = {}
        self.data = 0  # body bytes received (none while the window stays shut)

    def read(self, seconds: float) -> None:
        """Read what the server sends for up to ``seconds`` (granting no window)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, min(0.1, deadline - time.monotonic())))
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                return
            except OSError:
                return
            if not data:
                return
            for event in self.client.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    assert event.stream_id is not None
                    self.heads.add(event.stream_id)
                elif isinstance(event, h2.events.StreamReset):
                    assert event.stream_id is not None
                    self.resets[event.stream_id] = int(event.error_code or 0)
                elif isinstance(event, h2.events.DataReceived):
                    self.data += len(event.data or b"")
            ack = self.client.data_to_send()  # SETTINGS ACKs only: no WINDOW_UPDATE
            if ack:
                self.sock.sendall(ack)

    def wait(self, done: str, seconds: float) -> bool:
        """Read until every stream has its head (``done="heads"``) or was reset
        (``"resets"``), for up to ``seconds``."""
        deadline = time.monotonic() + seconds
        seen = self.heads if done == "heads" else self.resets
        while len(seen) < len(self.streams) and time.monotonic() < deadline:
            self.read(0.2)
        return len(seen) >= len(self.streams)

    def close(self) -> None:
        self.sock.close()


def flood_frames(kind: str, count: int) -> bytes:
    """The connection preface, then ``count`` PING (``kind="ping"``) or empty SETTINGS
    frames, as one flooder would write them without reading."""
    client = _client(65535)
    out = bytearray(client.data_to_send())
    if kind == "ping":
        frame = b"\x00\x00\x08\x06\x00\x00\x00\x00\x00" + b"flood!!!"
    else:
        frame = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
    out += frame * count
    return bytes(out)


def goaway_code(data: bytes) -> int | None:
    """The error code of the first GOAWAY frame among the server's ``data``, if any."""
    at = 0
    while at + 9 <= len(data):
        length = int.from_bytes(data[at : at + 3], "big")
        kind = data[at + 3]
        if kind == 0x7 and at + 9 + 8 <= len(data):
            return int.from_bytes(data[at + 13 : at + 17], "big")
        at += 9 + length
    return None


ENHANCE_YOUR_CALM = int(h2.errors.ErrorCodes.ENHANCE_YOUR_CALM)
CANCEL = int(h2.errors.ErrorCodes.CANCEL)
