"""``mockhttp serve --tls``: https with a throwaway CA whose path is printed; with
``--workers`` every worker serves the same certificate."""

from __future__ import annotations

import re
import ssl

import httpx
import pytest

from tests.helpers.cli_process import Serving

pytest.importorskip("trustme")


def _ca_path(serving: Serving) -> str:
    line = serving.wait_for_log("throwaway CA")
    found = re.search(r"throwaway CA: (\S+/ca\.pem) ", line)
    assert found is not None, line
    return found.group(1)


@pytest.mark.parametrize("workers", [[], ["--workers", "2"]])
def test_serve_tls_prints_the_ca_and_serves_https(workers: list[str]) -> None:
    with Serving("--tls", *workers) as serving:
        assert serving.url.startswith("https://127.0.0.1:")
        trusted = ssl.create_default_context(cafile=_ca_path(serving))
        with httpx.Client(verify=trusted) as client:
            for _ in range(4):  # (several connections: more than one worker answers)
                reply = client.get(
                    serving.url + "/__mockhttp/health", headers={"Connection": "close"}
                )
                assert reply.status_code == 200
