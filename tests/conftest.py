from __future__ import annotations

from collections.abc import Iterator

import pytest

import mockhttp


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    """A fresh server for one test."""
    with mockhttp.Server() as s:
        yield s


@pytest.fixture
def pytester(pytester: pytest.Pytester) -> pytest.Pytester:
    """pytester, with an ini file that sets what common plugins (pytest-asyncio) ask for,
    as a user's project would."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester
