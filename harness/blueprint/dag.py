"""The proof DAG: what is proved, what is ready to work on, and in which order.

Vertices are nodes and context declarations (``Decl.node_key``: the label of a node, the Lean
name of context). Declarations sharing a label are the *parts* of one node (LeanArchitect
README, "Multiple Lean declarations"): its dependencies are their union, it is complete only
when every part is. Informal nodes (LaTeX environments in a `blueprint_comment`) are vertices
with no Lean: never proved, never work, and no obstacle to what rests on them. An edge
``a -> b`` means *b rests on a*; its ``kinds`` attribute says whether a is used by b's
statement, its proof, or both. Prose `\\cref`/`\\ref` are links (:mod:`.links`), not edges.

- *proved*: every part's body is complete and everything it rests on is proved (transitively;
  a node on a cycle is never proved).
- *dynamic leaf*: an unproved node with an incomplete body whose dependencies are all proved —
  the work that can start now.
- *priority*: the length of the longest chain of unproved work from the node to a target,
  counting nodes whose body still needs a proof (critical-path scheduling).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import networkx as nx

from harness.blueprint.deps import DeclDeps, Resolver, collect, prose_labels
from harness.blueprint.links import Link, link_warnings, node_links
from harness.blueprint.model import Blueprint, Decl, Finding, InformalNode, gc_paused


@dataclass(slots=True)
class Analysis:
    blueprint: Blueprint
    graph: nx.DiGraph
    deps: dict[str, DeclDeps]  # per vertex: the union over its parts
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
    warnings: list[Finding] = field(default_factory=list)  # said, but exit 0
    links: dict[str, list[Link]] = field(default_factory=dict)  # prose references, per vertex
    # per declaration key: the declaration keys its text uses (statement and proof)
    decl_deps: dict[str, set[str]] = field(default_factory=dict)
    # cycles made only through a shared label (no cycle among the declarations): a warning
    label_cycles: list[list[str]] = field(default_factory=list)
    label_blocks: dict[str, int] = field(default_factory=dict)  # vertex -> its component
    reach: dict[str, frozenset[str]] = field(default_factory=dict)  # node_uses' memo

    def __post_init__(self) -> None:
        self.leaf_set = set(self.leaves)

    def decl(self, key: str) -> Decl:
        """The vertex's primary part (its first declaration in this file, else its first)."""
        return self.graph.nodes[key]["decl"]

    def parts(self, key: str) -> list[Decl]:
        """Every declaration of the vertex: several when a label is shared (one node)."""
        return self.graph.nodes[key]["parts"]

    def is_external(self, key: str) -> bool:
        """Declared in an imported blueprint file, not in this one."""
        return bool(self.graph.nodes[key].get("external"))

    def is_informal(self, key: str) -> bool:
        """An informal-only node (a LaTeX environment in a `blueprint_comment`): no Lean."""
        return isinstance(self.graph.nodes[key]["decl"], InformalNode)

    def complete(self, key: str) -> bool:
        return _complete(self.graph, key)

    def state(self, key: str) -> str:
        """proved | ready (a dynamic leaf) | waiting (complete body, unproved deps) | open
        | informal (no Lean: never proved, never work)"""
        if key in self.proved:
            return "proved"
        if key in self.leaf_set:
            return "ready"
        if self.is_informal(key):
            return "informal"
        if self.complete(key):
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


def _complete(g: nx.DiGraph, key: str) -> bool:
    """Every part's body is complete (an informal node has none)."""
    return all(p.status.is_complete for p in g.nodes[key]["parts"])


def _vertices(bp: Blueprint, imports: list[Blueprint], findings: list[Finding],
              warnings: list[Finding], whole: bool = False
              ) -> tuple[nx.DiGraph, dict[str, int], list[str]]:
    """One vertex per label (its declarations are the parts) or context declaration, and one
    per informal node; imported vertices are *external* unless this file adds a part (or the
    analysis is ``whole``: the project-wide DAG, where every file is own)."""
    g = nx.DiGraph()
    order: dict[str, int] = {}
    own: list[str] = []
    files = [*imports, bp]
    for fi, b in enumerate(files):
        is_own = whole or b is bp
        if whole and b is not bp:
            findings.extend(b.findings)
            warnings.extend(b.warnings)
        for d in [*b.decls, *b.informal]:
            # file order (informal nodes sit inside their comment), files in import order
            i = (fi - len(imports)) * 10**12 + d.span.start
            v = d.node_key
            if v not in g:
                g.add_node(v, decl=d, parts=[d], external=not is_own, file=b.display_path)
                order[v] = i
                if is_own:
                    own.append(v)
                continue
            node = g.nodes[v]
            first = node["decl"]
            informal = isinstance(d, InformalNode) or isinstance(first, InformalNode)
            if informal or not (d.is_node and first.is_node):
                if informal and isinstance(d, InformalNode) != isinstance(first, InformalNode):
                    if is_own:
                        warnings.append(Finding(
                            "label-collision", f"label `{v}` names both a Lean declaration and "
                            "an informal node of a `blueprint_comment`: the Lean one is the node",
                            bp.display_path, d.pos, v))
                    if isinstance(first, InformalNode):  # the Lean declaration is the node
                        node.update(decl=d, parts=[d])
                elif is_own and node.get("external"):
                    findings.append(Finding(
                        "duplicate-label", f"`{v}` is also declared in an imported file",
                        bp.display_path, d.pos, d.label))
                continue  # a duplicate Lean name: the parser reported it; keep the first
            node["parts"].append(d)  # a shared label: one more part of the node
            if is_own and node.get("external"):  # this file adds a part: the node is ours too
                node.update(decl=d, external=False)
                order[v] = i
                own.append(v)
    return g, order, own


def _edges(g: nx.DiGraph, bp: Blueprint, imports: list[Blueprint], order: dict[str, int],
           findings: list[Finding], whole: bool = False,
           visible: Callable[[Blueprint, Blueprint], bool] | None = None,
           adjust: Callable[[dict[str, DeclDeps]], None] | None = None,
           decl_deps: dict[str, set[str]] | None = None) -> dict[str, DeclDeps]:
    """Dependencies of every vertex, the union over its parts (``adjust``: rewritten, e.g. to
    LeanArchitect's own answer); edges dep -> user with kinds. ``decl_deps`` receives each
    declaration's own uses (declaration keys)."""
    resolver = Resolver(*imports, bp, visible=visible)
    vertex_of: dict[str, str] = {}
    for b in [*imports, bp]:
        for d in b.decls:
            vertex_of.setdefault(d.key, d.node_key)
    deps: dict[str, DeclDeps] = {}
    for b in [*imports, bp]:
        got, found = collect(b, b.masked_text(), resolver)
        if whole or b is bp:
            findings.extend(found)
        if decl_deps is not None:
            for k, dd in got.items():
                decl_deps[k] = dd.statement | dd.proof
        for d in [*b.decls, *b.informal]:
            v = d.node_key
            if v not in g or not any(p is d for p in g.nodes[v]["parts"]):
                continue
            dd = deps.setdefault(v, DeclDeps())
            part = got.get(d.key) if not isinstance(d, InformalNode) else None
            if part is not None:
                dd.statement |= {vertex_of.get(t, t) for t in part.statement}
                if d.has_proof:
                    dd.proof |= {vertex_of.get(t, t) for t in part.proof}
                else:  # no proof part: every use is a statement use, `uses` exclusions last
                    extra = {vertex_of.get(t, t) for t in part.proof}
                    dd.statement |= extra - _excluded(resolver, d, vertex_of)
            _label_uses(g, d, dd)
    if adjust is not None:
        adjust(deps)
    for key, dd in deps.items():
        for src in sorted(dd.statement | dd.proof, key=lambda k: order.get(k, 0)):
            if src not in g or src == key:
                continue
            kinds = set()
            if src in dd.statement:
                kinds.add("statement")
            if src in dd.proof:
                kinds.add("proof")
            g.add_edge(src, key, kinds=frozenset(kinds))
    return deps


def _excluded(r: Resolver, d: Decl, vertex_of: dict[str, str]) -> set[str]:
    """The vertices `uses := [-x, -"l"]` excludes."""
    out: set[str] = set()
    for item in d.blueprint.uses if d.blueprint else []:
        if item.startswith("-"):
            body = item[1:]
            hit = (r.by_label.get(body[len("label:"):]) if body.startswith("label:")
                   else r.resolve(body, d))
            if hit is not None:
                out.add(vertex_of.get(hit.key, hit.key))
    return out


def _label_uses(g: nx.DiGraph, d, dd: DeclDeps) -> None:
    """`uses := ["label"]` naming an informal node, and an informal node's own `\\uses`:
    labels pass through unchecked in LeanArchitect, so they may name nodes without Lean."""
    b = d.blueprint
    if b is None:
        return
    informal = isinstance(d, InformalNode)
    for items, target in ((b.uses, dd.statement), (b.proof_uses, dd.proof)):
        for item in items:
            if not item.startswith("label:"):
                continue
            v = item[len("label:"):]
            if v in g and (informal or isinstance(g.nodes[v]["decl"], InformalNode)):
                target.add(v)


def _analyse(bp: Blueprint, imports: list[Blueprint], whole: bool = False,
             visible: Callable[[Blueprint, Blueprint], bool] | None = None,
             adjust: Callable[[dict[str, DeclDeps]], None] | None = None) -> Analysis:
    findings = list(bp.findings)
    warnings = list(bp.warnings)
    g, order, own = _vertices(bp, imports, findings, warnings, whole)
    decl_deps: dict[str, set[str]] = {}
    deps = _edges(g, bp, imports, order, findings, whole, visible, adjust, decl_deps)
    informal = {k for k in g if isinstance(g.nodes[k]["decl"], InformalNode)}

    cond, members, gens = _units(g, order)
    cycles: list[list[str]] = []
    label_cycles: list[list[str]] = []
    on_cycle: set[str] = set()
    block_of: dict[str, int] = {}  # a vertex on a shared-label-only cycle -> its component
    for c, keys in members.items():
        if len(keys) > 1:
            groups = {p.group for k in keys for p in g.nodes[k]["parts"]}
            if len(groups) == 1 and None not in groups:
                continue  # one `mutual` block: mutual recursion, not a dependency cycle
            cyc = [u for u, _ in nx.find_cycle(g.subgraph(keys), source=keys[0])]
            shared = any(len(g.nodes[k]["parts"]) > 1 for k in keys)
            if shared and not _decl_cycle(g, keys, decl_deps):
                label_cycles.append(cyc)  # only the shared label closes it: Lean has none
                block_of.update((k, len(label_cycles)) for k in keys)
                continue
            cycles.append(cyc)
            on_cycle.update(keys)
    cycles = [c for c in cycles if any(not g.nodes[k]["external"] for k in c)]
    label_cycles = [c for c in label_cycles if any(not g.nodes[k]["external"] for k in c)]
    for cyc in sorted(label_cycles, key=lambda c: order[c[0]]):
        d0 = g.nodes[cyc[0]]["decl"]
        warnings.append(Finding(
            "label-cycle", "dependency cycle through a shared label only (its declarations "
            f"form no cycle; Lean decides): {' -> '.join(cyc + [cyc[0]])}",
            g.nodes[cyc[0]].get("file", bp.display_path), d0.pos, d0.label))
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
        # a mutual block is proved as a whole: all members complete, everything outside proved;
        # an informal dependency has no Lean to wait for
        if all(k not in on_cycle and _complete(g, k)
               and all(p in proved or p in inside or p in informal for p in g.predecessors(k))
               for k in keys):
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
            work = 0 if key in informal or _complete(g, key) else 1
            priority[key] = best + work
        if any(k not in proved for k in members[c]):
            top = max(priority[k] for k in members[c])
            for key in members[c]:
                if key not in proved:
                    priority[key] = top

    own_set = set(own)
    def same_block(a: str, b: str) -> bool:
        if a in block_of and block_of[a] == block_of.get(b):
            return True  # one shared-label component: worked on like a mutual block
        ga = g.nodes[a]["decl"].group
        return ga is not None and ga == g.nodes[b]["decl"].group

    leaves = [k for k in own
              if k not in proved and k not in on_cycle and k not in informal
              and not _complete(g, k)
              and all(p in proved or p in informal or same_block(p, k)
                      for p in g.predecessors(k))]
    leaves.sort(key=lambda k: (-priority[k], order[k]))

    layers = [layer for layer in (
        sorted((k for c in gen for k in members[c] if k in own_set), key=order.__getitem__)
        for gen in gens) if layer]
    targets = [k for k in own if g.out_degree(k) == 0 and g.nodes[k]["decl"].is_node
               and k not in informal]
    critical = _critical_path(g, leaves, priority, proved | informal, order)  # work only
    known = set(g).union(prose_labels(*imports, bp),
                         *({*b.prose_labels, *b.tagged} for b in (bp, *imports)))
    links = {k: ls for k in own if (ls := node_links(g.nodes[k]["decl"], known))}
    a = Analysis(bp, g, deps, proved, leaves, priority, layers, targets, critical, cycles,
                 findings, own=own, warnings=warnings, links=links, decl_deps=decl_deps,
                 label_cycles=label_cycles, label_blocks=block_of)
    texts = {b.display_path: b for b in (*imports, bp)}  # where each link is written
    files = {k: g.nodes[k].get("file") or bp.display_path for k in own}
    a.warnings.extend(link_warnings(
        ((k, g.nodes[k]["decl"], files[k], texts.get(files[k])) for k in own), links))
    for k, n in ((k, g.nodes[k]["decl"]) for k in own):  # an informal node's `\\uses`
        if isinstance(n, InformalNode):  # pass through LeanArchitect unchecked
            for item in [*n.blueprint.uses, *n.blueprint.proof_uses]:
                if item.removeprefix("label:") not in known:
                    a.warnings.append(Finding(
                        "dangling-use", f"\\uses{{{item.removeprefix('label:')}}} in informal "
                        f"node `{k}` names no node or label", bp.display_path, n.pos, k))
    return a


def _decl_cycle(g: nx.DiGraph, keys: list[str], decl_deps: dict[str, set[str]]) -> bool:
    """Do the declarations of these vertices form a cycle by themselves? A cycle among
    vertices that vanishes between declarations is made by a shared label alone (an `abbrev`
    and a `theorem` carrying one label, something between them): Lean sees no cycle."""
    h = nx.DiGraph()
    part_keys = {p.key for k in keys for p in g.nodes[k]["parts"]
                 if not isinstance(p, InformalNode)}
    if len(part_keys) < sum(len(g.nodes[k]["parts"]) for k in keys):
        return True  # an informal node is on it: only labels, no declarations to look through
    h.add_nodes_from(part_keys)
    for k in part_keys:
        h.add_edges_from((u, k) for u in decl_deps.get(k, ()) if u in part_keys and u != k)
    groups: dict[str, int | None] = {p.key: p.group for k in keys for p in g.nodes[k]["parts"]}
    for comp in nx.strongly_connected_components(h):
        if len(comp) > 1 and not (len({groups[x] for x in comp}) == 1
                                  and groups[next(iter(comp))] is not None):
            return True
    return False


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

