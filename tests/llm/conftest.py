"""tests/llm: the official SDKs' clients of the test's server, as fixtures that close them.

A client left to the garbage collector holds its pooled socket until a later collection,
in a later test, where the socket's ResourceWarning fails that test (pyproject makes
warnings errors).  The fixtures close it at the end of the test that made it.
"""

from __future__ import annotations

from collections.abc import Iterator

import anthropic
import openai
import pytest

import mockhttp


@pytest.fixture
def openai_client(server: mockhttp.Server) -> Iterator[openai.OpenAI]:
    """An openai client of ``server`` (``/v1``), no retries."""
    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0) as c:
        yield c


@pytest.fixture
def anthropic_client(server: mockhttp.Server) -> Iterator[anthropic.Anthropic]:
    """An anthropic client of ``server``, no retries."""
    with anthropic.Anthropic(base_url=server.url, api_key="sk-test", max_retries=0) as c:
        yield c
