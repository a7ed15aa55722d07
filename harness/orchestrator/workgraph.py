"""Stage 2's work: which declarations need a proof, and in which order (the scheduler's graph).

Pure: an :class:`Analysis` in, a networkx graph out. Used by the single-file and the project
stage 2, the merge benchmark and the project run's data.
"""

from __future__ import annotations

import networkx as nx

from harness.blueprint.dag import Analysis
from harness.blueprint.model import Blueprint, BodyStatus

OPEN_STATUSES = (BodyStatus.SORRY, BodyStatus.SORRY_USING, BodyStatus.ADMIT)


def work_graph(a: Analysis, files: list[Blueprint] | None = None
               ) -> tuple[nx.DiGraph, list[str], list[str], dict[str, str]]:
    """The scheduler's view: vertices are the *open parts* that need a proof — one job per open
    declaration, keyed by ``Decl.key`` (the label; a part's Lean name when several declarations
    share a label, so edits, the gate and the lock address exactly one body). u -> v when v's
    node rests on u's directly or through declarations that are complete but not yet proved.
    Returns (graph, open parts, file order, parts blocked from the start with a reason).
    ``files``: whose open parts are work (default: the analysed file; a project run: all)."""
    g = a.graph
    on_cycle = {k for c in a.cycles for k in c}
    work: list[str] = []
    blocked: dict[str, str] = {}
    units: dict[str, list[str]] = {}  # DAG vertex -> its open parts
    node_of: dict[str, str] = {}
    ours = {id(d) for b in (files if files is not None else [a.blueprint]) for d in b.decls}
    for k in a.own:  # this file's vertices in file order (not its imports')
        if k in a.proved or a.is_informal(k) or not a.decl(k).is_node:
            continue
        for d in a.parts(k):
            if d.status not in OPEN_STATUSES or id(d) not in ours:
                continue  # complete, or a part in an imported file (not this file's work)
            units.setdefault(k, []).append(d.key)
            node_of[d.key] = k
            if k in on_cycle:
                blocked[d.key] = "on a dependency cycle"
            elif not d.kind.is_proof:
                blocked[d.key] = "a definition whose body is `sorry`: stage 1 must supply it"
            else:
                work.append(d.key)
    h = nx.DiGraph()
    h.add_nodes_from(work)
    for v in work:  # walk back through complete-but-unproved declarations
        stack, seen = list(g.predecessors(node_of[v])), set()
        while stack:
            u = stack.pop()
            if u in seen or u in a.proved:
                continue
            seen.add(u)
            mine = units.get(u, [])
            stuck = [x for x in mine if x in blocked]
            if stuck:  # the node can never be proved in this run
                blocked.setdefault(v, f"depends on blocked {stuck[0]}")
            elif mine:  # not within one shared-label cycle: no order between its parts
                same = a.label_blocks.get(u)
                if same is None or same != a.label_blocks.get(node_of[v]):
                    h.add_edges_from((x, v) for x in mine if x != v)
            else:
                stack.extend(g.predecessors(u))
    return h, work, work, blocked


def unproved_imports(a: Analysis, key: str) -> list[str] | None:
    """The unproved nodes of imported files that ``key`` (complete, not proved) rests on, when
    every missing proof below it is in an imported file; None when one is in this file."""
    stack, seen, ext = list(a.graph.predecessors(key)), set(), []
    while stack:
        u = stack.pop()
        if u in seen or u in a.proved:
            continue
        seen.add(u)
        open_ = any(p.status in OPEN_STATUSES for p in a.parts(u))
        if a.is_external(u):
            if open_:
                ext.append(u)
            stack.extend(a.graph.predecessors(u))
        elif open_:
            return None  # this file still has work below it
        else:
            stack.extend(a.graph.predecessors(u))
    return sorted(ext)
