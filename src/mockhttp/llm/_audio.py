"""Speech and transcription: OpenAI's ``POST /v1/audio/speech`` and
``POST /v1/audio/transcriptions``.

Speech answers the ``response_format`` asked (``mp3``, the default: MPEG-1 Layer III
silence; ``wav``; ``pcm``: 24 kHz 16-bit mono, a tone from the input text — see
``_media``), as a file, or with ``stream_format: sse`` as ``speech.audio.delta`` events
(base64 audio in pieces) then ``speech.audio.done`` with usage.  Formats the mock does not
encode (``opus``, ``aac``, ``flac``) get a 400 that says which it does.

Transcription reads the multipart form (``model``, ``response_format``, ``stream``) and
answers the configured text: ``json`` (with token usage for ``gpt-4o-*`` models),
``text``, ``verbose_json`` (one segment), ``srt`` and ``vtt``; ``stream=true`` sends
``transcript.text.delta`` events word by word, then ``transcript.text.done`` with usage.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, ClassVar

from .._core._errors import ConfigError
from .._core._registry import ReplyKind
from .._core._reply import Reply, ok, status
from .._core._request import Request
from .._core._sse import Event
from ._media import mp3, pcm, seconds_for, wav
from ._text import count_tokens, pieces

__all__ = ["Speech", "Transcription"]

_TYPES = {"mp3": "audio/mpeg", "wav": "audio/wav", "pcm": "audio/pcm"}
_PIECE = 4800  # bytes of audio per speech.audio.delta event (0.1 s of pcm)


def audio(text: str, form: str) -> bytes:
    """``text`` said in ``form`` (one of ``_TYPES``)."""
    if form == "mp3":
        return mp3(seconds_for(text))
    samples = pcm(text)
    return wav(samples) if form == "wav" else samples


@dataclass(frozen=True)
class Speech(ReplyKind):
    """Speech audio for the request's ``input``, in the format it asks for."""

    file_key: ClassVar[str] = "speech"

    def to_args(self) -> dict[str, Any]:
        return {}

    def build(self, request: Request) -> Reply:
        body = request.json() if request.body else None
        if not isinstance(body, dict) or not isinstance(body.get("input"), str):
            return _bad("'input' is required (text)")
        form = body.get("response_format") or "mp3"
        if form not in _TYPES:
            known = ", ".join(_TYPES)
            return _bad(f"response_format {form!r}: this mock encodes {known} only")
        sound = audio(body["input"], form)
        if body.get("stream_format") == "sse":
            return _speech_events(sound, body["input"])
        return ok().header("Content-Type", _TYPES[form]).body(sound)


def _speech_events(sound: bytes, text: str) -> Reply:
    events = [
        Event(
            data={
                "type": "speech.audio.delta",
                "audio": base64.b64encode(sound[i : i + _PIECE]).decode("ascii"),
            }
        )
        for i in range(0, len(sound), _PIECE)
    ]
    tokens = count_tokens(text)
    out = max(1, len(sound) // _PIECE)
    usage = {"input_tokens": tokens, "output_tokens": out, "total_tokens": tokens + out}
    events.append(Event(data={"type": "speech.audio.done", "usage": usage}))
    return ok().event_stream(*events)


@dataclass(frozen=True)
class Transcription(ReplyKind):
    """A transcript of the uploaded audio: ``text``, whatever was sent.

    Args:
        text: the transcript.
        language: reported by ``verbose_json``.
    """

    file_key: ClassVar[str] = "transcription"

    text: str = "Hello, world"
    language: str = "english"

    def __post_init__(self) -> None:
        for name in ("text", "language"):
            if not isinstance(getattr(self, name), str):
                raise ConfigError(f"{name}={getattr(self, name)!r} must be text")

    def to_args(self) -> dict[str, Any]:
        args: dict[str, Any] = {}
        if self.text != "Hello, world":
            args["text"] = self.text
        if self.language != "english":
            args["language"] = self.language
        return args

    def build(self, request: Request) -> Reply:
        fields = form_fields(request)
        if fields is None:
            return _bad("the body must be multipart/form-data with a 'file' and a 'model'")
        model = fields.get("model", "whisper-1")
        form = fields.get("response_format", "json")
        usage = _usage(self.text, model)
        if fields.get("stream") == "true" and not model.startswith("whisper"):
            return self._streamed(usage)
        if form == "text":
            return ok().header("Content-Type", "text/plain; charset=utf-8").body(self.text + "\n")
        if form in ("srt", "vtt"):
            return (
                ok().header("Content-Type", "text/plain; charset=utf-8").body(self._subtitles(form))
            )
        if form == "verbose_json":
            return ok().json(self._verbose())
        if form != "json":
            return _bad(f"response_format {form!r} must be json, text, srt, verbose_json or vtt")
        return ok().json({"text": self.text, "usage": usage})

    def _streamed(self, usage: dict[str, Any]) -> Reply:
        events = [
            Event(data={"type": "transcript.text.delta", "delta": piece})
            for piece in pieces(self.text)
        ]
        events.append(
            Event(data={"type": "transcript.text.done", "text": self.text, "usage": usage})
        )
        return ok().event_stream(*events)

    def _duration(self) -> float:
        return round(seconds_for(self.text), 2)

    def _subtitles(self, form: str) -> str:
        end = _clock(self._duration(), "," if form == "srt" else ".")
        start = _clock(0.0, "," if form == "srt" else ".")
        if form == "srt":
            return f"1\n{start} --> {end}\n{self.text}\n\n"
        return f"WEBVTT\n\n{start} --> {end}\n{self.text}\n\n"

    def _verbose(self) -> dict[str, Any]:
        duration = self._duration()
        segment = {
            "id": 0,
            "seek": 0,
            "start": 0.0,
            "end": duration,
            "text": " " + self.text,
            "tokens": list(range(50364, 50364 + count_tokens(self.text))),
            "temperature": 0.0,
            "avg_logprob": -0.1,
            "compression_ratio": 1.0,
            "no_speech_prob": 0.0,
        }
        return {
            "task": "transcribe",
            "language": self.language,
            "duration": duration,
            "text": self.text,
            "segments": [segment],
            "usage": {"type": "duration", "seconds": max(1, round(duration))},
        }


def _usage(text: str, model: str) -> dict[str, Any]:
    if model.startswith("whisper"):
        return {"type": "duration", "seconds": max(1, round(seconds_for(text)))}
    out = count_tokens(text)
    heard = max(1, round(seconds_for(text) * 10))  # ten audio tokens a second
    return {
        "type": "tokens",
        "input_tokens": heard,
        "input_token_details": {"text_tokens": 0, "audio_tokens": heard},
        "output_tokens": out,
        "total_tokens": heard + out,
    }


def _clock(seconds: float, mark: str) -> str:
    whole, millis = divmod(round(seconds * 1000), 1000)  # (1.9996 s is 00:00:02,000)
    return f"{whole // 3600:02d}:{whole // 60 % 60:02d}:{whole % 60:02d}{mark}{millis:03d}"


def form_fields(request: Request) -> dict[str, str] | None:
    """The text fields of a ``multipart/form-data`` body (files left out); None when the
    body is not one, or has no ``file``."""
    kind = request.headers.get("content-type", "")
    if not kind.lower().startswith("multipart/form-data"):
        return None
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + kind.encode("latin-1") + b"\r\n\r\n" + request.body
    )
    if not message.is_multipart():
        return None
    fields: dict[str, str] = {}
    has_file = False
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        if part.get_filename() is not None:
            has_file = has_file or name == "file"
            continue
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            fields[name] = payload.decode("utf-8", "replace")
    return fields if has_file else None


def _bad(message: str) -> Reply:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": None}
    return status(400).json({"error": error})
