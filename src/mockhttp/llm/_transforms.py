"""Quirk transforms: for each quirk id of the catalogue, the transform that reproduces it.

The catalogue (what each quirk sends, who sends it, which rules catch it) is data owned by
:mod:`mockhttp.contract._catalogue`; a provider preset is a bundle of its ids
(:mod:`mockhttp.contract._providers`).  This module gives each id its maker: a callable that
takes the quirk's options (a provider's variant) and returns a transform
``(Draft, Context) -> Draft``.  ``QUIRK_TRANSFORMS`` holds exactly the catalogue's ids (a test
checks both ways); replies take ``quirks=[...]`` and ``as_=...`` through :func:`canonical`
and :func:`transforms`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._core._errors import ConfigError
from .._core._registry import Registry
from ..contract._catalogue import quirk
from ..contract._providers import provider
from ._chunk_quirks import (
    azure_annotation,
    azure_prompt_filter,
    choices_null,
    content_array,
    empty_id,
    extra_fields,
    finish_on_content,
    finish_stop_for_tools,
    missing_keys,
    object_value,
    reasoning_field,
    role_every_chunk,
    think_in_content,
    tool_args_whole,
    tool_no_index,
    usage_dummy_choice,
    usage_every_chunk,
    usage_on_finish,
    usage_vendor_ext,
    usage_without_request,
)
from ._draft import Transform
from ._wire_quirks import (
    bare_error,
    comments,
    error_event_named,
    error_in_chunk,
    event_line,
    framing,
    json_array,
    json_mixed,
    json_padding,
    no_done,
    ping_position,
    responses_error_shapes,
    responses_no_event_line,
    seqno,
    truncate,
    unknown_event,
)

__all__ = ["QUIRK_TRANSFORMS", "canonical", "transforms"]

QUIRK_TRANSFORMS: Registry[Callable[..., Transform]] = Registry(
    "quirk transform",
    {
        "Q-CRLF": framing(line_ending="\r\n"),
        "Q-CR-ONLY": framing(line_ending="\r"),
        "Q-DATA-NO-SPACE": framing(space=False),
        "Q-COMMENT-KEEPALIVE": comments,
        "Q-BOM": framing(bom=True),
        "Q-NO-TRAILING-BLANK": framing(final_blank_line=False),
        "Q-DONE": no_done,
        "Q-EVENT-LINE": event_line,
        "Q-RESP-NO-EVENT-LINE": responses_no_event_line,
        "Q-JSON-PADDING": json_padding,
        "Q-JSON-STYLE-MIXED": json_mixed,
        "Q-JSON-ARRAY-STREAM": json_array,
        "Q-ROLE-EVERY-CHUNK": role_every_chunk,
        "Q-FINISH-ON-CONTENT": finish_on_content,
        "Q-USAGE-ON-FINISH": usage_on_finish,
        "Q-USAGE-DUMMY-CHOICE": usage_dummy_choice,
        "Q-USAGE-EVERY-CHUNK": usage_every_chunk,
        "Q-USAGE-WITHOUT-REQUEST": usage_without_request,
        "Q-USAGE-VENDOR-EXT": usage_vendor_ext,
        "Q-CHOICES-NULL": choices_null,
        "Q-AZURE-PROMPT-FILTER": azure_prompt_filter,
        "Q-AZURE-ANNOTATION-NO-DELTA": azure_annotation,
        "Q-EMPTY-ID": empty_id,
        "Q-OBJECT-VALUE": object_value,
        "Q-MISSING-KEYS": missing_keys,
        "Q-EXTRA-FIELDS": extra_fields,
        "Q-REASONING-FIELD": reasoning_field,
        "Q-THINK-IN-CONTENT": think_in_content,
        "Q-CONTENT-ARRAY": content_array,
        "Q-TOOL-NO-INDEX": tool_no_index,
        "Q-TOOL-ARGS-WHOLE": tool_args_whole,
        "Q-FINISH-STOP-FOR-TOOLS": finish_stop_for_tools,
        "Q-ERR-BARE-DATA": bare_error(done=False),
        "Q-DONE-AFTER-ERROR": bare_error(done=True),
        "Q-ERR-IN-CHUNK": error_in_chunk,
        "Q-ERR-EVENT-NAMED": error_event_named,
        "Q-ERR-TRUNCATE": truncate,
        "Q-RESP-ERROR-SHAPES": responses_error_shapes,
        "Q-UNKNOWN-EVENT": unknown_event,
        "Q-SEQNO": seqno,
        "Q-PING-POSITION": ping_position,
    },
)
"""The maker of each catalogued quirk's transform, by quirk id."""


def canonical(quirks: Any, as_: Any, kind: str) -> tuple[tuple[str, ...], str | None]:
    """``quirks`` as upper-case ids and ``as_`` as a lower-case name, checked for ``kind``.

    Raises:
        ConfigError: an unknown id or provider, or one that does not concern ``kind``.
    """
    if isinstance(quirks, str) or not isinstance(quirks, list | tuple):
        raise ConfigError(f"quirks={quirks!r} must be a list of quirk ids such as ['Q-CRLF']")
    try:
        ids = tuple(quirk(q).id for q in quirks)
    except ConfigError as exc:
        raise ConfigError(f"quirks={list(quirks)!r}: {exc}") from None
    for q in ids:
        if kind not in quirk(q).kinds:
            kinds = ", ".join(quirk(q).kinds)
            raise ConfigError(f"quirks: {q} concerns {kinds} replies, not {kind}")
    if as_ is None:
        return ids, None
    try:
        preset = provider(as_)
    except ConfigError as exc:
        raise ConfigError(f"as={as_!r}: {exc}") from None
    if preset.kind != kind:
        raise ConfigError(f"as={as_!r} is a preset for {preset.kind} replies, not {kind}")
    return ids, preset.name


def transforms(quirks: tuple[str, ...], as_: str | None) -> list[Transform]:
    """The transforms of a provider preset (first) and of the quirks given, in order."""
    out: list[Transform] = []
    if as_ is not None:
        preset = provider(as_)
        out += [QUIRK_TRANSFORMS.get(q)(**preset.options.get(q, {})) for q in preset.quirks]
    out += [QUIRK_TRANSFORMS.get(quirk(q).id)() for q in quirks]
    return out
