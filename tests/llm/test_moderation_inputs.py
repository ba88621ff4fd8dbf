"""llm/_moderation.py, in more depth: the input shapes table, whole-word flagging per
category, scores and applied input types, the option checks, pure."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mockhttp import ConfigError, llm
from mockhttp.llm._moderation import CATEGORIES, _inputs
from tests.helpers.llm_build import body_of, request

PATH = "/v1/moderations"
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}


def moderated(value: Any, **flag: list[str]) -> Any:
    return llm.moderation(flag=flag).build(request({"input": value}, PATH))


@pytest.mark.parametrize(
    ("value", "parts"),
    [
        ("hi", [[("hi", "text")]]),
        (["a", "b"], [[("a", "text")], [("b", "text")]]),
        ([{"type": "text", "text": "a"}, IMAGE], [[("a", "text"), ("", "image")]]),
        ([IMAGE], [[("", "image")]]),
        ([], None),
        (None, None),
        (3, None),
        (["a", 3], None),
        ([{"type": "text", "text": 3}], None),
        ([{"type": "audio"}], None),
        (["a", {"type": "text", "text": "b"}], None),
    ],
)
def test_input_shapes_entry_by_entry(value: Any, parts: Any) -> None:
    assert _inputs(value) == parts


def test_whole_words_in_any_case_and_only_their_category() -> None:
    results = body_of(
        moderated(["They KILL it", "skills", "kill-switch", "hi"], violence=["kill"])
    )["results"]
    assert [r["flagged"] for r in results] == [True, False, True, False]
    first = results[0]
    assert [c for c, on in first["categories"].items() if on] == ["violence"]
    assert first["category_scores"]["violence"] == 0.98
    assert {v for c, v in first["category_scores"].items() if c != "violence"} == {0.0001}
    assert list(first["categories"]) == list(CATEGORIES)


def test_words_of_several_categories_and_phrases() -> None:
    reply = llm.moderation(flag={"hate": ["awful people"], "illicit": ["lockpick", "heist"]})
    [result] = body_of(
        reply.build(request({"input": "Awful  people? no: awful people plan a HEIST"}, PATH))
    )["results"]
    assert {c for c, on in result["categories"].items() if on} == {"hate", "illicit"}


def test_a_multimodal_input_is_one_result_and_images_are_never_flagged() -> None:
    [result] = body_of(moderated([{"type": "text", "text": "kill"}, IMAGE], violence=["kill"]))[
        "results"
    ]
    assert result["flagged"] is True
    assert result["category_applied_input_types"]["violence"] == ["image", "text"]
    [image_only] = body_of(moderated([IMAGE], violence=["kill"]))["results"]
    assert image_only["flagged"] is False
    assert image_only["category_applied_input_types"]["hate"] == ["image"]


def test_the_model_is_echoed_and_the_id_follows_the_input() -> None:
    reply = llm.moderation()
    one = body_of(reply.build(request({"input": "a", "model": "text-moderation-stable"}, PATH)))
    assert one["model"] == "text-moderation-stable"
    assert body_of(reply.build(request({"input": "a"}, PATH)))["model"] == "omni-moderation-latest"
    assert one["id"].startswith("modr-")
    assert body_of(reply.build(request({"input": "a"}, PATH)))["id"] == one["id"]
    assert body_of(reply.build(request({"input": "b"}, PATH)))["id"] != one["id"]


@pytest.mark.parametrize("body", [b"", b"[1]", b'{"input": []}', b'{"input": 5}', b'"text"'])
def test_bad_bodies_are_a_400(body: bytes) -> None:
    answer = llm.moderation().build(request(body, PATH))
    assert answer.status_code == 400
    assert body_of(answer)["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        (["violence"], "flag=.* must map categories to lists of words"),
        ({"violent": ["x"]}, "flag category 'violent' is not one of: harassment"),
        ({"violence": "kill"}, r"flag\['violence'\]='kill' must be a list of words"),
        ({"violence": ["kill", ""]}, "must be a list of words"),
        ({"violence": [3]}, "must be a list of words"),
    ],
)
def test_bad_flags_are_refused(flag: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        llm.moderation(flag=flag)


@given(
    st.lists(
        st.text(st.characters(codec="ascii", categories=["L"]), min_size=1, max_size=6),
        min_size=1,
        max_size=4,
    )
)
def test_a_text_made_of_a_flagged_word_is_flagged_and_others_are_not(words: list[str]) -> None:
    reply = llm.moderation(flag={"harassment": [words[0]]})
    results = body_of(
        reply.build(request({"input": [f"say {words[0]} now", "nothing here 123"]}, PATH))
    )["results"]
    assert results[0]["categories"]["harassment"] is True
    assert results[1]["flagged"] is (words[0].lower() in ("nothing", "here"))
