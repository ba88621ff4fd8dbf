"""The benchmark's JSON request shape, shared by the bench scripts.

``POST /v1/chat/json`` with a ~300-byte OpenAI-style chat body (``Content-Type:
application/json``), as an LLM client sends it; ``bench/serve.py`` and ``bench/micro.py``
match it with JSONPath on the body (``$.model`` and ``$.messages[-1].content``) behind a
mock on the same path that does not match (another model), so each request evaluates the
body matchers of two mocks; the reply is a small fixed JSON.  ``bench/reference.py``
replies the same bytes without reading the body.
"""

from __future__ import annotations

import json
from typing import Any

JSON_PATH = "/v1/chat/json"
JSON_MODEL = "gpt-4o-mini"
JSON_BODY = json.dumps(
    {
        "model": JSON_MODEL,
        "messages": [
            {
                "role": "user",
                "content": (
                    "What is the weather like in Paris today? Answer in one short sentence "
                    "and give the temperature in degrees Celsius, the chance of rain, the "
                    "wind and whether I need an umbrella or a coat for an evening walk "
                    "along the river."
                ),
            }
        ],
        "stream": False,
    },
    separators=(",", ":"),
).encode()
JSON_REPLY = {
    "id": "chatcmpl-bench",
    "object": "chat.completion",
    "model": JSON_MODEL,
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Sunny, 21 C."}}],
}
JSON_REPLY_BYTES = json.dumps(JSON_REPLY, separators=(",", ":")).encode()
JSON_REQUEST = (
    b"POST %b HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Content-Length: %d\r\n\r\n%b" % (JSON_PATH.encode(), len(JSON_BODY), JSON_BODY)
)


def json_mocks(mockhttp: Any) -> list[Any]:
    """The two mocks of the shape (``mockhttp`` passed in: bench/serve.py may import
    another checkout's): the newest, tried first, wants another model and misses."""
    from mockhttp import match  # the same package as ``mockhttp``

    post, ok = mockhttp.post, mockhttp.ok
    answers = (
        post(JSON_PATH)
        .body(match.json_path("$.model", JSON_MODEL))
        .body(match.json_path("$.messages[-1].content", match.contains("weather")))
        .reply(ok().json(JSON_REPLY))
    )
    other = (
        post(JSON_PATH)
        .body(match.json_path("$.model", "gpt-4o"))
        .reply(ok().json({"error": "not this one"}))
    )
    return [answers, other]


def lua_script() -> str:
    """A wrk script that sends the shape's request on every call."""
    body = JSON_BODY.decode().replace("\\", "\\\\").replace('"', '\\"')
    return (
        'wrk.method = "POST"\n'
        f'wrk.path = "{JSON_PATH}"\n'
        'wrk.headers["Content-Type"] = "application/json"\n'
        f'wrk.body = "{body}"\n'
    )
