"""Live mode: the requests each profile needs, sent to a real endpoint and checked."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from ._check import Outcome, evaluate
from ._record import Interrupted, Limits, record
from ._transcript import Transcript

__all__ = [
    "PROMPT",
    "anthropic_plan",
    "auth_headers",
    "buffered_answer",
    "endpoint",
    "openai_plan",
    "run_live",
]

PROMPT = "Count from one to five in words, separated by commas."
_PATHS = {"openai": ("/chat/completions", "/v1"), "anthropic": ("/messages", "/v1")}


def endpoint(url: str, api: str) -> str:
    """``url`` as given if it already names the endpoint, else with its path appended.

    ``http://host`` becomes ``http://host/v1/chat/completions``; ``http://host/v1`` becomes
    ``http://host/v1/chat/completions`` (and ``/v1/messages`` for the anthropic API).
    """
    path, version = _PATHS[api]
    current = urlsplit(url).path.rstrip("/")
    if current.endswith(path):
        return url
    prefix = "" if current.endswith(version) else version
    return url.rstrip("/") + prefix + path


def openai_plan(model: str) -> dict[str, dict[str, Any]]:
    """The three Chat Completions requests: streamed with and without usage, and buffered."""
    base = {
        "model": model,
        "messages": [{"role": "user", "content": PROMPT}],
        "max_tokens": 32,
        "temperature": 0,
    }
    return {
        "stream with include_usage": {
            **base,
            "stream": True,
            "stream_options": {"include_usage": True},
        },
        "stream": {**base, "stream": True},
        "buffered": {**base, "stream": False},
    }


def anthropic_plan(model: str) -> dict[str, dict[str, Any]]:
    """The two Messages requests: streamed and buffered."""
    base = {
        "model": model,
        "max_tokens": 32,
        "temperature": 0,
        "messages": [{"role": "user", "content": PROMPT}],
    }
    return {"stream": {**base, "stream": True}, "buffered": {**base, "stream": False}}


def auth_headers(api: str, key: str | None) -> dict[str, str]:
    """How each API wants its key (none when there is no key, as for a local server)."""
    if api == "anthropic":
        return {"anthropic-version": "2023-06-01", **({"x-api-key": key} if key else {})}
    return {"authorization": f"Bearer {key}"} if key else {}


def buffered_answer(transcript: Transcript) -> Any:
    """The buffered answer's JSON; a sentence saying what came instead when it failed."""
    if transcript.error is not None:
        return f"the buffered request failed: {transcript.error}"
    try:
        answer = transcript.json()
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
) -> list[Outcome]:
    """Send the profile's requests to ``url`` and check each streamed exchange.

    ``limits`` bound every exchange (its deadline is the whole check's); past the deadline
    the requests not yet sent are findings too.  Ctrl-C ends the check: the exchange it
    cut is reported as such, the others not sent.  ``on_exchange(target, request,
    transcript)`` sees each exchange (``check --save``).  ``as_`` names the provider: its
    documented quirks are reported as notes.
    """
    target = endpoint(url, api)
    plan = anthropic_plan(model) if api == "anthropic" else openai_plan(model)
    limits = limits or Limits()

    def send(request: Any) -> Transcript:
        if limits.deadline is not None and time.monotonic() >= limits.deadline:
            return Transcript(None, (), (), request, None, "the check's deadline passed "
                              "(--deadline) before this request was sent")  # fmt: skip
        transcript = record(target, request, headers=headers, timeout=timeout, limits=limits)
        if on_exchange is not None:
            on_exchange(target, request, transcript)
        return transcript

    try:
        buffered = buffered_answer(send(plan.pop("buffered")))
    except Interrupted as stop:
        return [evaluate(stop.transcript, _profiles(api, "buffered"), "buffered", as_=as_)]
    outcomes: list[Outcome] = []
    for label, request in plan.items():
        try:
            transcript = send(request)
        except Interrupted as stop:
            outcomes.append(evaluate(stop.transcript, _profiles(api, label), label, as_=as_))
            break
        if label == "stream":
            transcript = replace(transcript, buffered=buffered)
        outcomes.append(evaluate(transcript, _profiles(api, label), label, as_=as_))
    return outcomes


def _profiles(api: str, label: str) -> list[str]:
    """The profiles an exchange is checked with."""
    if api == "anthropic":
        return ["anthropic-messages"]
    if label == "stream":
        return ["openai-chat", "stream-equals-buffered"]
    return ["openai-chat"]
