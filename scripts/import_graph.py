"""Print the import graph between mockhttp's packages, layer by layer.

    python scripts/import_graph.py          # the graph, then any circle or climb; exit 1 if any
    python scripts/import_graph.py --dot    # the same graph for Graphviz

Every import counts (module level, under TYPE_CHECKING, inside functions).  The layers and
the reading of the source are those of ``tests/test_layers.py`` (``tests/helpers/layers.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.helpers import layers


def main(argv: list[str]) -> int:
    graph = layers.package_graph()
    if "--dot" in argv:
        print("digraph mockhttp {")
        for source in sorted(graph):
            for target in sorted(graph[source]):
                print(f'  "{source}" -> "{target}";')
        print("}")
        return 0
    for layer, _ in layers.LAYERS:
        members = sorted(p for p in graph if layers.layer_of(p) == layer)
        print(f"{layer}:")
        for package in members:
            targets = ", ".join(sorted(graph[package])) or "(nothing of mockhttp)"
            print(f"  {package} -> {targets}")
    circles = layers.cycles(graph) + layers.cycles(layers.module_graph())
    climbs = layers.against_layers()
    impure = layers.impure_core()
    for circle in circles:
        print("circle: " + " -> ".join(circle))
    for climb in climbs:
        print("against the layers: " + climb)
    for found in impure:
        print("I/O in the core: " + found)
    if not (circles or climbs or impure):
        print("no circles, no import against the layers, the core does no I/O")
    return 1 if circles or climbs or impure else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
