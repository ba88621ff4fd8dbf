"""Host and Origin checks (``_guard``), pure: which requests a local MCP mock answers."""

from __future__ import annotations

import pytest

from mockhttp.mcp._guard import host_name, refusal


@pytest.mark.parametrize(
    ("host", "origin"),
    [
        ("127.0.0.1:8080", None),
        ("localhost:3000", "http://localhost:3000"),
        ("[::1]:80", "http://[::1]"),
        ("10.0.0.5", None),  # an IP address is no name to rebind
        ("app.localhost", "https://app.localhost"),
        ("127.0.0.1:9", "http://127.0.0.1:9"),
        ("mock.test:9", "http://mock.test:9"),  # (allowed below) its own origin
        (None, "http://127.0.0.2:5000"),
    ],
)
def test_loopback_and_own_origins_pass(host: str | None, origin: str | None) -> None:
    assert refusal(host, origin, allow_hosts=["mock.test"]) is None


@pytest.mark.parametrize(
    ("host", "origin", "says"),
    [
        ("evil.example.com", "http://evil.example.com", "Host 'evil.example.com'"),
        ("localhost.evil.example", None, "Host 'localhost.evil.example'"),
        ("127.0.0.1:8080", "http://evil.example", "Origin 'http://evil.example'"),
        ("127.0.0.1", "null", "Origin 'null'"),
        ("127.0.0.1", "file://", "Origin 'file://'"),
    ],
)
def test_other_hosts_and_origins_are_refused(host: str, origin: str | None, says: str) -> None:
    why = refusal(host, origin)
    assert why is not None
    assert says in why


def test_allowances_widen_the_check() -> None:
    assert refusal("mcp.internal:8080", None, allow_hosts=["mcp.internal"]) is None
    assert refusal("any.name", None, allow_hosts=["*"]) is None
    assert (
        refusal("127.0.0.1", "https://app.example", allow_origins=["https://app.example/"]) is None
    )
    assert refusal("127.0.0.1", "https://x.example", allow_origins=["*"]) is None


def test_host_name() -> None:
    assert [host_name(h) for h in ("A.Example:80", "[::1]:3", "::1", "x")] == [
        "a.example",
        "::1",
        "::1",
        "x",
    ]
