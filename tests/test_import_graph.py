"""The import graph of lpparse, read statically (every ``import`` and ``from ... import`` of every module,
inside functions and ``TYPE_CHECKING`` blocks too): no cycle between modules, and every import runs down the
layers of docs/architecture.md (a module imports its own layer or those below). ``tests/test_layers.py``
checks the same order at run time, in fresh interpreters."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]

#: the layers, lowest first (docs/architecture.md): top-level module or package of lpparse -> layer
LAYERS: list[tuple[str, set[str]]] = [
    (
        "foundations",
        {"lpparse", "_masks", "io", "part_values", "table", "trees", "triples", "corpus", "evaluation", "workers"},
    ),
    ("solvers and oracles", {"lp", "dp", "oracles", "hypergraph"}),
    ("column generation", {"colgen"}),
    ("scoring", {"scoring", "decoder"}),
    ("relaxations", {"formulations", "bp", "pruning", "dd"}),
    ("part families", {"families"}),
    ("LP front end", {"ppc", "scores", "options"}),
    ("proofs", {"proofs"}),
    ("exact search", {"exact", "proofcheck"}),
    ("applications", {"decoding", "family_kit", "inspect", "batch", "parsing", "training", "experiments"}),
    ("commands", {"commands", "cli", "entry", "__main__"}),
]
LEVEL = {name: level for level, (_, names) in enumerate(LAYERS) for name in names}


def module_name(path: Path) -> str:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return name.removesuffix(".__init__")


def import_graph() -> nx.DiGraph:
    """Module -> the lpparse modules it imports (``from a.b import c`` names the module a.b.c when c is one)."""
    modules = {module_name(p): p for p in (ROOT / "lpparse").rglob("*.py")}
    graph = nx.DiGraph()
    for name, path in modules.items():
        graph.add_node(name)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("lpparse"):
                targets = [
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                    for a in node.names
                ]  # type: ignore[misc]
            elif isinstance(node, ast.ImportFrom) and node.level:
                pytest.fail(f"{path}: relative import (write lpparse.…)")
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("lpparse")]
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target != name:
                    graph.add_edge(name, target)
    return graph


def layer(module: str) -> int:
    top = module.split(".")[1] if "." in module else module
    if top not in LEVEL:
        pytest.fail(f"{module} is in no layer: add it to LAYERS and docs/architecture.md")
    return LEVEL[top]


GRAPH = import_graph()


def test_no_import_cycles() -> None:
    cycles = sorted(nx.simple_cycles(GRAPH), key=len)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c + c[:1]) for c in cycles[:5])


def test_imports_run_down_the_layers() -> None:
    upward = [
        f"{a} ({LAYERS[layer(a)][0]}) imports {b} ({LAYERS[layer(b)][0]})"
        for a, b in GRAPH.edges
        if layer(b) > layer(a)
    ]
    assert not upward, "\n".join(upward)


def test_the_engine_knows_no_parsing() -> None:
    """Column generation imports the LP layer and itself only; score files no decoder or search."""
    engine = {b for a, b in GRAPH.edges if a.startswith("lpparse.colgen")}
    assert {b.split(".")[1] for b in engine} <= {"lp", "colgen", "part_values"}, sorted(engine)
    scores = {b.split(".")[1] for a, b in GRAPH.edges if a == "lpparse.scores"}
    assert not scores & {"ppc", "exact", "proofs", "decoding", "parsing"}, sorted(scores)


def test_the_check_sees_a_cycle_and_an_upward_import() -> None:
    """The two checks fail on a graph that breaks them."""
    graph = nx.DiGraph([("lpparse.lp.program", "lpparse.lp.views"), ("lpparse.lp.views", "lpparse.lp.program")])
    assert list(nx.simple_cycles(graph))
    assert layer("lpparse.lp.program") < layer("lpparse.exact.search")
    assert ("lpparse.colgen.engine", "lpparse.lp.program") in GRAPH.edges  # the probe reads real imports
