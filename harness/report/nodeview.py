"""The blueprint as LeanArchitect shows it: blueprint nodes only.

The analysis (:mod:`harness.blueprint.dag`) has a vertex for every declaration, ordinary ones
included, because they carry dependencies and must be proved too. What a person counts, lists and
ranks are the *nodes* (``@[blueprint]`` declarations and informal nodes): LeanArchitect's graph
has only those, a use through an ordinary declaration becoming a node-to-node edge. A real
project has many more ordinary declarations than nodes (one we saw: 978 nodes, 8 008 ordinary).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx

from harness.blueprint.dag import Analysis


@dataclass
class NodeView:
    graph: nx.DiGraph  # node -> node, projected through ordinary declarations
    own: list[str]  # this analysis's nodes, file order
    ordinary: list[str]  # this analysis's ordinary declarations, file order
    priority: dict[str, int] = field(default_factory=dict)  # unfinished nodes to a target
    leaves: list[str] = field(default_factory=list)  # ready nodes, priority then file order
    layers: list[list[str]] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    critical_path: list[str] = field(default_factory=list)


def is_node(a: Analysis, key: str) -> bool:
    return bool(a.decl(key).is_node)


def project(a: Analysis) -> nx.DiGraph:
    """Node-to-node edges: ``u -> v`` when ``v`` rests on ``u`` directly or through a chain of
    ordinary declarations (each ordinary vertex's nearest node ancestors, memoised)."""
    g = a.graph
    nodes = [k for k in g if is_node(a, k)]
    done: dict[str, frozenset[str]] = {}

    def ancestors(x: str) -> frozenset[str]:
        """The nodes reached from ordinary ``x`` going up through ordinary vertices only."""
        if x in done:
            return done[x]
        out: set[str] = set()
        stack, seen = [x], {x}
        while stack:  # iterative: chains of ordinary declarations can be long
            y = stack.pop()
            for p in g.predecessors(y):
                if is_node(a, p):
                    out.add(p)
                elif p in done:
                    out |= done[p]
                elif p not in seen:
                    seen.add(p)
                    stack.append(p)
        done[x] = frozenset(out)
        return done[x]

    h = nx.DiGraph()
    h.add_nodes_from(nodes)
    for v in nodes:
        for p in g.predecessors(v):
            for u in ([p] if is_node(a, p) else ancestors(p)):
                if u != v:
                    h.add_edge(u, v)
    return h


def node_view(a: Analysis) -> NodeView:
    h = project(a)
    own = [k for k in a.own if is_node(a, k)]
    ordinary = [k for k in a.own if not is_node(a, k)]
    order = {k: i for i, k in enumerate(a.own)}
    view = NodeView(h, own, ordinary)
    cond = nx.condensation(h)
    members = {c: list(cond.nodes[c]["members"]) for c in cond}
    prio: dict[str, int] = {}
    for c in reversed(list(nx.topological_sort(cond))):
        best = max((prio[members[s][0]] for s in cond.successors(c)), default=0)
        work = any(k not in a.proved and not a.is_informal(k) and not a.complete(k)
                   for k in members[c])
        for k in members[c]:
            prio[k] = 0 if k in a.proved else best + int(work)
    view.priority = prio
    own_set = set(own)
    view.leaves = sorted((k for k in a.leaves if k in own_set),
                         key=lambda k: (-prio[k], order.get(k, 0)))
    view.layers = [layer for layer in (
        sorted((k for c in gen for k in members[c] if k in own_set), key=order.__getitem__)
        for gen in nx.topological_generations(cond)) if layer]
    view.targets = [k for k in own if h.out_degree(k) == 0 and not a.is_informal(k)]
    if view.leaves:
        path, seen = [view.leaves[0]], {view.leaves[0]}
        while True:
            nxt = [s for s in h.successors(path[-1])
                   if s not in a.proved and s not in seen and not a.is_informal(s)]
            if not nxt:
                break
            path.append(max(nxt, key=lambda s: (prio[s], -order.get(s, 0))))
            seen.add(path[-1])
        view.critical_path = path
    return view
