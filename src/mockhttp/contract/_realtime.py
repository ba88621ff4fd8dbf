"""Realtime sessions' event contracts, on the raw WebSocket frames of one session.

A session is its frames in order (:class:`WsFrame`: who sent it, its kind, its data, when);
``check_frames(frames, profile)`` runs a profile's rules over the server's frames:

- ``openai-realtime`` (OpenAI Realtime events): every frame a JSON event with a ``type``
  and a unique ``event_id``, ``session.created`` first, deltas that reassemble to their
  ``done`` events (text, audio transcript, function-call arguments), one ``response.done``
  per ``response.created``, usage that adds up, ``error`` events in the provider's shape;
- ``gemini-live`` (``BidiGenerateContent``): every frame a JSON message of the API's fields,
  ``setupComplete`` first and once, model turns ended by ``turnComplete``, tool calls with
  an id and a name, usage that adds up.

Frames come from a live check (``_realtime_live``), from a WebSocket mock's journal
(:func:`frames_of`) or from a JSON file (:func:`loads_frames`): a list of
``{"from": "server" | "client", "kind": "text" | "binary" | "close", "data": ..., "at": s}``
(``"direction": "sent"`` / ``"received"`` is read as a mock's journal says it: sent by the
server).  Binary data is base64 in files.

Rule 1: pure: frames in, an ``Outcome`` out.
Rule 2: the mockhttp mocks of both APIs pass every rule (tests/contract/test_realtime.py).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._core._registry import Registry
from ._check import Outcome
from ._finding import Finding, Severity
from ._rule import Hit, Rule, short

__all__ = [
    "GEMINI_LIVE",
    "OPENAI_REALTIME",
    "REALTIME",
    "WsFrame",
    "check_frames",
    "frames_of",
    "loads_frames",
]


@dataclass(frozen=True, slots=True)
class WsFrame:
    """One frame of a session: ``sender`` (``"server"`` or ``"client"``), ``kind``
    (``text``, ``binary``, ``close``, ``ping``, ``pong``), ``data`` (a close's reason),
    ``at`` (seconds since the session began) and a close's ``code``."""

    sender: str
    kind: str
    data: str | bytes
    at: float = 0.0
    code: int | None = None


@dataclass(frozen=True, slots=True)
class _Event:
    index: int  # the frame's place among the server's messages
    body: Any  # the decoded JSON (None: not JSON)


# -- reading frames -----------------------------------------------------------------------------


def frames_of(session: Any) -> list[WsFrame]:
    """A WebSocket mock's session (``ws.Session``) as frames: what it sent is the server's."""
    return [
        WsFrame("server" if f.direction == "sent" else "client", f.kind, f.data, f.at, f.code)
        for f in session.frames
    ]


def loads_frames(text: str, source: str = "frames") -> list[WsFrame]:
    """The frames of a JSON capture (see the module's docstring).

    Raises:
        ValueError: not JSON, or a frame that is not a frame (the message names its index).
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{source}: not JSON ({exc})") from None
    if isinstance(data, Mapping):
        data = data.get("frames")
    if not isinstance(data, list):
        raise ValueError(f"{source}: a list of frames (or {{frames: [...]}}) is expected")
    return [_frame(item, f"{source}: frames[{i}]") for i, item in enumerate(data)]


def _frame(item: Any, where: str) -> WsFrame:
    if not isinstance(item, Mapping):
        raise ValueError(f"{where} must be an object with from, kind and data")
    sender = item.get("from")
    if sender is None and item.get("direction") in ("sent", "received"):
        sender = "server" if item["direction"] == "sent" else "client"
    if sender not in ("server", "client"):
        raise ValueError(f"{where}.from={sender!r} must be 'server' or 'client'")
    kind = item.get("kind", "text")
    data = item.get("data", "")
    if kind == "binary" and isinstance(data, str):
        try:
            data = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(f"{where}.data must be base64 for a binary frame") from None
    if not isinstance(data, str | bytes):
        raise ValueError(f"{where}.data must be text")
    at = item.get("at", 0.0)
    code = item.get("code")
    return WsFrame(sender, str(kind), data, float(at) if isinstance(at, int | float) else 0.0, code)


def _events(frames: Sequence[WsFrame]) -> list[_Event]:
    out = []
    messages = [f for f in frames if f.sender == "server" and f.kind in ("text", "binary")]
    for i, frame in enumerate(messages):
        try:
            body = json.loads(frame.data)
        except ValueError:
            body = None
        out.append(_Event(i, body))
    return out


# -- the rules --------------------------------------------------------------------------------

Finder = Callable[[list[_Event]], Iterator[Hit]]


def _never(_stream: Any) -> Iterator[Hit]:
    return iter(())


def _rule(id_: str, severity: Severity, checks: str, why: str) -> Rule:
    return Rule(id_, severity, checks, why, "none known", _never)


def _objects(events: list[_Event]) -> Iterator[tuple[_Event, dict[str, Any]]]:
    for e in events:
        if isinstance(e.body, dict):
            yield e, e.body


def _hit(event: _Event, text: str) -> Hit:
    return Hit(text, event.index)


def rt_json(events: list[_Event]) -> Iterator[Hit]:
    for e in events:
        if not isinstance(e.body, dict) or not isinstance(e.body.get("type"), str):
            yield _hit(e, f"a server message that is not a JSON event with a type: {short(e.body)}")


def rt_event_id(events: list[_Event]) -> Iterator[Hit]:
    seen: dict[str, int] = {}
    for e, body in _objects(events):
        given = body.get("event_id")
        if not isinstance(given, str) or not given:
            yield _hit(e, f"{body.get('type')} has no event_id (got {short(given)})")
        elif given in seen:
            yield _hit(e, f"event_id {short(given)} again (first at message {seen[given]})")
        else:
            seen[given] = e.index


def rt_session_created(events: list[_Event]) -> Iterator[Hit]:
    first = events[0] if events else None
    if first is None:
        return
    kind = first.body.get("type") if isinstance(first.body, dict) else None
    if kind != "session.created":
        yield _hit(first, f"the first server event is {short(kind)}, not session.created")


_DELTAS = {  # a delta type: (its done type, the done field holding the whole)
    "response.output_text.delta": ("response.output_text.done", "text"),
    "response.output_audio_transcript.delta": (
        "response.output_audio_transcript.done",
        "transcript",
    ),
    "response.function_call_arguments.delta": (
        "response.function_call_arguments.done",
        "arguments",
    ),
}
_DONE = {done: (delta, key) for delta, (done, key) in _DELTAS.items()}


def _part(body: Mapping[str, Any]) -> tuple[Any, ...]:
    return (body.get("response_id"), body.get("item_id"), body.get("content_index"))


def rt_deltas(events: list[_Event]) -> Iterator[Hit]:
    pieces: dict[tuple[Any, ...], list[str]] = {}
    finished: set[tuple[Any, ...]] = set()
    for e, body in _objects(events):
        kind = body.get("type")
        if kind in _DELTAS:
            key = (kind, *_part(body))
            if (_DELTAS[kind][0], *_part(body)) in finished:
                yield _hit(e, f"{kind} after its done event (item {short(body.get('item_id'))})")
            delta = body.get("delta")
            pieces.setdefault(key, []).append(delta if isinstance(delta, str) else "")
        elif kind in _DONE:
            delta_kind, field = _DONE[kind]
            finished.add((kind, *_part(body)))
            whole = "".join(pieces.pop((delta_kind, *_part(body)), []))
            if body.get(field) != whole:
                yield _hit(
                    e,
                    f"{kind}.{field} is {short(body.get(field))} "
                    f"but its deltas make {short(whole)}",
                )
    for (kind, _rid, item, _ci), _rest in pieces.items():
        yield Hit(f"{kind} for item {short(item)} never followed by its done event")


def rt_response_done(events: list[_Event]) -> Iterator[Hit]:
    created: dict[Any, int] = {}
    done: dict[Any, int] = {}
    for e, body in _objects(events):
        response = body.get("response")
        rid = response.get("id") if isinstance(response, dict) else None
        if body.get("type") == "response.created":
            created[rid] = e.index
        elif body.get("type") == "response.done":
            if rid in done:
                yield _hit(e, f"a second response.done for response {short(rid)}")
            elif rid not in created:
                yield _hit(e, f"response.done for response {short(rid)}, never created")
            done[rid] = e.index
    for rid, index in created.items():
        if rid not in done:
            yield Hit(
                f"response {short(rid)} (created at message {index}) has no response.done", index
            )


def rt_usage(events: list[_Event]) -> Iterator[Hit]:
    for e, body in _objects(events):
        response = body.get("response")
        if body.get("type") != "response.done" or not isinstance(response, dict):
            continue
        if response.get("status") != "completed":
            continue
        usage = response.get("usage")
        got = [usage.get(k) if isinstance(usage, dict) else None for k in _USAGE]
        counts = [c for c in got if isinstance(c, int) and not isinstance(c, bool) and c >= 0]
        if len(counts) != len(_USAGE):
            yield _hit(
                e, f"a completed response.done without usage {'/'.join(_USAGE)}: {short(usage)}"
            )
        elif counts[0] != counts[1] + counts[2]:
            yield _hit(
                e, f"usage total_tokens {counts[0]} != input {counts[1]} + output {counts[2]}"
            )


_USAGE = ("total_tokens", "input_tokens", "output_tokens")


def rt_error(events: list[_Event]) -> Iterator[Hit]:
    for e, body in _objects(events):
        if body.get("type") != "error":
            continue
        error = body.get("error")
        if not isinstance(error, dict) or not all(
            isinstance(error.get(k), str) and error.get(k) for k in ("type", "message")
        ):
            yield _hit(e, f"an error event whose error has no type and message: {short(error)}")


_GEMINI_FIELDS = frozenset(
    {
        "setupComplete", "serverContent", "toolCall", "toolCallCancellation", "usageMetadata",
        "goAway", "sessionResumptionUpdate", "voiceActivityDetectionSignal", "voiceActivity",
    }
)  # fmt: skip


def gl_json(events: list[_Event]) -> Iterator[Hit]:
    for e in events:
        body = e.body
        if not isinstance(body, dict) or not body:
            yield _hit(e, f"a server message that is not a JSON object: {short(body)}")
            continue
        unknown = sorted(set(body) - _GEMINI_FIELDS)
        if unknown and len(unknown) == len(body):  # google-genai raises on such a message
            yield _hit(e, f"no field the API sends, only: {', '.join(unknown)}")
        elif unknown:  # mapped without them: a warning
            text = f"fields the API does not send (the SDK drops them): {', '.join(unknown)}"
            yield Hit(text, e.index, None, "warning")


def gl_setup(events: list[_Event]) -> Iterator[Hit]:
    setups = [e for e, body in _objects(events) if "setupComplete" in body]
    if events and (not setups or setups[0] is not events[0]):
        yield _hit(events[0], "the first server message is not setupComplete")
    for extra in setups[1:]:
        yield _hit(extra, "setupComplete again")


def gl_turns(events: list[_Event]) -> Iterator[Hit]:
    open_at: int | None = None
    for e, body in _objects(events):
        content = body.get("serverContent")
        if not isinstance(content, dict):
            continue
        if "modelTurn" in content and open_at is None:
            open_at = e.index
        if content.get("turnComplete") or content.get("interrupted"):
            open_at = None
    if open_at is not None:
        yield Hit(f"the model turn begun at message {open_at} never gets turnComplete", open_at)


def gl_tool_calls(events: list[_Event]) -> Iterator[Hit]:
    for e, body in _objects(events):
        call = body.get("toolCall")
        if call is None:
            continue
        calls = call.get("functionCalls") if isinstance(call, dict) else None
        if not isinstance(calls, list) or not calls:
            yield _hit(e, f"a toolCall without functionCalls: {short(call)}")
            continue
        for fc in calls:
            if not isinstance(fc, dict) or not fc.get("id") or not fc.get("name"):
                yield _hit(e, f"a function call without an id and a name: {short(fc)}")


def gl_usage(events: list[_Event]) -> Iterator[Hit]:
    for e, body in _objects(events):
        usage = body.get("usageMetadata")
        if usage is None:
            continue
        if not isinstance(usage, dict):
            yield _hit(e, f"usageMetadata is not an object: {short(usage)}")
            continue
        prompt = usage.get("promptTokenCount", 0)
        answer = usage.get("responseTokenCount", 0)
        total = usage.get("totalTokenCount")
        numbers = (prompt, answer, total)
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
            yield _hit(e, f"usageMetadata counts are not integers: {short(usage)}")
        elif isinstance(total, int) and total < prompt + answer:
            yield _hit(e, f"totalTokenCount {total} < prompt {prompt} + response {answer}")


OPENAI_REALTIME: tuple[Rule, ...] = (
    _rule("realtime.json", "violation",
          "Every server message is a JSON object with a string type (an event).",
          "The SDKs parse each frame as an event and dispatch on its type."),
    _rule("realtime.event-id", "violation",
          "Every server event carries an event_id, unique within the session.",
          "Clients log and correlate by event id; a repeated id hides an event."),
    _rule("realtime.session-created", "violation",
          "The session's first server event is session.created.",
          "Clients wait for it before they configure the session."),
    _rule("realtime.deltas", "violation",
          "Text, audio-transcript and function-call-argument deltas of one part reassemble to "
          "their done event's text, transcript or arguments; none comes after its done event, "
          "and every run of deltas ends with one.",
          "Clients show the deltas and keep the done event's whole: they must agree."),
    _rule("realtime.response-done", "violation",
          "Each response.created is followed by exactly one response.done with the same id.",
          "Clients end a turn (and a tool loop waits) on response.done."),
    _rule("realtime.usage", "violation",
          "A completed response.done has usage with integer total, input and output tokens, "
          "the total their sum.",
          "Cost accounting reads it."),
    _rule("realtime.error", "violation",
          "An error event's error has a type and a message.",
          "The SDKs raise on error events with that type and message."),
)  # fmt: skip

GEMINI_LIVE: tuple[Rule, ...] = (
    _rule("gemini-live.json", "violation",
          "Every server message is a JSON object with at least one of the API's fields "
          "(setupComplete, serverContent, toolCall, toolCallCancellation, usageMetadata, "
          "goAway, sessionResumptionUpdate, voice activity); another field beside them is a "
          "warning.",
          "google-genai maps those fields, drops others, and raises APIError on a message "
          "with none of them (live.py _receive)."),
    _rule("gemini-live.setup-complete", "violation",
          "The first server message is setupComplete, and it comes once.",
          "client.aio.live.connect reads it before it hands the session over."),
    _rule("gemini-live.turn-complete", "violation",
          "A model turn (serverContent.modelTurn) is ended by turnComplete (or interrupted).",
          "session.receive() ends its loop on turnComplete: without it the client waits."),
    _rule("gemini-live.tool-call", "violation",
          "A toolCall has functionCalls, each with an id and a name.",
          "google-genai refuses a tool response without the call's id."),
    _rule("gemini-live.usage", "violation",
          "usageMetadata counts are integers and totalTokenCount is at least prompt + response.",
          "Cost accounting reads it."),
)  # fmt: skip

_FINDERS: dict[str, Finder] = {
    "realtime.json": rt_json,
    "realtime.event-id": rt_event_id,
    "realtime.session-created": rt_session_created,
    "realtime.deltas": rt_deltas,
    "realtime.response-done": rt_response_done,
    "realtime.usage": rt_usage,
    "realtime.error": rt_error,
    "gemini-live.json": gl_json,
    "gemini-live.setup-complete": gl_setup,
    "gemini-live.turn-complete": gl_turns,
    "gemini-live.tool-call": gl_tool_calls,
    "gemini-live.usage": gl_usage,
}

REALTIME: Registry[tuple[Rule, ...]] = Registry(
    "realtime profile", {"openai-realtime": OPENAI_REALTIME, "gemini-live": GEMINI_LIVE}
)
"""The realtime profiles: rules over a WebSocket session's frames."""


def check_frames(frames: Sequence[WsFrame], profile: str, exchange: str = "session") -> Outcome:
    """``profile``'s rules over the server's frames of one session.

    Raises:
        UnknownNameError: an unknown realtime profile (a ConfigError).
    """
    chosen = REALTIME.get(profile)
    events = _events(frames)
    findings = [
        Finding(rule.id, hit.severity or rule.severity, hit.message, hit.event, None, exchange)
        for rule in chosen
        for hit in _FINDERS[rule.id](events)
    ]
    skipped = tuple(r.id for r in chosen) if not events else ()
    kept = () if not events else tuple(findings)
    return Outcome(exchange, chosen, kept, skipped, (profile,))
