"""The recording proxy's upstream client: a cancel reaches only the request it names."""

from __future__ import annotations

import threading

import pytest

import mockhttp
from mockhttp.record._upstream import Upstream


def _read_whole(up: Upstream, url: str, first: threading.Event | None = None) -> bytes:
    body = b""
    with up.stream("GET", url, [], b"") as resp:
        for chunk in resp.iter_stream():
            body += chunk
            if first is not None:
                first.set()
    return body


def _thread_with_ident(ident: int | None, target: object) -> threading.Thread | None:
    """A started thread, held at a gate, whose ident is ``ident`` (glibc hands a finished
    thread's ident to the next one); None when none came in 50 tries."""
    for _ in range(50):
        gate = threading.Event()

        def run(gate: threading.Event = gate) -> None:
            gate.wait()
            if getattr(threading.current_thread(), "chosen", False):
                target()  # type: ignore[operator]

        thread = threading.Thread(target=run)
        thread.start()
        if thread.ident == ident:
            thread.chosen = True  # type: ignore[attr-defined]
            gate.set()
            return thread
        gate.set()
        thread.join()
    return None


def test_a_late_cancel_of_a_finished_request_spares_a_newer_one_on_its_reused_ident() -> None:
    """The proxy cancels an exchange's upstream request when its reply is over for the
    server, which can come after the exchange's thread has ended.  A newer thread may carry
    the same ident by then: its request must go on whole (it was cut before, and the
    client read ``incomplete chunked read``)."""
    events = [mockhttp.Event(data=str(i), delay=0.05) for i in range(10)]
    with mockhttp.Server() as server:
        server.mock(mockhttp.get("/s").reply(mockhttp.ok().event_stream(*events)))
        up = Upstream(connect_timeout=5, verify=True)
        whole = b"".join(f"data: {i}\n\n".encode() for i in range(10))
        done = threading.Thread(target=_read_whole, args=(up, server.url + "/s"))
        done.start()
        done.join()
        got: list[bytes] = []
        first = threading.Event()
        newer = _thread_with_ident(
            done.ident, lambda: got.append(_read_whole(up, server.url + "/s", first))
        )
        if newer is None:
            pytest.skip("this platform did not reuse a finished thread's ident")
        assert first.wait(5)
        up.cancel(done)  # the finished exchange's late cancel
        newer.join(10)
        up.close()
    assert got == [whole]
