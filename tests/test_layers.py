"""The folder is the architecture: imports go down the layers, the core is pure, no circles.

The layers, lowest first, are listed in ``tests/helpers/layers.py`` (``LAYERS``);
``scripts/import_graph.py`` prints the graph between packages that these tests check.
"""

from __future__ import annotations

import subprocess
import sys

from tests.helpers import layers


def test_the_graph_is_read() -> None:
    """The reader sees the imports (so an empty graph cannot pass the tests below)."""
    found = {(i.source, i.target) for i in layers.internal_imports()}
    assert ("mockhttp._server._server", "mockhttp._core._reply") in found
    assert ("mockhttp._core._mock", "mockhttp._core._request") in found
    assert ("mockhttp._cli._main", "mockhttp._server._server") in found


def test_every_module_has_a_layer() -> None:
    assert [m for m in layers.modules() if layers.layer_of(m) is None] == []


def test_no_import_climbs_the_layers() -> None:
    """_core ← _mockfile ← _server ← contract ← llm ← record ← face ← _cli."""
    assert layers.against_layers() == []


def test_a_climb_is_seen() -> None:
    """The check fails on an import against the order (it is not vacuous)."""
    climb = layers.Import("mockhttp._core._mock", "mockhttp._server._server", 1)
    assert layers.climbs(climb) == (
        "mockhttp._core._mock:1 imports mockhttp._server._server (core -> server)"
    )
    assert layers.climbs(layers.Import("mockhttp.llm._base", "mockhttp.contract", 1)) is None


def test_the_core_does_no_io() -> None:
    """No socket, thread, clock or file in ``mockhttp._core`` (and the public namespaces
    over it): it takes data and gives data or bytes."""
    assert layers.impure_core() == []


def test_no_circles_between_modules_or_packages() -> None:
    assert layers.cycles(layers.module_graph()) == []
    assert layers.cycles(layers.package_graph()) == []


def test_a_circle_is_seen() -> None:
    assert layers.cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


def test_the_mock_does_not_import_the_mock_file_writer() -> None:
    assert "mockhttp._mockfile._dump" not in layers.module_graph()["mockhttp._core._mock"]


def test_design_md_shows_the_graph_the_script_prints() -> None:
    """docs/design.md's graph is what ``scripts/import_graph.py`` prints (exit 0: no circle,
    no climb, no I/O in the core)."""
    script = layers.ROOT / "scripts" / "import_graph.py"
    printed = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False
    )
    assert printed.returncode == 0, printed.stdout + printed.stderr
    design = (layers.ROOT / "docs" / "design.md").read_text()
    block = design.split("<!-- import-graph: printed by scripts/import_graph.py -->\n```\n")[1]
    assert block.split("```")[0] == printed.stdout
