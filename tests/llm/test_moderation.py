"""``llm.moderation`` built on requests directly: input shapes, whole words in any case,
the result's categories and scores, and bad input answered in OpenAI's error shape."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mockhttp import ConfigError, llm
from mockhttp._core._request import Headers, Request
from mockhttp.llm._moderation import CATEGORIES


def answer(kind: llm.Moderation, body: Any) -> tuple[int, Any]:
    request = Request("POST", "/v1/moderations", Headers(), json.dumps(body).encode())
    reply = kind.build(request)
    return reply.status_code, json.loads(reply.content)


def test_whole_words_in_any_case() -> None:
    kind = llm.moderation(flag={"violence": ["attack"], "hate": ["grr"]})
    _, out = answer(kind, {"input": ["ATTACK now", "attacked", "grr attack"]})
    flagged = [[c for c, v in r["categories"].items() if v] for r in out["results"]]
    assert flagged == [["violence"], [], ["hate", "violence"]]
    assert out["results"][1]["flagged"] is False
    assert list(out["results"][0]["categories"]) == list(CATEGORIES)


def test_multimodal_input_is_one_result() -> None:
    kind = llm.moderation(flag={"violence": ["attack"]})
    parts = [{"type": "text", "text": "an attack"}, {"type": "image_url", "image_url": {}}]
    _, out = answer(kind, {"input": parts, "model": "omni-moderation-2024-09-26"})
    (result,) = out["results"]
    assert result["flagged"] is True
    assert result["category_applied_input_types"]["violence"] == ["image", "text"]
    assert out["model"] == "omni-moderation-2024-09-26"


def test_the_id_is_stable_for_the_same_input() -> None:
    kind = llm.moderation()
    assert answer(kind, {"input": "x"})[1]["id"] == answer(kind, {"input": "x"})[1]["id"]


@pytest.mark.parametrize("body", [{"input": 5}, {"input": []}, [1], {"input": [{"type": "x"}]}])
def test_bad_input_is_a_400(body: Any) -> None:
    code, out = answer(llm.moderation(), body)
    assert code == 400
    assert out["error"]["type"] == "invalid_request_error"


def test_to_args_round_trips() -> None:
    kind = llm.moderation(flag={"hate": ["grr"]})
    assert llm.moderation(**kind.to_args()) == kind
    assert llm.moderation().to_args() == {}


def test_an_unknown_category_names_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="is not one of: harassment"):
        llm.moderation(flag={"violent": ["x"]})
