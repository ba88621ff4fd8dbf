"""What every LLM reply shares: content, usage, ids, timing, errors and transforms.

:class:`LLMReply` is a :class:`~mockhttp.ReplyKind`: ``build(request)`` makes the reply for
one request in the three steps of :mod:`._draft` (draft, transform, render).  A provider
subclass says how its stream and its buffered body look (``stream_chunks``, ``body``), how
its errors look (``error_draft``, ``error_chunks``) and which model it names by default.

Rule 1: one reply answers streamed and buffered requests alike: ``streamed(context)``
decides (the body's ``stream: true``; Gemini: the ``:streamGenerateContent`` path).
Rule 2: the model the request asked for is echoed unless ``model`` is given.
Rule 3: ids come from :func:`._text.make_id` with a salt drawn from the reply's own
arguments and the call number: unique per call, stable in a stream, the same next run.
Rule 4: ``reasoning`` is the model's reasoning, sent before the text in each API's own
shape (a chat delta field, a Responses reasoning item with its summary, Gemini thought
parts, an Anthropic thinking block) and counted in the usage as reasoning tokens.
Rule 5: ``error`` without ``error_after`` answers every request with the provider's error;
with ``error_after: n``, a streamed request gets n content chunks, then the provider's
mid-stream error (a buffered request still gets the error answer).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar, TypeVar

from .._core._errors import ConfigError, UnknownNameError
from .._core._forms import call_form
from .._core._registry import Registry, ReplyKind
from .._core._reply import Reply, ok
from .._core._request import Request
from .._core._units import Duration, format_seconds, seconds
from ._capacity import capacity_from
from ._draft import (
    CONTENT_KINDS,
    TRANSFORMS,
    Chunk,
    Context,
    Draft,
    Framing,
    Timing,
    Transform,
    render,
)
from ._errors import ERRORS, ErrorOptions, merge_headers
from ._text import arguments_text, count_tokens, make_id, pieces, prompt_tokens
from ._transforms import canonical
from ._transforms import transforms as quirk_transforms

__all__ = ["LLMReply", "ToolCall", "tool_calls_of"]

_TOOL_KEYS = ("name", "arguments", "id")
T = TypeVar("T")


@dataclass(frozen=True)
class ToolCall:
    """A tool call the reply makes: a function ``name`` and its ``arguments``."""

    name: str
    arguments: Any
    id: str | None

    @property
    def arguments_text(self) -> str:
        return arguments_text(self.arguments)

    @property
    def arguments_value(self) -> Any:
        return json.loads(self.arguments) if isinstance(self.arguments, str) else self.arguments

    def to_file(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "arguments": self.arguments}
        if self.id is not None:
            out["id"] = self.id
        return out


def tool_calls_of(value: Any) -> tuple[ToolCall, ...]:
    """A reply's or a turn's ``tool_calls``: a list of tool calls (or mappings of them).

    Raises:
        ConfigError: not a list, or an item that is no tool call.
    """
    if not isinstance(value, Sequence) or isinstance(value, str | bytes):
        raise ConfigError(f"tool_calls={value!r} must be a list of tool calls")
    return tuple(_tool_call(i, c) for i, c in enumerate(value))


def _tool_call(i: int, value: Any) -> ToolCall:
    where = f"tool_calls[{i}]"
    if isinstance(value, ToolCall):
        return value
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where}={value!r} must be a mapping with name and arguments")
    unknown = [k for k in value if k not in _TOOL_KEYS]
    if unknown:
        raise ConfigError(f"{where} has unknown key {unknown[0]!r} (expected name, arguments, id)")
    name = value.get("name")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{where}.name={name!r} must be a function name (text)")
    arguments = value.get("arguments", {})
    if isinstance(arguments, str):
        try:
            json.loads(arguments)
        except ValueError as exc:
            raise ConfigError(f"{where}.arguments={arguments!r} is not JSON text: {exc}") from None
    elif not isinstance(arguments, dict):
        raise ConfigError(f"{where}.arguments={arguments!r} must be a mapping or JSON text")
    call_id = value.get("id")
    if call_id is not None and (not isinstance(call_id, str) or not call_id):
        raise ConfigError(f"{where}.id={call_id!r} must be non-empty text")
    return ToolCall(name, arguments, call_id)


def _named(registry: Registry[T], name: str, where: str) -> T:
    """``registry[name]``; an unknown name is a ConfigError that starts with ``where``."""
    try:
        return registry.get(name)
    except UnknownNameError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _transform(i: int, value: Any) -> Transform:
    """A transform object, or its file form: ``name`` or ``[name, arg, ..., {option: v}]``."""
    if callable(value) and not isinstance(value, str | list):
        return value  # type: ignore[no-any-return]
    form = [value] if isinstance(value, str) else value
    if not isinstance(form, list) or not form or not isinstance(form[0], str):
        raise ConfigError(f"transforms[{i}]={value!r} must be a transform or [name, arg, ...]")
    return call_form(form, TRANSFORMS, where=f"transforms[{i}]")


@dataclass(frozen=True)
class LLMReply(ReplyKind):
    """Fields every provider's reply has; see the provider classes for the rest."""

    file_key: ClassVar[str] = "llm"
    default_model: ClassVar[str] = "mock-model"

    text: str | Sequence[str] = ""
    _: KW_ONLY
    chunk_size: int | None = None
    reasoning: str | None = None
    tool_calls: Sequence[Mapping[str, Any]] = field(default=(), hash=False)
    usage: Mapping[str, Any] | None = field(default=None, hash=False)
    model: str | None = None
    id: str | None = None
    headers: Mapping[str, str] | None = field(default=None, hash=False)
    ttft: Duration = 0.0
    chunks_per_second: float | None = None
    jitter: float = 0.0
    seed: int = 0
    error: str | None = None
    error_after: int | None = None
    retry_after: Duration | None = None
    error_message: str | None = None
    error_code: str | None = None
    error_type: str | None = None
    transforms: Sequence[Any] = field(default=(), hash=False)
    quirks: Sequence[str] = field(default=(), hash=False)
    as_: str | None = None
    capacity: Any = field(default=None, compare=False, hash=False)  # see _capacity.py
    _calls: Any = field(
        default_factory=itertools.count, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        self._check_content()
        self._check_timing()
        self._check_error()
        if isinstance(self.transforms, str | Mapping):
            raise ConfigError(f"transforms={self.transforms!r} must be a list of transforms")
        self._set("transforms", tuple(_transform(i, t) for i, t in enumerate(self.transforms)))
        quirks, as_ = canonical(self.quirks, self.as_, self.file_key)
        self._set("quirks", quirks)
        self._set("as_", as_)
        self._set("capacity", capacity_from(self.capacity))
        self.check()

    def _check_content(self) -> None:
        text = self.text
        if isinstance(text, list | tuple) and all(isinstance(p, str) for p in text):
            self._set("text", tuple(text))
        elif not isinstance(text, str):
            raise ConfigError(f"text={text!r} must be text or a list of text pieces")
        _positive_int("chunk_size", self.chunk_size)
        if self.reasoning is not None and not isinstance(self.reasoning, str):
            raise ConfigError(f"reasoning={self.reasoning!r} must be text")
        self._set("tool_calls", tool_calls_of(self.tool_calls))
        if self.usage is not None:
            if not isinstance(self.usage, Mapping):
                raise ConfigError(f"usage={self.usage!r} must be a mapping of token counts")
            self._set("usage", dict(self.usage))
        _text_or_none("model", self.model)
        _text_or_none("id", self.id)
        if self.headers is not None:
            if not isinstance(self.headers, Mapping):
                raise ConfigError(f"headers={self.headers!r} must be a mapping of names to text")
            ok().headers_from(self.headers)  # refuse what could not be sent, now
            self._set("headers", {str(k): str(v) for k, v in self.headers.items()})

    def _check_timing(self) -> None:
        self._set("ttft", seconds(self.ttft, "ttft"))
        cps = self.chunks_per_second
        if cps is not None and (
            isinstance(cps, bool) or not isinstance(cps, int | float) or cps <= 0
        ):
            raise ConfigError(f"chunks_per_second={cps!r} must be a positive number")
        jitter = self.jitter
        if isinstance(jitter, bool) or not isinstance(jitter, int | float) or not 0 <= jitter <= 1:
            raise ConfigError(f"jitter={jitter!r} must be a number from 0 to 1")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ConfigError(f"seed={self.seed!r} must be an int")

    def _check_error(self) -> None:
        if self.error is not None:
            _named(ERRORS, self.error, f"error={self.error!r}")
        if self.error_after is not None:
            _positive_int("error_after", self.error_after, zero=True)
            if self.error is None:
                raise ConfigError("error_after needs error (which error to send mid-stream)")
        if self.retry_after is not None:
            self._set("retry_after", seconds(self.retry_after, "retry_after"))
        for name in ("error_message", "error_code", "error_type"):
            _text_or_none(name, getattr(self, name))
        names = ("retry_after", "error_message", "error_code", "error_type")
        given = [n for n in names if getattr(self, n) is not None]
        if given and self.error is None:
            raise ConfigError(f"{given[0]} needs error (which error to send)")

    @property
    def error_options(self) -> ErrorOptions:
        """The reply's own words for its error (see :class:`._errors.ErrorOptions`)."""
        wait = None if self.retry_after is None else seconds(self.retry_after, "retry_after")
        return ErrorOptions(self.error_message, self.error_code, self.error_type, wait)

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def check(self) -> None:
        """Provider checks of the provider's own fields (raise ConfigError)."""

    # -- the file form ------------------------------------------------------------------

    def to_args(self) -> dict[str, Any]:
        return self._args(lenient=False)

    def _args(self, lenient: bool) -> dict[str, Any]:
        """The file form; ``lenient`` names Python-only transforms by their qualified name."""
        args: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if not f.init:
                continue
            value = getattr(self, f.name)
            if value == _default(f):
                continue
            args["as" if f.name == "as_" else f.name] = _file_value(f.name, value, lenient)
        return args

    # -- building -------------------------------------------------------------------------

    @property
    def pieces(self) -> list[str]:
        """The text as the stream sends it."""
        if isinstance(self.text, tuple):
            return [p for p in self.text if p]
        assert isinstance(self.text, str)
        return pieces(self.text, self.chunk_size)

    @property
    def full_text(self) -> str:
        return "".join(self.text) if isinstance(self.text, tuple) else str(self.text)

    @property
    def reasoning_pieces(self) -> list[str]:
        """The reasoning as the stream sends it (cut as the text is)."""
        return pieces(self.reasoning or "", self.chunk_size)

    @property
    def reasoning_tokens(self) -> int:
        return count_tokens(self.reasoning or "")

    @property
    def calls(self) -> tuple[ToolCall, ...]:
        return self.tool_calls  # type: ignore[return-value]

    def build(self, request: Request) -> Reply:
        call = next(self._calls) + 1
        body = _json_body(request)
        rng = random.Random(f"{self.seed}:{call}")
        context = Context(request, body, call, rng, self.model_for(request, body))
        draft = self.draft(context)
        for transform in (*quirk_transforms(tuple(self.quirks), self.as_), *self.transforms):
            draft = transform(draft, context)
        if self.capacity is not None:  # refused, or held in a slot until the call ends
            return self.capacity.answer(self, context, draft, self.timing)  # type: ignore[no-any-return]
        return render(draft, self.timing, rng)

    def draft(self, context: Context) -> Draft:
        """The draft for ``context``: the answer, the error, or a stream cut by an error."""
        streamed = self.streamed(context)
        if self.error is not None and (self.error_after is None or not streamed):
            return self.error_draft(context)
        if not streamed:
            return Draft(self.file_key, False, 200, self.base_headers(context), self.body(context))
        chunks = self.stream_chunks(context)
        if self.error is not None:
            kept = _cut(chunks, self.error_after or 0)
            chunks = kept + self.error_chunks(kept, context)
        return Draft(
            self.file_key,
            True,
            200,
            self.base_headers(context),
            chunks=tuple(chunks),
            framing=self.framing(),
        )

    @property
    def timing(self) -> Timing:
        interval = 1.0 / self.chunks_per_second if self.chunks_per_second else 0.0
        return Timing(seconds(self.ttft, "ttft"), interval, float(self.jitter))

    def model_for(self, request: Request, body: Mapping[str, Any]) -> str:
        """The model named in the reply: ``model``, else the request's, else the default."""
        if self.model is not None:
            return self.model
        asked = body.get("model")
        return asked if isinstance(asked, str) and asked else self.default_model

    def streamed(self, context: Context) -> bool:
        return context.body.get("stream") is True

    def make_id(self, prefix: str, context: Context, part: str = "", length: int = 24) -> str:
        """An id unique to this reply, this call and ``part``."""
        return make_id(prefix, f"{self._salt}:{part}", context.call, length)

    @property
    def _salt(self) -> str:
        cached = self.__dict__.get("_salt_text")
        if cached is None:
            text = json.dumps(self._args(lenient=True), sort_keys=True, default=str)
            cached = hashlib.sha256(f"{self.file_key}:{text}".encode()).hexdigest()[:16]
            self._set("_salt_text", cached)
        return cached

    def tool_call_id(self, call: ToolCall, index: int, context: Context, prefix: str) -> str:
        return call.id or self.make_id(prefix, context, f"tool{index}")

    def counted_input(self, context: Context) -> int:
        return prompt_tokens(context.body)

    def counted_output(self, *extra: str) -> int:
        texts = [self.full_text, *extra]
        for call in self.calls:
            texts.extend((call.name, call.arguments_text))
        return sum(count_tokens(t) for t in texts)

    def base_headers(self, context: Context) -> tuple[tuple[str, str], ...]:
        """Provider headers plus the reply's own ``headers``."""
        own = tuple(self.headers.items()) if self.headers else ()
        return merge_headers(self.provider_headers(context), own)

    # -- what a provider defines ----------------------------------------------------------

    def provider_headers(self, context: Context) -> tuple[tuple[str, str], ...]:
        return ()

    def framing(self) -> Framing:
        return Framing()

    def body(self, context: Context) -> Any:
        raise NotImplementedError

    def stream_chunks(self, context: Context) -> list[Chunk]:
        raise NotImplementedError

    def error_draft(self, context: Context) -> Draft:
        raise NotImplementedError

    def error_chunks(self, kept: list[Chunk], context: Context) -> list[Chunk]:
        raise NotImplementedError


def _cut(chunks: list[Chunk], after: int) -> list[Chunk]:
    """The chunks up to the ``after``-th content chunk (before the first one for 0)."""
    seen = 0
    for i, chunk in enumerate(chunks):
        if chunk.kind in CONTENT_KINDS:
            if seen == after:
                return chunks[:i]
            seen += 1
    return [c for c in chunks if c.kind not in ("finish", "usage", "end", "done")]


def _json_body(request: Request) -> Mapping[str, Any]:
    if not request.body:
        return {}
    try:
        value = json.loads(request.body)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        return {}
    return value if isinstance(value, dict) else {}


def _default(f: dataclasses.Field[Any]) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    return () if f.default_factory is dataclasses.MISSING else f.default_factory()


def _file_value(name: str, value: Any, lenient: bool = False) -> Any:
    if name in ("ttft", "retry_after"):
        return format_seconds(value)
    if name == "tool_calls":
        return [c.to_file() for c in value]
    if name == "capacity":
        return value.to_args()
    if name == "transforms":
        forms = []
        for t in value:
            to_args = getattr(t, "to_args", None)
            if to_args is None and lenient:
                forms.append(getattr(t, "__qualname__", type(t).__qualname__))
                continue
            if to_args is None:
                raise ConfigError(f"transform {t!r} has no file form (no to_args method)")
            forms.append(to_args())
        return forms
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def _positive_int(name: str, value: Any, zero: bool = False) -> None:
    if value is None:
        return
    low = 0 if zero else 1
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        kind = "a non-negative" if zero else "a positive"
        raise ConfigError(f"{name}={value!r} must be {kind} int")


def _text_or_none(name: str, value: Any) -> None:
    if value is not None and (not isinstance(value, str) or not value):
        raise ConfigError(f"{name}={value!r} must be non-empty text")
