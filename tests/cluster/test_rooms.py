"""The rooms around a run: the orchestrator never imports the Ray room (harness/cluster) nor the
assembly, the preflight or the commands — not even inside a function; config, preflight and the
services do not import one another; the Lean room never imports the gate above it; and no
import cycle exists anywhere in `harness/`, lazy imports (inside functions, under
TYPE_CHECKING, "module:function" strings) included."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[2]

# room -> what it must never import (a module, or a package and everything under it)
FORBIDDEN = {
    "harness.orchestrator": ("harness.cluster", "harness.assemble", "harness.preflight",
                             "harness.commands", "harness.cli"),
    "harness.cluster": ("harness.assemble", "harness.preflight", "harness.commands",
                        "harness.cli"),
    "harness.preflight": ("harness.orchestrator", "harness.cluster", "harness.assemble",
                          "harness.commands"),
    "harness.agents.config": ("harness.orchestrator", "harness.cluster", "harness.assemble",
                              "harness.preflight"),
    # the gate judges Lean's answers; Lean's room only gives them (the gate's `.olean` audit
    # reaches lean.verdict.check_file as an argument, lean.compile.Auditor)
    "harness.lean": ("harness.gate", "harness.orchestrator", "harness.agents"),
}
ROOMS = ("harness.orchestrator", "harness.cluster", "harness.assemble", "harness.preflight",
         "harness.agents.config")


def modules(pkg_root: Path) -> dict[str, Path]:
    out = {}
    for p in (pkg_root / "harness").rglob("*.py"):
        parts = list(p.relative_to(pkg_root).with_suffix("").parts)
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def imports_of(path: Path, mods: dict[str, Path]) -> set[str]:
    """Every `harness` module ``path`` imports anywhere (functions, TYPE_CHECKING included),
    and the `harness.…` modules named in strings (importlib, a worker's "module:function")."""
    out: set[str] = set()
    for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
            # `from pkg import sub` imports the submodule; `from pkg import name`, pkg
            out.update(f"{n.module}.{a.name}" if f"{n.module}.{a.name}" in mods else n.module
                       for a in n.names)
        elif isinstance(n, ast.Import):
            out.update(a.name for a in n.names)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) \
                and n.value.startswith("harness."):
            name = n.value.split(":", 1)[0]
            if name in mods:
                out.add(name)
    return {m for m in out if m.startswith("harness")}


def within(name: str, room: str) -> bool:
    return name == room or name.startswith(room + ".")


def violations(pkg_root: Path = ROOT) -> list[str]:
    mods = modules(pkg_root)
    bad = []
    for m, p in sorted(mods.items()):
        for room, banned in FORBIDDEN.items():
            if within(m, room):
                bad += [f"{m} imports {t}" for t in sorted(imports_of(p, mods))
                        if any(within(t, b) for b in banned)]
    return bad


def full_graph(pkg_root: Path = ROOT) -> nx.DiGraph:
    mods = modules(pkg_root)
    g = nx.DiGraph()
    g.add_nodes_from(mods)
    for m, p in mods.items():
        g.add_edges_from((m, t) for t in imports_of(p, mods) if t in mods and t != m)
    return g


def room_cycles(g: nx.DiGraph) -> list[list[str]]:
    return [c for c in nx.simple_cycles(g)
            if any(within(m, r) for m in c for r in ROOMS)]


def test_the_orchestrator_imports_neither_the_cluster_nor_the_assembly() -> None:
    assert (ROOT / "harness" / "cluster" / "executor.py").is_file()
    assert not list((ROOT / "harness" / "orchestrator").glob("ray_*.py"))
    assert violations() == []


def test_no_import_cycle_through_the_run_rooms_lazy_imports_included() -> None:
    g = full_graph()
    assert g.has_edge("harness.assemble", "harness.orchestrator.run")  # the walk sees them
    assert g.has_edge("harness.cluster.worker", "harness.orchestrator.attempts")
    assert room_cycles(g) == []


def test_the_checks_see_a_lazy_import_back_and_a_cycle(tmp_path: Path) -> None:
    pkg = tmp_path / "harness"
    for d in ("orchestrator", "cluster"):
        (pkg / d).mkdir(parents=True)
        (pkg / d / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "orchestrator" / "services.py").write_text(
        "def f():\n    from harness.cluster.setup import go\n    return go\n")
    (pkg / "cluster" / "setup.py").write_text(
        "from harness.orchestrator import services\ngo = 1\n"
        "SPEC = 'harness.orchestrator.services:f'\n")
    assert violations(tmp_path) == ["harness.orchestrator.services imports "
                                    "harness.cluster.setup"]
    assert room_cycles(full_graph(tmp_path)) != []


def test_no_import_cycle_anywhere_lazy_imports_included() -> None:
    g = full_graph()
    assert g.has_edge("harness.report.layout", "harness.report.igraph_child")  # a "-m" string
    cycles = sorted((c for c in nx.simple_cycles(g)), key=len)
    assert not cycles, "import cycles (lazy imports included):\n" + "\n".join(
        " -> ".join([*c, c[0]]) for c in cycles[:20])


def test_the_cycle_check_sees_a_lazy_cycle_outside_the_rooms(tmp_path: Path) -> None:
    pkg = tmp_path / "harness" / "report"
    pkg.mkdir(parents=True)
    (tmp_path / "harness" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "layout.py").write_text("def f():\n    from harness.report.layered import g\n")
    (pkg / "layered.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                    "    from harness.report.layout import f\n")
    assert list(nx.simple_cycles(full_graph(tmp_path))) != []
    assert room_cycles(full_graph(tmp_path)) == []  # the room check alone missed it


def test_assembling_and_the_cluster_room_do_not_import_ray() -> None:
    """Ray is imported only when a run asks for it (the local executor needs none)."""
    code = ("import sys; import harness.assemble, harness.cluster, harness.cluster.setup, "
            "harness.cluster.worker; print('ray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
