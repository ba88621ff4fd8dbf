"""No secret in any output: a request carries secrets in every usual place, and each output
that repeats it (serve's log, the unmatched reply, the admin journal, ``server.check()``,
recordings and the proxy's log, ``check --save`` and ``check``'s reports) is grepped."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import httpx
import pytest

import mockhttp
from mockhttp._cli._main import main
from mockhttp.record import Recorder
from tests.helpers.cli_process import Serving

#: Each secret, in the place a client puts it.
HEADERS = {
    "Authorization": "Bearer sk-ant-auth0001secret",
    "Proxy-Authorization": "Basic cHJveHk6c2VjcmV0MDI=",
    "x-api-key": "sk-xapikey0003secret",
    "api-key": "azure0004secret",
    "x-goog-api-key": "AIzaGoog0005secret",
    "ocp-apim-subscription-key": "apim0006secret",
    "x-functions-key": "func0007secret",
    "api_key": "under0008secret",
    "x-api_key": "mixed0009secret",
    "key": "plain0010secret",
    "x-auth": "xauth0011secret",
    "x-amz-credential": "AKIA0012secret",
    "Cookie": "session=cookie0013secret; theme=dark",
    "OpenAI-Organization": "org-orgid0017secret",
    "OpenAI-Project": "proj_project0018secret",
}
QUERY = "?key=AIzaQuery0014secret&api_key=qapi0015secret&alt=sse"
SECRETS = [v.partition(" ")[2] or v for v in HEADERS.values()]
SECRETS += ["cookie0013secret", "AIzaQuery0014secret", "qapi0015secret"]
SECRETS += ["user-replyorg0019secret"]  # what OpenAI answers in openai-organization
#: a body that repeats one of them (a user pasting the key into a prompt)
BODY = {"model": "m", "messages": [{"role": "user", "content": "my key is sk-xapikey0003secret"}]}


def leaked(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def _send(url: str, path: str, accept: str = "*/*") -> httpx.Response:
    headers = {**HEADERS, "Accept": accept}
    return httpx.post(url + path + QUERY, json=BODY, headers=headers, timeout=10)


def test_the_serve_log_at_every_verbosity_the_journal_and_the_reply(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(
        "name: chat\nrequest: {method: POST, path: /v1/chat/completions,"
        " header: {x-api-key: other}}\nresponse: {status: 200}\n"
        "---\nname: plain\nrequest: {method: POST, path: /echo}\nresponse: {status: 204}\n"
    )
    for verbosity in ([], ["--verbose"]):
        with Serving(str(tmp_path), *verbosity) as serving:
            missed = _send(serving.url, "/v1/chat/completions")
            matched = _send(serving.url, "/echo")
            journal = httpx.get(serving.url + "/__mockhttp/journal").text
            serving.wait_for_log("/echo")
            serving.stop()
        assert (missed.status_code, matched.status_code) == (404, 204)
        assert leaked(missed.text) == []
        assert leaked(journal) == []
        log = "".join(serving.log)
        assert "key=[redacted]" in log
        assert leaked(log) == [], (verbosity, log)
        if verbosity:
            assert "Authorization: Bearer [redacted]" in log
            assert "my key is [redacted]" in log


@pytest.mark.parametrize(
    "path", ["/v1/chat/completions", "/v1/messages", "/v1beta/models/g:generateContent", "/x"]
)
def test_the_unmatched_reply_in_every_shape_and_server_check(path: str) -> None:
    with mockhttp.Server() as server:
        server.mock(mockhttp.post(path).header("x-api-key", "other").reply(mockhttp.ok()))
        for accept in ("text/plain", "application/json"):
            reply = _send(server.url, path, accept)
            assert reply.status_code == 404
            assert leaked(reply.text) == []
            assert "[redacted]" in reply.text
        with pytest.raises(mockhttp.UnmatchedRequestError) as failed:
            server.check()
    assert leaked(str(failed.value)) == []
    assert "no mock matched POST " in str(failed.value)


def test_recordings_and_the_proxy_log(tmp_path: Path) -> None:
    def echo(request: mockhttp.Request) -> mockhttp.Reply:
        said = json.dumps([request.target, request.headers.items_list, request.text])
        return (
            mockhttp.ok()
            .header("Set-Cookie", "session=cookie0013secret")
            .header("openai-organization", "user-replyorg0019secret")
            .body(said)
        )

    log = io.StringIO()
    with mockhttp.Server() as upstream:
        upstream.mock(mockhttp.post("/v1/chat/completions").respond_with(echo))
        with Recorder(upstream.url, tmp_path / "rec", log=log) as rec:
            reply = _send(rec.url, "/v1/chat/completions")
            assert "sk-xapikey0003secret" in reply.text  # the live client gets it as it came
            rec.wait(1)
    (path,) = (tmp_path / "rec").iterdir()
    assert leaked(path.read_text()) == []
    assert "theme=dark" not in path.read_text()
    assert leaked(log.getvalue()) == []
    assert "recorded POST /v1/chat/completions?key=[redacted]&api_key=[redacted]&alt=sse" in (
        log.getvalue()
    )


def test_check_save_and_its_reports(tmp_path: Path) -> None:
    key = "sk-checkkey0016secret"
    events = [
        mockhttp.Event(data={"error": f"bad key {key}", "cookie": "cookie0013secret"}),
        mockhttp.Event(data="[DONE]"),
    ]
    with mockhttp.Server() as server:
        server.mock(
            mockhttp.post("/v1/chat/completions").reply(mockhttp.ok().event_stream(*events))
        )
        outputs = []
        for report in (["--json"], [], ["--junit", str(tmp_path / "j.xml")]):
            out = io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
                main(
                    ["check", server.url, "--model", "m", "--api-key", key,
                     "--header", "Cookie: s=cookie0013secret",
                     "--save", str(tmp_path / "saved.yaml"), *report]
                )  # fmt: skip
            outputs.append(out.getvalue())
    outputs += [(tmp_path / "j.xml").read_text(), (tmp_path / "saved.yaml").read_text()]
    assert "bad key" in outputs[-1]
    for text in outputs:
        assert key not in text
        assert leaked(text) == []
