"""``mockhttp serve --http2``: HTTP/2 by ALPN with ``--tls`` (and with ``--workers``),
h2c with prior knowledge on plain http; HTTP/1.1 clients still served."""

from __future__ import annotations

import re
import ssl

import httpx
import pytest

from tests.helpers.cli_process import Serving

pytest.importorskip("h2")
pytest.importorskip("trustme")


def test_serve_http2_over_tls_with_workers() -> None:
    with Serving("--tls", "--http2", "--workers", "2") as serving:
        line = serving.wait_for_log("throwaway CA")
        found = re.search(r"throwaway CA: (\S+/ca\.pem) ", line)
        assert found is not None, line
        trusted = ssl.create_default_context(cafile=found.group(1))
        with httpx.Client(verify=trusted, http2=True) as client:
            reply = client.get(serving.url + "/__mockhttp/health")
            assert (reply.status_code, reply.http_version) == (200, "HTTP/2")
        with httpx.Client(verify=trusted) as client:
            assert client.get(serving.url + "/__mockhttp/health").http_version == "HTTP/1.1"


def test_serve_http2_h2c_prior_knowledge() -> None:
    with Serving("--http2") as serving, httpx.Client(http1=False, http2=True) as client:
        reply = client.get(serving.url + "/__mockhttp/health")
        assert (reply.status_code, reply.http_version) == (200, "HTTP/2")
        assert reply.json()["status"] == "ok"
