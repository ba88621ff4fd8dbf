"""llm/_models.py: the models list, in the shape of the client that asks.

Pure: ``client_of`` is a rule table checked entry by entry; each shape (list and one
model) is validated by that provider's official SDK types (google-genai forbids unknown
keys; for openai and anthropic no key may be left over as an extra).  Then on a loopback
socket: the three SDKs list and retrieve models from one mock.
"""

from __future__ import annotations

from typing import Any

import anthropic
import openai
import pytest
from anthropic.types import ModelInfo
from google.genai import types
from openai.types import Model

import mockhttp
from mockhttp import ConfigError, llm
from mockhttp.llm._models import ModelsList, client_of
from mockhttp.llm._openai_chat import CREATED
from tests.helpers.llm_build import body_of, request, sdk_extras

MODELS = ["gpt-a", "claude-b", "gemini-c"]


def get(path: str, **headers: str) -> Any:
    return body_of(ModelsList(MODELS).build(request(b"", path, method="GET", **headers)))


@pytest.mark.parametrize(
    ("path", "headers", "client"),
    [
        ("/v1/models", {}, "openai"),
        ("/v1/models", {"authorization": "Bearer sk"}, "openai"),
        ("/v1/models", {"anthropic-version": "2023-06-01"}, "anthropic"),
        ("/v1/models", {"x-api-key": "k"}, "openai"),  # (Anthropic's key header alone says nothing)
        ("/v1/models", {"x-goog-api-key": "k"}, "gemini"),
        ("/v1/models?key=k", {}, "gemini"),
        ("/v1beta/models", {}, "gemini"),
        ("/v1beta/models", {"anthropic-version": "x"}, "anthropic"),  # the header first
        ("/v1/models/gpt-a", {}, "openai"),
    ],
)
def test_client_of_entry_by_entry(path: str, headers: dict[str, str], client: str) -> None:
    assert client_of(request(b"", path, method="GET", **headers)) == client


def test_models_are_checked() -> None:
    for bad in ("gpt-a", ["a", ""], ["a", 3]):
        with pytest.raises(ConfigError, match="must be a list of model ids"):
            ModelsList(bad)  # type: ignore[arg-type]
    assert ModelsList(["a"]).models == ("a",)


def test_the_file_form_names_only_models_that_differ() -> None:
    assert ModelsList().to_args() == {}
    assert ModelsList(MODELS).to_args() == {"models": MODELS}
    assert ModelsList(**ModelsList(MODELS).to_args()) == ModelsList(MODELS)


def test_openais_list_and_model() -> None:
    listing = get("/v1/models")
    assert listing["object"] == "list"
    assert [m["id"] for m in listing["data"]] == MODELS
    one = listing["data"][0]
    assert one == {"id": "gpt-a", "object": "model", "created": CREATED, "owned_by": "mockhttp"}
    assert sdk_extras(Model.model_validate(one)) == []
    assert get("/v1/models/anything-else") == {**one, "id": "anything-else"}


def test_anthropics_list_and_model() -> None:
    listing = get("/v1/models", **{"anthropic-version": "2023-06-01"})
    assert (listing["has_more"], listing["first_id"], listing["last_id"]) == (
        False,
        "gpt-a",
        "gemini-c",
    )
    assert [m["id"] for m in listing["data"]] == MODELS
    for entry in listing["data"]:
        assert sdk_extras(ModelInfo.model_validate(entry)) == []
    one = get("/v1/models/claude-x", **{"anthropic-version": "1"})
    assert one == {
        "type": "model",
        "id": "claude-x",
        "display_name": "claude-x",
        "created_at": "2026-01-01T00:00:00Z",
        "lifecycle": "active",
    }


def test_an_empty_anthropic_list_has_no_first_or_last_id() -> None:
    empty = ModelsList([]).build(
        request(b"", "/v1/models", method="GET", **{"anthropic-version": "1"})
    )
    assert body_of(empty) == {"data": [], "has_more": False, "first_id": None, "last_id": None}


def test_geminis_list_and_model() -> None:
    listing = get("/v1beta/models")
    assert [m["name"] for m in listing["models"]] == [f"models/{m}" for m in MODELS]
    # (google-genai maps the REST names to its own, supportedGenerationMethods to
    # supported_actions: its types do not take the REST JSON as is; the SDK test below
    # reads it through the SDK's own mapping)
    assert listing["models"][0] == {
        "name": "models/gpt-a",
        "version": "001",
        "displayName": "gpt-a",
        "description": "gpt-a (mockhttp)",
        "inputTokenLimit": 1048576,
        "outputTokenLimit": 65536,
        "supportedGenerationMethods": ["generateContent", "countTokens"],
    }
    one = get("/v1beta/models/gemini-z")
    assert (one["name"], one["displayName"], one["inputTokenLimit"]) == (
        "models/gemini-z",
        "gemini-z",
        1048576,
    )


def test_a_path_with_a_method_is_not_one_model() -> None:
    """``models/{m}:generateContent`` is not ``models/{m}``: the list is answered."""
    assert "models" in get("/v1beta/models/g:countTokens")


# -- on a loopback socket ------------------------------------------------------------------


def test_the_three_sdks_list_and_retrieve_from_one_mock(server: mockhttp.Server) -> None:
    from google import genai

    server.mock(
        mockhttp.get(mockhttp.match.regex(r"^/v1(beta)?/models(/[^/]+)?$")).reply(
            llm.models(MODELS)
        )
    )
    with openai.OpenAI(base_url=server.url + "/v1", api_key="sk", max_retries=0) as oai:
        assert [m.id for m in oai.models.list()] == MODELS
        assert oai.models.retrieve("gpt-z").id == "gpt-z"
    with anthropic.Anthropic(base_url=server.url, api_key="sk", max_retries=0) as ant:
        assert [m.id for m in ant.models.list()] == MODELS
        assert ant.models.retrieve("claude-z").display_name == "claude-z"
    options = types.HttpOptions(base_url=server.url, api_version="v1beta")
    with genai.Client(api_key="k", http_options=options) as goo:
        assert [m.name for m in goo.models.list()] == [f"models/{m}" for m in MODELS]
        model = goo.models.get(model="gemini-z")
    assert model.display_name == "gemini-z"
    assert model.supported_actions == ["generateContent", "countTokens"]
    assert (model.input_token_limit, model.output_token_limit) == (1048576, 65536)
