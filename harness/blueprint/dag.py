"""The proof DAG: what is proved, what is ready to work on, and in which order.

Vertices are all declarations (``Decl.key``: the label of a node, the Lean name of context).
An edge ``a -> b`` means *b rests on a*; its ``kinds`` attribute says whether a is used by b's
statement, its proof, or both.

- *proved*: the body is complete and everything it rests on is proved (transitively; a node on a
  cycle is never proved).
- *dynamic leaf*: an unproved node with an incomplete body whose dependencies are all proved —
  the work that can start now.
- *priority*: the length of the longest chain of unproved work from the node to a target,
  counting nodes whose body still needs a proof (critical-path scheduling).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import networkx as nx

from harness.blueprint.deps import DeclDeps, Resolver, collect
from harness.blueprint.model import Blueprint, Decl, Finding, gc_paused


@dataclass(slots=True)
class Analysis:
    blueprint: Blueprint
    graph: nx.DiGraph
    deps: dict[str, DeclDeps]
    proved: set[str]
    leaves: list[str]  # highest priority first, then file order
    priority: dict[str, int]
    layers: list[list[str]]
    targets: list[str]
    critical_path: list[str]
    cycles: list[list[str]]
    findings: list[Finding] = field(default_factory=list)
    own: list[str] = field(default_factory=list)  # this file's keys, in file order
    leaf_set: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.leaf_set = set(self.leaves)

    def decl(self, key: str) -> Decl:
        return self.graph.nodes[key]["decl"]

    def is_external(self, key: str) -> bool:
        """Declared in an imported blueprint file, not in this one."""
        return bool(self.graph.nodes[key].get("external"))

    def state(self, key: str) -> str:
        """proved | ready (a dynamic leaf) | waiting (complete body, unproved deps) | open"""
        if key in self.proved:
            return "proved"
        if key in self.leaf_set:
            return "ready"
        if self.decl(key).status.is_complete:
            return "waiting"
        return "open"


def analyse(bp: Blueprint, imports: Sequence[Blueprint] = (), *, whole: bool = False,
            visible: Callable[[Blueprint, Blueprint], bool] | None = None,
            adjust: Callable[[dict[str, DeclDeps]], None] | None = None) -> Analysis:
    """Analyse ``bp``; ``imports`` are the workspace blueprints it imports (see
    :func:`harness.blueprint.imports.load_imports`). Their declarations become *external*
    vertices: they resolve references and count for *proved*, but are not this file's work.

    ``whole``: the project-wide DAG (:mod:`harness.blueprint.project`): every file's
    declarations are this analysis's own, with their findings. ``visible(a, b)``: file ``a``
    imports file ``b`` (Lean names resolve only through imports; labels everywhere). ``adjust``
    rewrites the inferred dependencies before the graph is built (LeanArchitect's own answer:
    :func:`harness.blueprint.exact.adjuster`)."""
    with gc_paused():
        return _analyse(bp, list(imports), whole, visible, adjust)


def _analyse(bp: Blueprint, imports: list[Blueprint], whole: bool = False,
             visible: Callable[[Blueprint, Blueprint], bool] | None = None,
             adjust: Callable[[dict[str, DeclDeps]], None] | None = None) -> Analysis:
    resolver = Resolver(*imports, bp, visible=visible)
    deps: dict[str, DeclDeps] = {}
    ext_findings: list[Finding] = []
    for ext in imports:
        ext_deps, found = collect(ext, ext.masked_text(), resolver)
        deps.update(ext_deps)
        if whole:
            ext_findings += list(ext.findings) + found
    own_deps, dep_findings = collect(bp, bp.masked_text(), resolver)
    deps.update(own_deps)
    if adjust is not None:
        adjust(deps)
    g = nx.DiGraph()
    order: dict[str, int] = {}
    own: list[str] = []
    for ext in imports:
        for d in ext.decls:
            if d.key not in g:
                g.add_node(d.key, decl=d, external=not whole, file=ext.display_path)
                order[d.key] = -1_000_000 + len(order)
                if whole:
                    own.append(d.key)
            elif whole and d.blueprint is not None:
                ext_findings.append(Finding(
                    "duplicate-label", f"`{d.key}` is also declared in "
                    f"{g.nodes[d.key].get('file')}", ext.display_path, d.pos, d.label))
    for i, d in enumerate(bp.decls):
        if d.key in g:  # duplicate name/label: reported by the parser; keep the first
            if g.nodes[d.key].get("external"):
                dep_findings.append(Finding(
                    "duplicate-label", f"`{d.key}` is also declared in an imported file",
                    bp.display_path, d.pos, d.label))
            continue
        g.add_node(d.key, decl=d, external=False)
        order[d.key] = i
        own.append(d.key)
    for key, dd in deps.items():
        if key not in g:
            continue
        for src in sorted(dd.statement | dd.proof, key=lambda k: order.get(k, 0)):
            if src not in g or src == key:
                continue
            kinds = set()
            if src in dd.statement:
                kinds.add("statement")
            if src in dd.proof:
                kinds.add("proof")
            g.add_edge(src, key, kinds=frozenset(kinds))

    findings = ext_findings + list(bp.findings) + dep_findings
    cond, members, gens = _units(g, order)
    cycles: list[list[str]] = []
    on_cycle: set[str] = set()
    for c, keys in members.items():
        if len(keys) > 1:
            groups = {g.nodes[k]["decl"].group for k in keys}
            if len(groups) == 1 and None not in groups:
                continue  # one `mutual` block: mutual recursion, not a dependency cycle
            cyc = [u for u, _ in nx.find_cycle(g.subgraph(keys), source=keys[0])]
            cycles.append(cyc)
            on_cycle.update(keys)
    cycles = [c for c in cycles if any(not g.nodes[k]["external"] for k in c)]
    for cyc in sorted(cycles, key=lambda c: order[c[0]]):
        d0: Decl = g.nodes[cyc[0]]["decl"]
        path_text = " -> ".join(cyc + [cyc[0]])
        findings.append(Finding("cycle", f"dependency cycle: {path_text}",
                                g.nodes[cyc[0]].get("file", bp.display_path), d0.pos, d0.label))

    topo = [c for gen in gens for c in gen]
    proved: set[str] = set()
    for c in topo:
        keys = members[c]
        inside = set(keys)
        # a mutual block is proved as a whole: all members complete, everything outside proved
        if all(k not in on_cycle and g.nodes[k]["decl"].status.is_complete
               and all(p in proved or p in inside for p in g.predecessors(k)) for k in keys):
            proved.update(keys)

    priority: dict[str, int] = {}
    for c in reversed(topo):
        best = 0
        for s in cond.successors(c):
            best = max(best, priority[members[s][0]])
        for key in members[c]:
            if key in proved:
                priority[key] = 0
                continue
            work = 0 if g.nodes[key]["decl"].status.is_complete else 1
            priority[key] = best + work
        if any(k not in proved for k in members[c]):
            top = max(priority[k] for k in members[c])
            for key in members[c]:
                if key not in proved:
                    priority[key] = top

    own_set = set(own)
    def same_block(a: str, b: str) -> bool:
        ga = g.nodes[a]["decl"].group
        return ga is not None and ga == g.nodes[b]["decl"].group

    leaves = [k for k in own
              if k not in proved and k not in on_cycle
              and not g.nodes[k]["decl"].status.is_complete
              and all(p in proved or same_block(p, k) for p in g.predecessors(k))]
    leaves.sort(key=lambda k: (-priority[k], order[k]))

    layers = [layer for layer in (
        sorted((k for c in gen for k in members[c] if k in own_set), key=order.__getitem__)
        for gen in gens) if layer]
    targets = [k for k in own if g.out_degree(k) == 0 and g.nodes[k]["decl"].is_node]
    critical = _critical_path(g, leaves, priority, proved, order)
    return Analysis(bp, g, deps, proved, leaves, priority, layers, targets, critical, cycles,
                    findings, own=own)


def _units(g: nx.DiGraph, order: dict[str, int]
           ) -> tuple[nx.DiGraph, dict, list[list]]:
    """The graph of strongly connected components, their members and topological generations.
    An acyclic graph (the normal case) is its own condensation: skip the SCC computation."""
    try:
        gens = [list(gen) for gen in nx.topological_generations(g)]
        return g, {k: [k] for k in g.nodes}, gens
    except nx.NetworkXUnfeasible:
        cond = nx.condensation(g)
        members = {c: sorted(cond.nodes[c]["members"], key=order.__getitem__)
                   for c in cond.nodes}
        return cond, members, [list(gen) for gen in nx.topological_generations(cond)]


def _critical_path(g: nx.DiGraph, leaves: list[str], priority: dict[str, int],
                   proved: set[str], order: dict[str, int]) -> list[str]:
    if not leaves:
        return []
    path = [leaves[0]]
    seen = {leaves[0]}
    while True:
        nxt = [s for s in g.successors(path[-1]) if s not in proved and s not in seen]
        if not nxt:
            return path
        best = max(nxt, key=lambda s: (priority[s], -order[s]))
        path.append(best)
        seen.add(best)
