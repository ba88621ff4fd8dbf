"""Live mode: the requests each profile needs, sent to a real endpoint and checked."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from ._answer import parse_answer
from ._check import Outcome, evaluate
from ._record import Interrupted, Limits, record
from ._transcript import Transcript

__all__ = [
    "APIS",
    "PROMPT",
    "anthropic_plan",
    "api_of",
    "auth_headers",
    "buffered_answer",
    "endpoint",
    "gemini_plan",
    "openai_plan",
    "plan",
    "responses_plan",
    "run_live",
]

PROMPT = "Count from one to five in words, separated by commas."
# api -> (the endpoint's path, the version prefix a base URL gets)
_PATHS = {
    "openai": ("/chat/completions", "/v1"),
    "anthropic": ("/messages", "/v1"),
    "responses": ("/responses", "/v1"),
    "gemini": ("/models/{model}:generateContent", "/v1beta"),
}
# the profile a live check is asked for -> the API its requests speak
APIS = {
    "openai-chat": "openai",
    "anthropic-messages": "anthropic",
    "openai-responses": "responses",
    "gemini": "gemini",
}
Request = dict[str, Any]


def api_of(profiles: list[str]) -> str:
    """The API of the profiles a live check is asked for (``stream-equals-buffered`` goes
    with chat)."""
    apis = {APIS.get(p, "openai") for p in profiles}
    if len(apis) > 1:
        raise ValueError(
            "live mode checks one API at a time: " + ", ".join(p for p in profiles if p in APIS)
        )
    return apis.pop()


def endpoint(url: str, api: str, model: str = "", stream: bool = False) -> str:
    """``url`` as given if it already names the endpoint, else with its path appended.

    ``http://host`` becomes ``http://host/v1/chat/completions``; ``http://host/v1`` becomes
    ``http://host/v1/chat/completions`` (``/v1/messages`` for the anthropic API,
    ``/v1/responses`` for responses, ``/v1beta/models/MODEL:generateContent`` for gemini,
    ``:streamGenerateContent?alt=sse`` when ``stream``).
    """
    path, version = _PATHS[api]
    if api == "gemini":
        return _gemini_endpoint(url, model, stream)
    current = urlsplit(url).path.rstrip("/")
    if current.endswith(path):
        return url
    prefix = "" if current.endswith(version) else version
    return url.rstrip("/") + prefix + path


def _gemini_endpoint(url: str, model: str, stream: bool) -> str:
    method = ":streamGenerateContent?alt=sse" if stream else ":generateContent"
    parts = urlsplit(url)
    current = parts.path.rstrip("/")
    base = url.split("?", 1)[0].rstrip("/")
    for known in (":streamGenerateContent", ":generateContent"):
        if current.endswith(known):  # the endpoint named: the other method beside it
            return base[: -len(known)] + method
    if re.search(r"/models/[^/]+$", current):
        return base + method
    prefix = "" if re.search(r"/v1(beta)?$", current) else "/v1beta"
    return f"{base}{prefix}/models/{model}{method}"


def _with(base: Request | None, defaults: Request) -> Request:
    """The user's request (``--request``) over the check's defaults."""
    return {**defaults, **(base or {})}


def openai_plan(model: str, base: Request | None = None) -> dict[str, Request]:
    """The three Chat Completions requests: streamed with and without usage, and buffered.

    Each asks for logprobs (unless ``base`` says otherwise), so the token reassembly rule
    can run.
    """
    defaults = {
        "messages": [{"role": "user", "content": PROMPT}],
        "max_tokens": 32,
        "temperature": 0,
        "logprobs": True,
    }
    common = {**_with(base, defaults), "model": model}
    common.pop("stream_options", None)
    return {
        "stream with include_usage": {
            **common,
            "stream": True,
            "stream_options": {"include_usage": True},
        },
        "stream": {**common, "stream": True},
        "buffered": {**common, "stream": False},
    }


def anthropic_plan(model: str, base: Request | None = None) -> dict[str, Request]:
    """The two Messages requests: streamed and buffered."""
    defaults = {
        "max_tokens": 32,
        "temperature": 0,
        "messages": [{"role": "user", "content": PROMPT}],
    }
    common = {**_with(base, defaults), "model": model}
    return {"stream": {**common, "stream": True}, "buffered": {**common, "stream": False}}


def responses_plan(model: str, base: Request | None = None) -> dict[str, Request]:
    """The two Responses requests (``POST /v1/responses``): streamed and buffered."""
    defaults = {"input": PROMPT, "max_output_tokens": 32, "temperature": 0}
    common = {**_with(base, defaults), "model": model}
    return {"stream": {**common, "stream": True}, "buffered": {**common, "stream": False}}


def gemini_plan(model: str, base: Request | None = None) -> dict[str, Request]:
    """The two Gemini requests; the model and the stream are in the URL, not the body."""
    defaults = {
        "contents": [{"role": "user", "parts": [{"text": PROMPT}]}],
        "generationConfig": {"maxOutputTokens": 32, "temperature": 0},
    }
    common = _with(base, defaults)
    return {"stream": dict(common), "buffered": dict(common)}


_PLANS = {
    "openai": openai_plan,
    "anthropic": anthropic_plan,
    "responses": responses_plan,
    "gemini": gemini_plan,
}


def plan(api: str, model: str, base: Request | None = None) -> dict[str, Request]:
    """The requests a live check of ``api`` sends, by exchange label (``buffered`` last)."""
    return _PLANS[api](model, base)


def auth_headers(api: str, key: str | None) -> dict[str, str]:
    """How each API wants its key (none when there is no key, as for a local server)."""
    if api == "anthropic":
        return {"anthropic-version": "2023-06-01", **({"x-api-key": key} if key else {})}
    if api == "gemini":  # in a header, not ?key=: a URL is logged where a header is not
        return {"x-goog-api-key": key} if key else {}
    return {"authorization": f"Bearer {key}"} if key else {}


def buffered_answer(transcript: Transcript) -> Any:
    """The buffered answer's JSON; a sentence saying what came instead when it failed."""
    if transcript.error is not None:
        return f"the buffered request failed: {transcript.error}"
    try:
        answer = parse_answer(transcript.body)  # what the rules read (_answer.py)
    except (ValueError, RecursionError):  # nested too deep to parse: not JSON either
        answer = transcript.body[:200].decode("utf-8", "replace")
    if transcript.status != 200:
        return f"the buffered request got status {transcript.status}: {json.dumps(answer)}"
    return answer


def run_live(
    url: str,
    model: str,
    api: str,
    headers: Mapping[str, str],
    timeout: float,
    limits: Limits | None = None,
    on_exchange: Callable[[str, dict[str, Any], Transcript], None] | None = None,
    *,
    as_: str | None = None,
    request: Request | None = None,
) -> list[Outcome]:
    """Send the profile's requests to ``url`` and check each streamed exchange.

    ``limits`` bound every exchange (its deadline is the whole check's); past the deadline
    the requests not yet sent are findings too.  Ctrl-C ends the check: the exchange it
    cut is reported as such, the others not sent.  ``on_exchange(target, request,
    transcript)`` sees each exchange (``check --save``).  ``as_`` names the provider: its
    documented quirks are reported as notes.  ``request`` is the user's own request body
    (``--request``): the base of every request sent, the stream flag set per exchange.
    """
    requests = plan(api, model, request)
    limits = limits or Limits()

    def send(label: str, body: Any) -> Transcript:
        if limits.deadline is not None and time.monotonic() >= limits.deadline:
            return Transcript(None, (), (), body, None, "the check's deadline passed "
                              "(--deadline) before this request was sent")  # fmt: skip
        target = endpoint(url, api, model, stream=label != "buffered")
        transcript = record(target, body, headers=headers, timeout=timeout, limits=limits)
        if on_exchange is not None:
            on_exchange(target, body, transcript)
        return transcript

    try:
        buffered = buffered_answer(send("buffered", requests.pop("buffered")))
    except Interrupted as stop:
        return [evaluate(stop.transcript, _profiles(api, "buffered"), "buffered", as_=as_)]
    outcomes: list[Outcome] = []
    for label, body in requests.items():
        try:
            transcript = send(label, body)
        except Interrupted as stop:
            outcomes.append(evaluate(stop.transcript, _profiles(api, label), label, as_=as_))
            break
        if label == "stream":
            transcript = replace(transcript, buffered=buffered)
        outcomes.append(evaluate(transcript, _profiles(api, label), label, as_=as_))
    return outcomes


_API_PROFILES = {
    "anthropic": "anthropic-messages",
    "responses": "openai-responses",
    "gemini": "gemini",
}


def _profiles(api: str, label: str) -> list[str]:
    """The profiles an exchange is checked with."""
    if api in _API_PROFILES:
        return [_API_PROFILES[api]]
    if label == "stream":
        return ["openai-chat", "stream-equals-buffered"]
    return ["openai-chat"]
