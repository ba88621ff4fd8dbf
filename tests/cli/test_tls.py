"""``mockhttp serve --tls``: https with a throwaway CA whose path is printed; with
``--workers`` every worker serves the same certificate."""

from __future__ import annotations

import re
import shutil
import ssl
import subprocess
from pathlib import Path

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


@pytest.mark.parametrize("workers", [[], ["--workers", "2"]])
def test_ca_dir_keeps_one_ca_across_runs(tmp_path: Path, workers: list[str]) -> None:
    """``--ca-dir DIR``: the CA is made in DIR at the first run and served again after, so a
    client trusts ``DIR/ca.pem`` before the server starts; the supervisor leaves DIR."""
    folder = tmp_path / "ca"
    trusted: ssl.SSLContext | None = None
    for _ in range(2):
        with Serving("--tls", "--ca-dir", str(folder), *workers) as serving:
            serving.wait_for_log(f"the CA kept in --ca-dir: {folder / 'ca.pem'}")
            trusted = trusted or ssl.create_default_context(cafile=str(folder / "ca.pem"))
            reply = httpx.get(serving.url + "/__mockhttp/health", verify=trusted)
            assert reply.status_code == 200
        assert (folder / "ca.pem").is_file()


JAVA = """
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

public class Fetch {
    public static void main(String[] args) throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(args[0])).build();
        HttpResponse<String> reply = client.send(request, HttpResponse.BodyHandlers.ofString());
        System.out.println(reply.statusCode() + " " + reply.version() + " " + reply.body());
    }
}
"""


@pytest.mark.skipif(shutil.which("keytool") is None, reason="no JDK (keytool, java) here")
def test_java_trusts_the_ca_through_a_keytool_truststore_over_http2(tmp_path: Path) -> None:
    """docs/tls.md's Java row as written: ``keytool -importcert`` into a PKCS12 truststore,
    ``-Djavax.net.ssl.trustStore``, and java.net.http's client speaks HTTP/2 to the mock."""
    pytest.importorskip("h2")
    folder = tmp_path / "ca"
    store = tmp_path / "mockhttp.p12"
    (tmp_path / "m.yaml").write_text("request: {path: /hello}\nresponse: {body: hi}\n")
    (tmp_path / "Fetch.java").write_text(JAVA)
    with Serving(str(tmp_path / "m.yaml"), "--tls", "--http2", "--ca-dir", str(folder)) as serving:
        subprocess.run(
            ["keytool", "-importcert", "-noprompt", "-alias", "mockhttp", "-file",
             str(folder / "ca.pem"), "-keystore", str(store), "-storetype", "PKCS12",
             "-storepass", "changeit"],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        done = subprocess.run(
            ["java", f"-Djavax.net.ssl.trustStore={store}",
             "-Djavax.net.ssl.trustStorePassword=changeit",
             str(tmp_path / "Fetch.java"), serving.url + "/hello"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert done.stdout.strip() == "200 HTTP_2 hi", done.stderr
