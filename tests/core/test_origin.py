"""Which hosts and origins a server answers (_core/_origin.py): pure."""

from __future__ import annotations

import pytest

from mockhttp._core._origin import allowed_origin, host_name, own_host


@pytest.mark.parametrize(
    ("host", "name"),
    [
        ("127.0.0.1:8000", "127.0.0.1"),
        ("[::1]:80", "::1"),
        ("LocalHost", "localhost"),
        ("::1", "::1"),
    ],
)
def test_host_name_drops_the_port_and_brackets(host: str, name: str) -> None:
    assert host_name(host) == name


def test_own_hosts_are_addresses_loopback_names_and_allowed_ones() -> None:
    assert own_host("10.0.0.5:80", ())
    assert own_host("app.localhost:3000", ())
    assert not own_host("evil.example", ())
    assert own_host("evil.example:80", ("evil.example",))
    assert own_host("anything", ("*",))


@pytest.mark.parametrize(
    ("origin", "host", "allowed", "answer"),
    [
        ("http://127.0.0.1:3000", None, (), True),
        ("http://localhost", "x", (), True),
        ("https://site.example", "site.example", (), True),  # the request's own host
        ("https://site.example", "other.example", (), False),
        ("https://site.example/", None, ("https://site.example",), True),
        ("null", None, (), False),
        ("file://", None, (), False),
        ("ftp://127.0.0.1", None, (), False),
        ("http://[bad", None, (), False),
        ("https://x.example", None, ("*",), True),
    ],
)
def test_allowed_origins(
    origin: str, host: str | None, allowed: tuple[str, ...], answer: bool
) -> None:
    assert allowed_origin(origin, host, allowed) is answer
