"""The ids of LLM replies (``chatcmpl-…``, ``msg_…``, tool call ids) stay the same bytes
from release to release: a recording or a test that pins one keeps matching."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from mockhttp.llm._text import make_id

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def reference_id(prefix: str, salt: str, call: int, length: int) -> str:
    """The id as first written: the SHA-512's base-62 digits, lowest first, one a step."""
    digest = int.from_bytes(hashlib.sha512(f"{salt}\0{call}".encode()).digest(), "big")
    chars = []
    for _ in range(length):
        digest, rem = divmod(digest, len(ALPHABET))
        chars.append(ALPHABET[rem])
    return prefix + "".join(chars)


@given(
    salt=st.text(max_size=30),
    call=st.integers(min_value=0, max_value=10**12),
    length=st.integers(min_value=0, max_value=80),
)
def test_an_id_is_the_same_as_first_written(salt: str, call: int, length: int) -> None:
    assert make_id("p-", salt, call, length) == reference_id("p-", salt, call, length)


def test_an_id_is_pinned() -> None:
    """One id, pinned as text (a change of the scheme, here or in the reference, shows)."""
    assert make_id("chatcmpl-", "seed", 1) == "chatcmpl-FyncG8bOXSOw6PeDHgxWS8y6"
    assert make_id("chatcmpl-", "seed", 2) != make_id("chatcmpl-", "seed", 1)
