"""``variants()``, loading recordings, and the pytest helper."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from .._core._errors import ConfigError
from .._core._mock import Mock
from .._mockfile._load import load
from ._mocks import replying
from ._recording import Recording
from ._variants import VARIANTS, applies

if TYPE_CHECKING:
    import pytest

__all__ = ["each_variant", "recordings", "variants"]

T = TypeVar("T", Mock, Recording)
Source = Mock | Recording | str | os.PathLike[str]


@overload
def variants(recording: Recording) -> dict[str, Recording]: ...
@overload
def variants(recording: Mock) -> dict[str, Mock]: ...
def variants(recording: Recording | Mock) -> dict[str, Recording] | dict[str, Mock]:
    """Every variant that applies to a recorded event stream, by name, in a fixed order.

    ``recording`` is a :class:`Recording` (then so are the variants) or a mock that
    replies with one (then each variant is that mock with the variant's reply).  A variant
    that cannot apply (``split_utf8`` on ASCII text, ``empty_choices`` on a stream that is
    not OpenAI chunks, ...) is left out.

    Raises:
        ConfigError: not a recording, or not an event stream.
    """
    if isinstance(recording, Mock):
        reply = _recording_of(recording)
        return {
            name: replying(recording, variant, name) for name, variant in variants(reply).items()
        }
    if not isinstance(recording, Recording):
        raise ConfigError(
            f"variants() recording={recording!r} must be a Recording or a mock replying with one"
        )
    base = recording.with_(variant=None)
    found = {}
    for name in VARIANTS:
        why = applies(base, name)
        if why is not None and "event stream" in why:
            raise ConfigError(f"variants() {why}")
        if why is None:
            found[name] = base.with_(variant=name)
    return found


def _recording_of(mock: Mock) -> Recording:
    if not isinstance(mock.response, Recording):
        raise ConfigError(f"mock {mock.describe()} does not reply with a recording")
    return mock.response


def recordings(*paths: str | os.PathLike[str]) -> list[Mock]:
    """The mocks in mock files (as :func:`mockhttp.load`) that reply with an event-stream
    recording."""
    return [
        m for m in load(*paths) if isinstance(m.response, Recording) and m.response.is_event_stream
    ]


def each_variant(source: Source, argname: str = "variant") -> pytest.MarkDecorator:
    """A ``pytest.mark.parametrize`` over the recording and each of its variants: one test
    id per variant (``original``, ``comment``, ``crlf``, ...).

    ``source`` is a mock, a :class:`Recording`, or a mock file or directory (its first
    event-stream recording).  The test gets a mock (or recording) to serve; its reply's
    ``variant`` says which one it is (None for the original)::

        @mockhttp.record.each_variant("tests/data/chat.yaml")
        def test_parser(mockhttp_server, variant):
            mockhttp_server.mock(variant)
            ...
    """
    import pytest

    base: Any
    if isinstance(source, Mock | Recording):
        base = source
    else:
        found = recordings(Path(source))
        if not found:
            raise ConfigError(f"{source}: no event-stream recording in it")
        base = found[0]
    params = [pytest.param(base, id="original")]
    params += [pytest.param(v, id=name) for name, v in variants(base).items()]
    return pytest.mark.parametrize(argname, params)
