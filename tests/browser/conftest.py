"""A real headless Chromium (Debian's ``chromium`` package) driven by Playwright.

Never ``playwright install``: the browser is the system's, at ``/usr/bin/chromium``.
Without it (or without the ``playwright`` package) these tests are skipped, saying why;
``.ci/run`` installs both.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
# --disable-background-networking and friends: without them Chromium reaches the internet
# at every start (updates, sync, field trials).
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """A Playwright browser context on the system Chromium, with a fresh profile."""
    yield from launch(ARGS)


def launch(args: list[str]) -> Iterator[Any]:
    """A persistent context of the system Chromium started with ``args`` (skips without it)."""
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium chromium-driver)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install playwright)")
    profile = tempfile.mkdtemp(prefix="mockhttp-chromium-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=str(CHROMIUM), args=args, headless=True
            )
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def certs() -> Iterator[Any]:
    """One CA and certificate for the module's https servers (the page's and the API's)."""
    from mockhttp._server._tls import make_certs

    made = make_certs("127.0.0.1")
    yield made
    shutil.rmtree(made.folder, ignore_errors=True)


@pytest.fixture(scope="module")
def chromium_tls(certs: Any) -> Iterator[Any]:
    """Chromium trusting exactly the certificate's key (by its SPKI hash)."""
    from mockhttp._server._tls import spki_sha256

    yield from launch([*ARGS, f"--ignore-certificate-errors-spki-list={spki_sha256(certs)}"])


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    """A dashboard-sized page of the module's Chromium; the test fails on any script error
    the page raised."""
    page = chromium.new_page()
    page.set_viewport_size({"width": 1400, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    page.close()
    assert errors == []
