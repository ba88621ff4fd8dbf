"""``check --profile ag-ui`` against its referee, ``@ag-ui/client`` 1.0 (HttpAgent reading
the same bytes; scripts/agui/verify.mjs): on seeded streams, every stream the client accepts
has no violation, and every stream it rejects has one.  A few hundred here (a few seconds);
scripts/agui_differential.py runs 10,000 and more (docs/agent-protocols.md has its figure)."""

from __future__ import annotations

from typing import Any

import pytest

from mockhttp.contract._agui_schema import EVENT_SCHEMAS
from tests.contract.test_agui import ACCEPTED, BROKEN, body
from tests.helpers.agui_differential import (
    compare,
    frame,
    ours,
    reference,
    reference_missing,
    sequences,
)

needs_reference = pytest.mark.skipif(
    reference_missing() is not None, reason=str(reference_missing())
)
STRICT_ONLY = {"ag-ui.one-run", "ag-ui.run-ids", "ag-ui.run-ended", "ag-ui.tool-result"}


def test_the_sequences_are_seeded() -> None:
    """The same seed makes the same bytes; another seed other bytes."""
    assert list(sequences(5, 20)) == list(sequences(5, 20))
    assert list(sequences(5, 20)) != list(sequences(6, 20))


def test_the_sequences_cover_every_event_type_and_shape() -> None:
    """Valid streams use every event type the reference knows; the labels show several
    runs a stream, RUN_ERROR first and after RUN_FINISHED, and the mutations."""
    cases = list(sequences(2026, 400))
    sent = {line[15:].split('"', 1)[0] for c in cases for line in c.body.split("\n\n")}
    assert set(EVENT_SCHEMAS) <= sent
    labels = " ".join(c.label for c in cases)
    reused = 0  # a message id that opens in two runs of one stream
    for case in cases:
        runs = case.body.split('"type":"RUN_STARTED"')[1:]
        opened = [set(_starts(run)) for run in runs]
        reused += any(a & b for i, a in enumerate(opened) for b in opened[i + 1 :])
    assert reused >= 5, reused
    for shape in (
        "3 run(s)",
        "error-first",
        "error-after-finished",
        "error-open",
        "cut",
        "dropped",
        "doubled",
        "snake",
        "null on",
        "patch op",
        "subagent tag",
    ):
        assert shape in labels, shape  # fmt: skip


def _starts(text: str) -> list[str]:
    """The message ids of the TEXT_MESSAGE_START events in ``text``."""
    marker = '"type":"TEXT_MESSAGE_START","messageId":"'
    return [part.split('"', 1)[0] for part in text.split(marker)[1:]]


def test_frames_as_the_encoder_does() -> None:
    assert frame([{"type": "RUN_ERROR", "message": "é"}, b"x"]) == (
        'data: {"type":"RUN_ERROR","message":"é"}\n\ndata: x\n\n'
    )


@needs_reference
def test_the_profile_agrees_with_the_reference() -> None:
    """0 violations on what the client accepts; a violation on all it rejects."""
    tally = compare(list(sequences(2026, 300)))
    assert [(c.label, found) for c, found in tally.flagged_accepted] == []
    assert [(c.label, why) for c, why in tally.missed_rejected] == []
    assert tally.accepted > 100, tally
    assert tally.rejected > 50, tally
    assert set(EVENT_SCHEMAS) <= set(tally.types)  # every type in an accepted stream


@needs_reference
def test_the_hand_made_tables_are_the_references() -> None:
    """What tests/contract/test_agui.py says the client accepts, it accepts; what it says
    the client rejects (a violation of a rule within the reference), it rejects."""
    accepted = [frame(events) for events, _ in ACCEPTED.values()]
    broken = [
        (body(events).decode(), rule)
        for events, rule, _ in BROKEN
        if rule not in STRICT_ONLY and rule not in ("ag-ui.tool-args", "ag-ui.run-error")
    ]
    verdicts = reference(accepted + [b for b, _ in broken])
    assert [v for v in verdicts[: len(accepted)] if not v["accepted"]] == []
    rejected: list[Any] = verdicts[len(accepted) :]
    assert [(rule, v) for (_, rule), v in zip(broken, rejected, strict=True) if v["accepted"]] == []
    assert all(ours(b) for b, _ in broken)
