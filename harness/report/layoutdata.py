"""What every layout engine takes and returns (dot, the layered engine, the igraph child): the
boxes, the :class:`Layout`, and how module clusters are stacked. Its own module so that the
engines and :mod:`harness.report.layout`, which chooses between them, need not import one
another."""

from __future__ import annotations

import graphlib
from dataclasses import dataclass, field

MARGIN = 20.0


@dataclass(frozen=True)
class NodeBox:
    key: str
    width: float  # pixels
    height: float
    shape: str = "box"  # "box" | "ellipse"
    cluster: str | None = None  # module name (dot draws a cluster box around each)


@dataclass
class Layout:
    engine: str  # "dot" | "igraph" | "layered"
    width: float
    height: float
    centres: dict[str, tuple[float, float]]
    edge_paths: dict[tuple[str, str], str]  # SVG path data, tail -> head
    clusters: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    seconds: float = 0.0
    note: str = ""  # why the fallback was used


def module_stack(nodes: list[NodeBox], edges: list[tuple[str, str]]
                 ) -> list[tuple[list[str], list[str]]]:
    """How to put the module clusters one below the other, imported modules first: for each
    pair of consecutive modules, (the sinks of the upper one, the sources of the lower one).
    An invisible vertex after the former and before the latter orders the layers. Without it
    both engines set modules side by side on shared layers, and a workspace of a few modules
    becomes a strip ten times wider than high. Empty for fewer than two modules."""
    clusters: dict[str | None, list[str]] = {}
    for n in nodes:
        clusters.setdefault(n.cluster, []).append(n.key)
    if len(clusters) < 2:
        return []
    of = {n.key: n.cluster for n in nodes}
    after: dict[str | None, set[str | None]] = {c: set() for c in clusters}
    for u, v in edges:
        if of[u] != of[v]:
            after[of[v]].add(of[u])
    try:
        order = list(graphlib.TopologicalSorter(after).static_order())
    except graphlib.CycleError:
        order = list(clusters)
    inner = [(u, v) for u, v in edges if of[u] == of[v]]
    has_out, has_in = {u for u, _ in inner}, {v for _, v in inner}
    return [([k for k in clusters[a] if k not in has_out],
             [k for k in clusters[b] if k not in has_in]) for a, b in zip(order, order[1:])]
