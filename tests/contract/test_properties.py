"""Property tests for the contract rules: any stream is judged, none makes them raise."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mockhttp.contract import PROFILES, Transcript, check
from mockhttp.sse import Event, encode_event

_TEXT = st.text(st.characters(codec="utf-8"), max_size=20)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)

_CHUNKISH = st.fixed_dictionaries(
    {},
    optional={
        "id": st.text(max_size=3),
        "object": st.sampled_from(["chat.completion.chunk", "", 1]),
        "type": st.sampled_from(["message_start", "content_block_delta", "ping", "x", 3]),
        "index": _JSON,
        "choices": _JSON | st.lists(st.dictionaries(st.sampled_from(["index", "delta"]), _JSON)),
        "usage": _JSON,
        "delta": _JSON,
        "error": _JSON,
    },
)


@given(st.lists(st.none() | _JSON | _CHUNKISH | _TEXT, max_size=8), st.none() | _JSON)
def test_every_rule_copes_with_any_stream(payloads: list[object], request: object) -> None:
    """Contract checks never raise on arbitrary payloads, and name only known rules."""
    body = b"".join(encode_event(Event(data=p)) for p in payloads) + b"data: [DONE]\n\n"
    known = {rule.id for table in PROFILES.values() for rule in table}
    transcript = Transcript.from_body(body, request=request, buffered=request)
    for profile in PROFILES:
        for finding in check(transcript, profile):
            assert finding.rule in known
            assert finding.message
