"""Resources (``server/resources``): fixed ones, and templates that read any URI they match.

A :class:`Resource` has a URI and contents, ``text`` or a ``blob`` (base64).  A
:class:`ResourceTemplate` has an RFC 6570 URI template (``test://template/{id}/data``):
``resources/read`` of a URI no resource has reads the first template that matches it,
its ``text`` with each ``{name}`` filled in from the URI.  ``complete`` gives the values
``completion/complete`` offers for a template's variables.

Rule 1: a template's expressions are level 1 and 2 of RFC 6570: ``{var}`` matches one
path segment (no ``/``, ``?`` or ``#``), ``{+var}`` anything.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._content import as_base64, check_base64
from ._fields import check_mapping, check_sequence, check_text, fail, record_data

__all__ = ["Resource", "ResourceTemplate", "check_completions", "resource", "template"]


def _check_blob(text: str, blob: str | None) -> None:
    if blob is not None:
        check_base64(blob, "blob")
        if text:
            raise fail("", "a resource has text or a blob, not both")


@dataclass(frozen=True)
class Resource:
    """A resource: what ``resources/list`` says of it and what ``resources/read`` reads."""

    uri: str
    text: str = ""
    name: str = ""
    mime_type: str = "text/plain"
    blob: str | None = None
    title: str = ""
    description: str = ""

    def __post_init__(self) -> None:
        check_text(self.uri, "uri", empty=False)
        for name in ("text", "name", "title", "description"):
            check_text(getattr(self, name), name)
        check_text(self.mime_type, "mime_type", empty=False)
        _check_blob(self.text, self.blob)

    def listing(self) -> dict[str, Any]:
        out = {"uri": self.uri, "name": self.name or self.uri, "mimeType": self.mime_type}
        return _described(out, self.title, self.description)

    def contents(self) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri, "mimeType": self.mime_type}
        if self.blob is not None:
            out["blob"] = self.blob
        else:
            out["text"] = self.text
        return out

    def to_data(self) -> dict[str, Any]:
        return {"uri": self.uri, **record_data(self)}


def _described(out: dict[str, Any], title: str, description: str) -> dict[str, Any]:
    if title:
        out["title"] = title
    if description:
        out["description"] = description
    return out


def check_completions(value: Any, where: str) -> dict[str, tuple[str, ...]]:
    """``{name: [value, ...]}``: the values completion offers for each name."""
    out = {}
    for name, values in check_mapping(value, where).items():
        items = check_sequence(values, f"{where}.{name}")
        out[name] = tuple(check_text(v, f"{where}.{name}[{i}]") for i, v in enumerate(items))
    return out


@dataclass(frozen=True)
class ResourceTemplate:
    """A resource template: ``resources/templates/list`` lists it, ``resources/read``
    reads each URI it matches (see the module's docstring)."""

    uri_template: str
    text: str = ""
    name: str = ""
    mime_type: str = "text/plain"
    blob: str | None = None
    title: str = ""
    description: str = ""
    complete: Mapping[str, Sequence[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_text(self.uri_template, "uri_template", empty=False)
        for name in ("text", "name", "title", "description"):
            check_text(getattr(self, name), name)
        check_text(self.mime_type, "mime_type", empty=False)
        _check_blob(self.text, self.blob)
        object.__setattr__(self, "complete", check_completions(self.complete, "complete"))
        _pattern(self.uri_template)  # (a variable named twice is refused here)
        names = _names(self.uri_template)
        for name in self.complete:
            if name not in names:
                raise fail("complete", f"{name!r} is no variable of {self.uri_template!r}")

    def listing(self) -> dict[str, Any]:
        out = {
            "uriTemplate": self.uri_template,
            "name": self.name or self.uri_template,
            "mimeType": self.mime_type,
        }
        return _described(out, self.title, self.description)

    def match(self, uri: str) -> dict[str, str] | None:
        """The template's variables in ``uri``, or None when it does not match."""
        found = _pattern(self.uri_template).fullmatch(uri)
        if found is None:
            return None
        return {name: found[_group(name)] for name in _names(self.uri_template)}

    def contents(self, uri: str, variables: Mapping[str, str]) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": uri, "mimeType": self.mime_type}
        if self.blob is not None:
            out["blob"] = self.blob
            return out
        filled = self.text
        for name, value in variables.items():
            filled = filled.replace("{" + name + "}", value)
        out["text"] = filled
        return out

    def to_data(self) -> dict[str, Any]:
        data = record_data(self)
        if "complete" in data:
            data["complete"] = {k: list(v) for k, v in self.complete.items()}
        return {"uri_template": self.uri_template, **data}


_EXPRESSION = re.compile(r"\{(\+?)([A-Za-z_][\w.]*)\}")


@functools.lru_cache(maxsize=256)
def _pattern(uri_template: str) -> re.Pattern[str]:
    """The regular expression that matches the URIs of ``uri_template`` (Rule 1)."""
    out, end = [], 0
    for found in _EXPRESSION.finditer(uri_template):
        out.append(re.escape(uri_template[end : found.start()]))
        any_ = ".+" if found.group(1) else "[^/?#]+"
        out.append(f"(?P<{_group(found.group(2))}>{any_})")
        end = found.end()
    out.append(re.escape(uri_template[end:]))
    try:
        return re.compile("".join(out))
    except re.error as exc:  # a variable named twice
        raise fail("uri_template", f"{uri_template!r} is no URI template: {exc}") from None


def _names(uri_template: str) -> tuple[str, ...]:
    """The variables of ``uri_template`` as written (``{a.b}``: ``a.b``)."""
    return tuple(found.group(2) for found in _EXPRESSION.finditer(uri_template))


def _group(name: str) -> str:
    """A variable's group in the pattern (a group name has no dots: RFC 6570's do)."""
    return name.replace(".", "_")


def resource(
    uri: str,
    text: str = "",
    *,
    blob: str | bytes | None = None,
    name: str = "",
    mime_type: str = "text/plain",
    title: str = "",
    description: str = "",
) -> Resource:
    """A resource at ``uri`` whose contents are ``text``, or ``blob`` (bytes, or base64
    text: a binary resource)."""
    return Resource(
        uri, text, name, mime_type, None if blob is None else as_base64(blob), title, description
    )


def template(
    uri_template: str,
    text: str = "",
    *,
    blob: str | bytes | None = None,
    name: str = "",
    mime_type: str = "text/plain",
    title: str = "",
    description: str = "",
    complete: Mapping[str, Sequence[str]] | None = None,
) -> ResourceTemplate:
    """A resource template: each URI matching ``uri_template`` reads as ``text`` with its
    ``{variables}`` filled in (or as ``blob``); ``complete`` offers values per variable."""
    return ResourceTemplate(
        uri_template,
        text,
        name,
        mime_type,
        None if blob is None else as_base64(blob),
        title,
        description,
        dict(complete or {}),
    )
