"""What the graph draws: the blueprint graph as LeanArchitect defines it, and module groups.

LeanArchitect's node dependencies are the blueprint nodes a declaration's constants reach,
passing *through* ordinary (non-blueprint) declarations and stopping at blueprint ones:
``Architect.CollectUsed.collect`` in hanwenzhu/LeanArchitect (`Architect/CollectUsed.lean`)
recurses into a non-blueprint constant's type and value and records a blueprint constant
without entering it. :func:`blueprint_edges` does the same on the text DAG: an edge u -> v
for every node u reached from node v through ordinary declarations only, of the kinds of v's
first step (v's *statement* uses a helper that uses u: a statement dependency).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from harness.blueprint.dag import Analysis

Edges = dict[tuple[str, str], set[str]]
CHAR_W, BOX_H = 7.0, 28.0  # as harness.report.graph draws labels


def is_blueprint(a: Analysis, key: str) -> bool:
    return a.decl(key).is_node or a.is_informal(key)


def declaration_edges(items: list[Analysis]) -> Edges:
    """Every direct edge into the files' own vertices (the `--declarations` view)."""
    edges: Edges = {}
    for a in items:
        for v in a.own:
            for u in a.graph.predecessors(v):
                edges.setdefault((u, v), set()).update(a.graph.edges[u, v]["kinds"])
    return edges


def blueprint_edges(items: list[Analysis]) -> tuple[Edges, set[tuple[str, str]]]:
    """Node-to-node edges into the files' own nodes, projected through ordinary declarations;
    and which of them exist only through such a declaration (no direct use)."""
    edges: Edges = {}
    direct: set[tuple[str, str]] = set()
    for a in items:
        memo: dict[str, frozenset[str]] = {}
        for v in a.own:
            if not is_blueprint(a, v):
                continue
            for u in a.graph.predecessors(v):
                kinds = a.graph.edges[u, v]["kinds"]
                if is_blueprint(a, u):
                    reached: Iterable[str] = (u,)
                    direct.add((u, v))
                else:
                    reached = _reach(a, u, memo)
                for w in reached:
                    if w != v:
                        edges.setdefault((w, v), set()).update(kinds)
    return edges, set(edges) - direct


def _reach(a: Analysis, start: str, memo: dict[str, frozenset[str]]) -> frozenset[str]:
    """The blueprint nodes an ordinary declaration reaches through ordinary declarations
    (iterative post-order with a memo: deep helper chains, no recursion limit; a cycle among
    helpers is cut where it closes)."""
    if start in memo:
        return memo[start]
    stack = [(start, iter(list(a.graph.predecessors(start))))]
    acc: dict[str, set[str]] = {start: set()}
    while stack:
        x, it = stack[-1]
        for p in it:
            if is_blueprint(a, p):
                acc[x].add(p)
            elif p in memo:
                acc[x] |= memo[p]
            elif p not in acc:  # not on the stack nor done: go down
                acc[p] = set()
                stack.append((p, iter(list(a.graph.predecessors(p)))))
                break
        else:
            stack.pop()
            memo[x] = frozenset(acc[x])
            if stack:
                acc[stack[-1][0]] |= memo[x]
    return memo[start]


def module_groups(nodes: dict[str, dict[str, Any]], edges: Edges,
                  clusters: dict[str, list[float]] | None, states: Iterable[str]
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, float] | None]:
    """Per module (the page's groups): its nodes, counts by state, and its box when laid
    out; per pair of modules the edges between them, drawn box to box when laid out. When laid
    out, also the *collapsed* view: the module graph alone, one small box per module
    (``collapsed``: [x, y, w, h]; edges ``dc``), laid out by the layered engine, and its size
    (the third value) — readable at the fitted scale where 1 000 nodes are not."""
    by: dict[str, list[str]] = {}
    for k, n in nodes.items():
        by.setdefault(n.get("module") or "", []).append(k)
    states = list(states)
    groups = []
    for name, keys in by.items():
        own = [nodes[k]["state"] for k in keys if not nodes[k]["external"]]
        groups.append({"name": name, "nodes": keys,
                       "counts": {s: own.count(s) for s in states},
                       "external": all(nodes[k]["external"] for k in keys),
                       "box": (clusters or {}).get(name)})
    pairs: dict[tuple[str, str], dict[str, Any]] = {}
    for (u, v), kinds in edges.items():
        mu, mv = nodes[u].get("module") or "", nodes[v].get("module") or ""
        if mu == mv:
            continue
        e = pairs.setdefault((mu, mv), {"source": mu, "target": mv, "count": 0, "kinds": set()})
        e["count"] += 1
        e["kinds"] |= kinds
    out = []
    for (mu, mv), e in pairs.items():
        e["kinds"] = sorted(e["kinds"])
        e["d"] = _box_to_box((clusters or {}).get(mu), (clusters or {}).get(mv))
        out.append(e)
    size = None
    if clusters is not None:
        size = _collapsed(groups, out)
    return groups, out, size


def _box_to_box(a, b) -> str | None:
    if not a or not b:
        return None
    return (f"M{round(a[0] + a[2] / 2, 1)},{round(a[1] + a[3], 1)} "
            f"L{round(b[0] + b[2] / 2, 1)},{round(b[1], 1)}")


def short_names(names: list[str]) -> dict[str, str]:
    """Module names without the dotted prefix every one of them shares (`Gen.Layer00.File003`
    -> `Layer00.File003` when all start `Gen.`): the map's boxes stay narrow."""
    parts = [n.split(".") for n in names if n]
    common = 0
    if len(parts) > 1:
        while all(len(p) > common + 1 and p[common] == parts[0][common] for p in parts):
            common += 1
    return {n: ".".join(n.split(".")[common:]) or n for n in names}


def _packed_rows(cx: list[tuple[float, float]], widths: list[float], gap: float
                 ) -> tuple[list[tuple[float, float]], float]:
    """Each row's boxes side by side in the layered order, the rows centred on one line: the
    map is as wide as its widest row (it scrolls down, like a page, never sideways)."""
    rows: dict[float, list[int]] = {}
    for i, (x, y) in enumerate(cx):
        rows.setdefault(y, []).append(i)
    span = {y: sum(widths[i] for i in ids) + gap * (len(ids) - 1) for y, ids in rows.items()}
    width = max(span.values(), default=0.0)
    out = list(cx)
    for y, ids in rows.items():
        left = (width - span[y]) / 2
        for i in sorted(ids, key=lambda i: cx[i][0]):
            out[i] = (left + widths[i] / 2, y)
            left += widths[i] + gap
    return out, width


def _collapsed(groups: list[dict[str, Any]], pairs: list[dict[str, Any]]) -> dict[str, float]:
    from harness.report.layered import HGAP, MARGIN, flat

    index = {g["name"]: i for i, g in enumerate(groups)}
    short = short_names([g["name"] for g in groups])
    for g in groups:
        g["short"] = short[g["name"]]
    widths = [min(len(g["short"]), 60) * CHAR_W + 24 for g in groups]
    # edges here are straight box-to-box lines (no bends to route): rows can sit closer
    cx, _, w, h = flat(widths, [BOX_H] * len(groups),
                       [(index[e["source"]], index[e["target"]]) for e in pairs],
                       hgap=HGAP / 2, vgap=BOX_H)
    cx, w = _packed_rows(cx, widths, HGAP / 2)
    for g, (x, y), bw in zip(groups, cx, widths):
        g["collapsed"] = [round(x - bw / 2 + MARGIN, 1), round(y - BOX_H / 2 + MARGIN, 1),
                          round(bw, 1), BOX_H]
    for e in pairs:
        e["dc"] = _box_to_box(groups[index[e["source"]]]["collapsed"],
                              groups[index[e["target"]]]["collapsed"])
    return {"width": round(w + 2 * MARGIN, 1), "height": round(h + 2 * MARGIN, 1)}
