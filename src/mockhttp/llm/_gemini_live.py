"""Gemini Live (``BidiGenerateContent``) over a WebSocket, as ``google-genai``'s live
client speaks it.

The client opens ``/ws/google.ai.generativelanguage.{version}.GenerativeService.
BidiGenerateContent`` (``client.aio.live.connect``: the version is the client's
``api_version``) and sends JSON messages with one key each; the mock answers:

- ``setup`` (the first message) → ``{"setupComplete": {}}``; it keeps the setup's
  ``generationConfig.responseModalities`` (default ``AUDIO``, as the API's),
  ``outputAudioTranscription``, ``systemInstruction`` and ``tools``;
- ``clientContent`` → its ``turns`` join the session; with ``turnComplete`` the model
  answers (a turn);
- ``realtimeInput``: ``text`` → a turn; ``audio`` / ``mediaChunks`` are kept, and
  ``audioStreamEnd`` or ``activityEnd`` after them → a turn (what voice activity
  detection does when the speaker stops), after ``serverContent.inputTranscription``
  (``input_transcript``) when the setup asked for ``inputAudioTranscription``;
- ``toolResponse`` → its ``functionResponses`` join the session, then a turn.

A turn (:class:`~mockhttp.llm._live_turns.Turns`) is either tool calls —
``{"toolCall": {"functionCalls": [{id, name, args}]}}``, the turn going on after the
client's ``toolResponse`` — or text: one ``serverContent.modelTurn`` a word (a ``text``
part, or with the ``AUDIO`` modality an ``inlineData`` part of deterministic PCM,
``audio/pcm;rate=24000``, preceded by ``serverContent.outputTranscription`` when the setup
asked for it), ``generationComplete``, then ``turnComplete`` with ``usageMetadata``.
With ``go_away_after=N`` a ``goAway`` (``timeLeft``) follows the N-th turn.

Rule 1: messages are read in either spelling the API takes (``client_content`` as the SDK
sends it, ``clientContent``; ``turn_complete``, ``turnComplete``).
Rule 2: a bad message closes the session as the API does: **1007** with the reason (not
JSON, an unknown field, no ``setup`` first, a second ``setup``).
Rule 3: a conversation that refuses the session closes it with **1008** and the refusal's
first line; an error turn closes it with **1011** and the provider's status.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar

from .._core._errors import ConfigError
from .._core._mock import Mock, request
from ..ws._kind import WebSocket
from ..ws._script import Close
from ..ws._session import Answer, Responder
from ._base import ToolCall, tool_calls_of
from ._conversation import Conversation, ConversationError
from ._errors import gemini_error
from ._live_turns import Said, Turns, conversation_of
from ._media import RATE, pcm
from ._text import count_tokens, pieces

__all__ = ["PATH", "GeminiLive", "gemini_live"]

PATH = "/ws/google.ai.generativelanguage.{version}.GenerativeService.BidiGenerateContent"
"""The path ``client.aio.live.connect`` opens with an API key (``{version}``: v1beta...)."""
MODEL = "gemini-live-2.5-flash-preview"
MESSAGES = ("setup", "clientContent", "realtimeInput", "toolResponse")
TIME_LEFT = "10s"


def gemini_live(
    text: str = "Hello",
    *,
    tool_calls: Any = (),
    conversation: Conversation | Mapping[str, Any] | None = None,
    go_away_after: int | None = None,
    chaos: Any = None,
    allow_origins: Sequence[str] = (),
    input_transcript: str = "",
) -> GeminiLive:
    """A Gemini Live endpoint whose turns answer ``text``; with ``tool_calls`` (a list of
    ``{name, arguments, id?}``) the session's first turn makes those calls; with
    ``conversation`` the turns come from its script (the session's contents read as a
    Gemini request); ``go_away_after=N`` sends ``goAway`` after the N-th turn; ``chaos``
    breaks some messages, seeded (``ws.chaos``); ``allow_origins`` the pages of other sites
    that may open a session (see ``ws.WebSocket``); ``input_transcript`` what the client's
    audio is transcribed as (``inputTranscription`` when the setup asks for it, and the
    user's words a conversation reads)."""
    return GeminiLive(
        text=text,
        tool_calls=tool_calls,
        conversation=conversation,
        go_away_after=go_away_after,
        chaos=chaos,
        allow_origins=allow_origins,
        input_transcript=input_transcript,
    )


@dataclass(frozen=True)
class GeminiLive(WebSocket):
    """A Gemini Live session (see the module's docstring)."""

    file_key: ClassVar[str] = "gemini_live"

    text: str = "Hello"
    _: KW_ONLY
    tool_calls: Any = ()
    conversation: Any = None
    go_away_after: int | None = None
    input_transcript: str = ""

    def __post_init__(self) -> None:
        WebSocket.__post_init__(self)
        if not isinstance(self.input_transcript, str):
            raise ConfigError(
                f"gemini_live input_transcript={self.input_transcript!r} must be text"
            )
        if not isinstance(self.text, str):
            raise ConfigError(f"gemini_live text={self.text!r} must be text")
        object.__setattr__(self, "tool_calls", tool_calls_of(self.tool_calls))
        object.__setattr__(self, "conversation", conversation_of(self.conversation, "gemini_live"))
        after = self.go_away_after
        if after is not None and (
            isinstance(after, bool) or not isinstance(after, int) or after < 1
        ):
            raise ConfigError(f"gemini_live go_away_after={after!r} must be a positive int (turns)")

    def mock(self, path: str = PATH, *, name: str | None = None) -> Mock:
        """A mock answering the upgrade ``GET path`` (any API version) with this session."""
        return request("GET", path, name=name).reply(self)

    def to_args(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text}
        if self.tool_calls:
            out["tool_calls"] = [c.to_file() for c in self.tool_calls]
        if self.conversation is not None:
            out["conversation"] = self.conversation.to_args()
        if self.go_away_after is not None:
            out["go_away_after"] = self.go_away_after
        if self.input_transcript:
            out["input_transcript"] = self.input_transcript
        return self.with_chaos(out)

    def responder(self) -> Responder:
        turns = Turns(self.text, self.tool_calls, self.conversation, "gemini")
        return Live(turns, self.go_away_after, self.input_transcript)


@dataclass
class Live:
    """One Gemini Live session: its setup, its contents, its turns."""

    turns: Turns
    go_away_after: int | None = None
    heard: str = ""  # what the client's audio is transcribed as
    setup: dict[str, Any] | None = None
    contents: list[dict[str, Any]] = field(default_factory=list)
    audio: bool = False  # audio came since the last turn
    done: int = 0  # turns answered
    ids: Any = field(default_factory=lambda: itertools.count(1))

    def greet(self) -> list[Answer]:
        return []

    def answer(self, message: str | bytes) -> list[Answer]:
        try:
            data = json.loads(message)
        except ValueError:
            return [_invalid("Invalid JSON payload received.")]
        if not isinstance(data, dict) or len(data) != 1:
            return [_invalid("Invalid JSON payload received. A message has exactly one field.")]
        ((key, value),) = data.items()
        name = _camel(key)
        if name not in MESSAGES:
            return [
                _invalid(f'Invalid JSON payload received. Unknown name "{key}": Cannot find field.')
            ]
        if (name == "setup") == (self.setup is not None):
            first = "setup must be the first message" if name != "setup" else "setup came twice"
            return [_invalid(f"Request contains an invalid argument: {first}.")]
        value = value if isinstance(value, dict) else {}
        return HANDLERS[name](self, value)

    # -- the client's messages ------------------------------------------------------------------

    def on_setup(self, setup: dict[str, Any]) -> list[Answer]:
        self.setup = setup
        return [_out({"setupComplete": {}})]

    def on_content(self, content: dict[str, Any]) -> list[Answer]:
        turns = _get(content, "turns")
        for turn in turns if isinstance(turns, list) else [turns] if turns else []:
            if isinstance(turn, dict):
                self.contents.append(
                    {"role": turn.get("role", "user"), "parts": turn.get("parts", [])}
                )
        return self.turn() if _get(content, "turnComplete") else []

    def on_realtime(self, given: dict[str, Any]) -> list[Answer]:
        text = _get(given, "text")
        if isinstance(text, str):
            self.contents.append({"role": "user", "parts": [{"text": text}]})
            return self.turn()
        if _get(given, "audio") is not None or _get(given, "mediaChunks") is not None:
            self.audio = True
            return []
        if (_get(given, "audioStreamEnd") or _get(given, "activityEnd") is not None) and self.audio:
            self.audio = False
            self.contents.append({"role": "user", "parts": [{"text": self.heard}]})
            heard: list[Answer] = []
            if _get(self.setup or {}, "inputAudioTranscription") is not None:
                heard.append(_out({"serverContent": {"inputTranscription": {"text": self.heard}}}))
            return heard + self.turn()
        return []

    def on_tool_response(self, given: dict[str, Any]) -> list[Answer]:
        answers = _get(given, "functionResponses")
        parts = [
            {"functionResponse": {k: r.get(k) for k in ("id", "name", "response")}}
            for r in (answers if isinstance(answers, list) else [])
            if isinstance(r, dict)
        ]
        self.contents.append({"role": "user", "parts": parts})
        return self.turn()

    # -- the model's turn -----------------------------------------------------------------------

    def body(self) -> dict[str, Any]:
        """The session so far as a ``generateContent`` request (what a conversation reads)."""
        setup = self.setup or {}
        out: dict[str, Any] = {"contents": self.contents}
        for key in ("systemInstruction", "tools"):
            if _get(setup, key) is not None:
                out[key] = _get(setup, key)
        return out

    def turn(self) -> list[Answer]:
        try:
            said = self.turns.next(self.body(), lambda: f"function-call-{next(self.ids)}")
        except ConversationError as refused:
            first = str(refused).splitlines()[0]
            raise ConversationError(str(refused), [_close(1008, first)]) from None
        if said.error is not None:
            _status, body, _headers = gemini_error(said.error)
            error = body["error"]
            return [_close(1011, f"{error['status']}: {error['message']}")]
        if said.calls:
            return self.calls(said.calls)
        out = self.text(said)
        self.done += 1
        if self.go_away_after is not None and self.done == self.go_away_after:
            out.append(_out({"goAway": {"timeLeft": TIME_LEFT}}))
        return out

    def calls(self, calls: tuple[ToolCall, ...]) -> list[Answer]:
        made = [{"id": c.id, "name": c.name, "args": c.arguments_value} for c in calls]
        self.contents.append({"role": "model", "parts": [{"functionCall": m} for m in made]})
        return [_out({"toolCall": {"functionCalls": made}})]

    def text(self, said: Said) -> list[Answer]:
        setup = self.setup or {}
        config = _get(setup, "generationConfig") or {}
        modalities = _get(config, "responseModalities") or ["AUDIO"]
        audio = "AUDIO" in [str(m).upper() for m in modalities]
        transcribe = _get(setup, "outputAudioTranscription") is not None
        out: list[Answer] = []
        for word in pieces(said.text):
            if audio:
                if transcribe:
                    out.append(_out({"serverContent": {"outputTranscription": {"text": word}}}))
                data = base64.b64encode(pcm(word)).decode()
                part: dict[str, Any] = {
                    "inlineData": {"mimeType": f"audio/pcm;rate={RATE}", "data": data}
                }
            else:
                part = {"text": word}
            out.append(_out({"serverContent": {"modelTurn": {"parts": [part]}}}))
        self.contents.append({"role": "model", "parts": [{"text": said.text}]})
        out.append(_out({"serverContent": {"generationComplete": True}}))
        usage = self.usage(said, "AUDIO" if audio else "TEXT")
        out.append(_out({"serverContent": {"turnComplete": True}, "usageMetadata": usage}))
        return out

    def usage(self, said: Said, modality: str) -> dict[str, Any]:
        given = dict(said.usage or {})
        prompt = given.pop("input_tokens", None)
        if prompt is None:
            prompt = sum(count_tokens(_text_of(c)) for c in self.contents[:-1])
        answer = given.pop("output_tokens", None)
        if answer is None:
            answer = max(1, count_tokens(said.text))
        return {
            "promptTokenCount": prompt,
            "responseTokenCount": answer,
            "totalTokenCount": prompt + answer,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
            "responseTokensDetails": [{"modality": modality, "tokenCount": answer}],
            **given,
        }


HANDLERS = {
    "setup": Live.on_setup,
    "clientContent": Live.on_content,
    "realtimeInput": Live.on_realtime,
    "toolResponse": Live.on_tool_response,
}


def _camel(key: str) -> str:
    """``client_content`` → ``clientContent`` (the API takes both spellings)."""
    head, *rest = key.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


def _get(mapping: Any, name: str) -> Any:
    """A field in either spelling (``turnComplete`` or ``turn_complete``)."""
    if not isinstance(mapping, Mapping):
        return None
    value = mapping.get(name)
    return mapping.get(_snake(name)) if value is None else value


def _text_of(content: Mapping[str, Any]) -> str:
    parts = content.get("parts")
    return " ".join(
        p["text"]
        for p in (parts if isinstance(parts, list) else [])
        if isinstance(p, dict) and isinstance(p.get("text"), str)
    )


def _out(message: Mapping[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"))


def _close(code: int, reason: str) -> Close:
    """A close with ``reason`` cut to the 123 bytes a close frame carries."""
    data = reason.encode()[:123]
    return Close(code, data.decode(errors="ignore"))


def _invalid(reason: str) -> Close:
    return _close(1007, reason)
