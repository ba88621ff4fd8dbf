"""The loop thread's parts (``_server/_serving.py``), without a running server: binding,
the address, the arguments refused, and the sweep that times out late connections
(connections stand in as plain objects: the sweep reads only their wait)."""

from __future__ import annotations

import asyncio
import logging
import socket
from dataclasses import dataclass, field

import pytest

from mockhttp._core._errors import ConfigError, ServerError
from mockhttp._server import _serving
from mockhttp._server._serving import (
    bind,
    certs_of,
    check_args,
    check_seconds,
    sweep,
    url_of,
)


def test_bind_takes_a_free_port_and_refuses_one_in_use() -> None:
    sock = bind("127.0.0.1", 0, reuse_port=False)
    try:
        port = sock.getsockname()[1]
        sock.listen()
        with pytest.raises(ServerError, match=f"cannot listen on 127.0.0.1:{port}"):
            bind("127.0.0.1", port, reuse_port=False)
    finally:
        sock.close()


def test_the_url_needs_a_port_and_says_which_scheme() -> None:
    with pytest.raises(ServerError, match=r"call server\.start"):
        url_of("127.0.0.1", None, None)
    assert url_of("127.0.0.1", 8080, None) == "http://127.0.0.1:8080"
    assert url_of("::1", 8080, None) == "http://[::1]:8080"
    with pytest.raises(ServerError, match="serves plain http"):
        certs_of(None)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("", 0, 404, {}), "host=''"),
        (("h", 70000, 404, {}), "port=70000"),
        (("h", 0, 99, {}), "unmatched_status=99"),
        (("h", 0, 404, {"journal_limit": 0}), "journal_limit=0 must be a positive int"),
        (("h", 0, 404, {"journal_bytes": True}), "journal_bytes=True"),
    ],
)
def test_bad_arguments_are_refused_with_their_name(args: tuple, message: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ConfigError, match=message):
        check_args(*args)


def test_bad_timeouts_are_refused() -> None:
    check_args("h", 0, 404, {"journal_limit": None, "journal_bytes": 1})
    check_seconds((("idle_timeout", 0.5),))
    with pytest.raises(ConfigError, match="header_timeout=0 must be a positive number"):
        check_seconds((("header_timeout", 0),))


@dataclass(eq=False)
class Waiting:
    """A connection as the sweep sees it: how long it may wait now (None: not waiting)."""

    limit: float | None
    ticks: int = 0
    mark: tuple[int, float] | None = None
    timed: list[bool] = field(default_factory=list)

    def waiting(self) -> float | None:
        return self.limit

    def timed_out(self) -> None:
        self.timed.append(True)

    def shutdown(self) -> None:
        pass


@dataclass
class Host:
    header_timeout: float = 10.0
    idle_timeout: float = 300.0
    _connections: set[Waiting] = field(default_factory=set)


def test_the_sweep_times_out_a_wait_only_once_it_is_over_its_limit() -> None:
    loop = asyncio.new_event_loop()
    try:
        late, idle, busy = Waiting(0.0), Waiting(300.0), Waiting(None)
        host = Host()
        host._connections = {late, idle, busy}
        sweep(host, loop)  # type: ignore[arg-type]  # marks the waits: from now
        assert late.mark is not None
        assert busy.mark is None
        assert not late.timed
        sweep(host, loop)  # type: ignore[arg-type]
        assert late.timed == [True]
        assert not idle.timed
        assert not busy.timed
        late.ticks += 1  # a new request came: its wait starts again
        sweep(host, loop)  # type: ignore[arg-type]
        assert late.timed == [True]
    finally:
        loop.close()


def test_running_out_of_descriptors_is_one_line_a_second(caplog: pytest.LogCaptureFixture) -> None:
    loop = asyncio.new_event_loop()
    host = Host()
    host._fds_warned = -1.0  # type: ignore[attr-defined]
    host._thread = object()  # type: ignore[attr-defined]
    try:
        err = OSError(24, "Too many open files")
        err.errno = 24
        with caplog.at_level(logging.WARNING, logger="mockhttp"):
            for _ in range(3):
                _serving._loop_error(host, loop, {"exception": err})  # type: ignore[arg-type]
        warned = [r for r in caplog.records if "cannot accept connections" in r.message]
        assert len(warned) == 1
    finally:
        loop.close()


def test_a_socket_family_follows_the_host() -> None:
    sock = bind("::1", 0, reuse_port=True) if socket.has_ipv6 else None
    if sock is None:
        pytest.skip("no IPv6")
    try:
        assert sock.family == socket.AF_INET6
    finally:
        sock.close()
