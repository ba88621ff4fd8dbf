from __future__ import annotations

from collections.abc import Iterator

import pytest

import mockhttp


@pytest.fixture
def server() -> Iterator[mockhttp.Server]:
    """A fresh server for one test."""
    with mockhttp.Server() as s:
        yield s
