"""The package has no import cycle: module-level imports between `harness` modules form a DAG
(imports inside functions and under `TYPE_CHECKING` are how a lazy edge is spelled, and are not
counted)."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

PKG = Path(__file__).resolve().parents[2] / "harness"


def module_name(p: Path) -> str:
    parts = list(p.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path = PKG) -> nx.DiGraph:
    mods = {module_name(p): p for p in root.rglob("*.py")}
    g = nx.DiGraph()
    g.add_nodes_from(mods)
    for m, p in mods.items():
        for n in ast.parse(p.read_text(encoding="utf-8")).body:  # module level only
            if isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
                # `from pkg import sub` imports the submodule; `from pkg import name`, pkg
                targets = [f"{n.module}.{a.name}" if f"{n.module}.{a.name}" in mods
                           else n.module for a in n.names]
            elif isinstance(n, ast.Import):
                targets = [a.name for a in n.names]
            else:
                continue
            g.add_edges_from((m, t) for t in targets if t in mods and t != m)
    return g


def test_no_module_level_import_cycle() -> None:
    g = import_graph()
    assert g.number_of_edges() > 50  # the walk sees the package
    cycles = list(nx.simple_cycles(g))
    assert cycles == [], f"import cycles: {cycles[:5]}"


def test_the_check_sees_a_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "harness"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from harness.b import x\n")
    (pkg / "b.py").write_text("from harness import a\nx = 1\n")
    global PKG
    old, PKG = PKG, pkg
    try:
        assert list(nx.simple_cycles(import_graph(pkg))) != []
    finally:
        PKG = old
