"""What the agent refuses in params, pure."""

from __future__ import annotations

import pytest

from mockhttp.a2a._validate import Invalid, history_length, message, task_id, whole


def test_a_1_0_message_in_the_neutral_form() -> None:
    sent = {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}, {"data": {}}]}
    assert message(sent, "1.0") == {
        "messageId": "m",
        "role": "user",
        "parts": [{"text": "hi"}, {"data": {}}],
    }


def test_a_0_3_message_loses_its_kinds() -> None:
    part = {"kind": "text", "text": "hi"}
    sent = {"kind": "message", "messageId": "m", "role": "user", "parts": [part]}
    assert message(sent, "0.3")["parts"] == [{"text": "hi"}]


@pytest.mark.parametrize(
    ("value", "version", "why"),
    [
        (None, "1.0", "must be a message object"),
        ({"role": "ROLE_USER", "parts": [{"text": "x"}]}, "1.0", "messageId is required"),
        ({"messageId": "", "role": "ROLE_USER", "parts": [{"text": "x"}]}, "1.0", "messageId"),
        ({"messageId": "m", "role": "user", "parts": [{"text": "x"}]}, "1.0", "role must be"),
        ({"messageId": "m", "role": "ROLE_UNSPECIFIED", "parts": [{"text": "x"}]}, "1.0", "role"),
        ({"messageId": "m", "role": "ROLE_USER", "parts": []}, "1.0", "at least one part"),
        ({"messageId": "m", "role": "ROLE_USER"}, "1.0", "at least one part"),
        ({"messageId": "m", "role": "ROLE_USER", "parts": ["x"]}, "1.0", "part object"),
        ({"messageId": "m", "role": "ROLE_USER", "parts": [{"text": 1}]}, "1.0", ".text must"),
        ({"messageId": "m", "role": "user", "parts": [{"text": "x"}]}, "0.3", "needs kind"),
        ({"messageId": "m", "role": "user", "parts": [{"kind": "file"}]}, "0.3", "needs kind"),
    ],
)
def test_messages_refused(value: object, version: str, why: str) -> None:
    with pytest.raises(Invalid, match=why):
        message(value, version)  # type: ignore[arg-type]


def test_numbers_and_ids() -> None:
    assert (whole(3, "n"), whole(3.0, "n")) == (3, 3)
    for bad in (True, 1.5, "3", None):
        with pytest.raises(Invalid, match="must be an integer"):
            whole(bad, "n")
    assert history_length({}) is None
    assert history_length(None) is None
    assert history_length({"historyLength": 0}) == 0
    with pytest.raises(Invalid, match="0 or more"):
        history_length({"historyLength": -1})
    assert task_id({"id": "task-1"}) == "task-1"
    for bad_id in ({"id": ""}, {"id": 3}, {}):
        with pytest.raises(Invalid, match="task id"):
            task_id(bad_id)
