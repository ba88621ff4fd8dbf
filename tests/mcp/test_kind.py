"""The reply kind (``_kind``): its options checked, its test-side methods."""

from __future__ import annotations

import pytest

from mockhttp import ConfigError, mcp


@pytest.mark.parametrize(
    ("option", "value"),
    [("page_size", 0), ("max_sessions", -1), ("max_batch", True), ("allow_hosts", "x")],
)
def test_bad_server_options(option: str, value: object) -> None:
    with pytest.raises(ConfigError, match=option):
        mcp.McpServer(**{option: value})  # type: ignore[arg-type]


def test_test_side_methods_refuse_bad_arguments() -> None:
    kind = mcp.McpServer()
    with pytest.raises(ConfigError, match="must be a notification"):
        kind.notify("tools/list")
    with pytest.raises(ConfigError, match="what='files' must be one of tools, resources, prompts"):
        kind.list_changed("files")
    with pytest.raises(ConfigError, match="must be a resource's URI"):
        kind.update("")


def test_a_stateful_only_mock_refuses_the_stateless_revision() -> None:
    kind = mcp.McpServer(protocol_versions=mcp.STATEFUL)
    assert kind.protocol_versions == mcp.STATEFUL
    assert (*mcp.STATEFUL, "2026-07-28") == mcp.REVISIONS
