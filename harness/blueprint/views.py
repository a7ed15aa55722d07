"""Views of an analysis beyond the scheduler's DAG: LeanArchitect's node-level dependencies
(:func:`node_uses`) and Lean's word over the text's cycles (:func:`lean_proved`)."""

from __future__ import annotations

from collections.abc import Callable

import networkx as nx

from harness.blueprint.dag import Analysis
from harness.blueprint.model import InformalNode


def lean_proved(a: Analysis, clean: set[str]) -> None:
    """Lean's word over the text's cycles: a vertex on or below a text cycle whose every part
    (all in this file) Lean certified clean (an axiom report without `sorryAx`) is proved, the
    cycle notwithstanding (Lean accepted the declarations, so the cycle is the text's); what
    rests on it is re-derived. A declared `uses` of an unproved node (no cycle) still holds a
    node open: that is the author's claim about the mathematics, not a text artefact."""
    g = a.graph
    held: set[str] = {k for c in a.cycles for k in c}  # what only a text cycle holds back
    for k in list(held):
        held |= nx.descendants(g, k)
    ours = {id(d) for d in a.blueprint.decls}  # Lean certified this file's declarations
    add = {k for k in held if not a.is_informal(k) and k not in a.proved
           and all(id(p) in ours and p.key in clean for p in a.parts(k))}
    if not add:
        return
    a.proved |= add
    try:
        order = list(nx.topological_sort(g))
    except nx.NetworkXUnfeasible:
        order = list(g)
    for k in order:
        if k not in a.proved and not a.is_informal(k) and a.complete(k) and all(
                p in a.proved or a.is_informal(p) for p in g.predecessors(k)):
            a.proved.add(k)
    a.leaves = [k for k in a.leaves if k not in a.proved]
    a.leaf_set = set(a.leaves)
    a.critical_path = [k for k in a.critical_path if k not in a.proved]


def node_uses(a: Analysis, key: str) -> tuple[list[str], list[str]]:
    """LeanArchitect's view of a node's dependencies: the nodes (blueprint or informal) its
    statement and its proof reach, passing through ordinary declarations (Architect's
    `CollectUsed.collect` records a blueprint constant and stops there, and walks on through
    any other constant's type and value). Never the node itself (a shared label's parts).
    Returns (statement uses, proof-only uses), each in the graph's vertex order."""
    g = a.graph
    memo = a.reach
    stmt: set[str] = set()
    proof: set[str] = set()
    for u, _, kinds in g.in_edges(key, data="kinds"):
        if u == key:
            continue
        got = {u} if _is_node(a, u) else _reach(a, u, memo)
        if kinds and "statement" in kinds:
            stmt |= got
        else:
            proof |= got
    stmt.discard(key)
    proof -= stmt | {key}
    return sorted(stmt, key=_pos(a)), sorted(proof, key=_pos(a))


def _is_node(a: Analysis, k: str) -> bool:
    d = a.graph.nodes[k]["decl"]
    return isinstance(d, InformalNode) or d.is_node


def _pos(a: Analysis) -> Callable[[str], tuple[str, int]]:
    g = a.graph
    return lambda k: (str(g.nodes[k].get("file") or ""), g.nodes[k]["decl"].span.start)


def _reach(a: Analysis, start: str, memo: dict[str, frozenset[str]]) -> frozenset[str]:
    """The nodes an ordinary declaration reaches through ordinary declarations (memoised;
    iterative: the context chains of a large project are deep)."""
    if start in memo:
        return memo[start]
    g = a.graph
    out: set[str] = set()
    seen = {start}
    stack = [start]
    while stack:
        v = stack.pop()
        for u in g.predecessors(v):
            if u in seen:
                continue
            seen.add(u)
            if _is_node(a, u):
                out.add(u)
            elif u in memo:
                out |= memo[u]
            else:
                stack.append(u)
    memo[start] = frozenset(out)
    return memo[start]
