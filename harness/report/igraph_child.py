"""igraph's Sugiyama layout, run only in a child process (``python -m harness.report.igraph_child``).

igraph 1.0.0's ``layout_sugiyama`` segfaults on some inputs (issue #19), so the parent never
imports igraph: :func:`harness.report.layout.igraph_in_child` sends the graph as JSON on stdin,
reads the layout as JSON on stdout, and falls back to the pure-Python engine when this process
crashes, hangs or answers garbage.
"""

from __future__ import annotations

import json
import sys

from harness.report.layoutdata import MARGIN, Layout, NodeBox, module_stack

HGAP, VGAP, UNIT, DUMMY_W = 24.0, 90.0, 8.0, 6.0


def igraph_layout(nodes: list[NodeBox], edges: list[tuple[str, str]]) -> Layout:
    import igraph  # ImportError: the caller says what to install

    index = {n.key: i for i, n in enumerate(nodes)}
    stack = module_stack(nodes, edges)
    links = [(index[u], index[v]) for u, v in edges]
    for i, (above, below) in enumerate(stack):  # invisible vertices after the real ones
        links += [(index[k], len(nodes) + i) for k in above]
        links += [(len(nodes) + i, index[k]) for k in below]
    g = igraph.Graph(n=len(nodes) + len(stack), edges=links, directed=True)
    lay = g.layout_sugiyama(maxiter=100)
    coords = [tuple(c) for c in lay.coords]  # real vertices, stack, dummies of long edges
    routing = getattr(lay, "edge_routing", None) or [[] for _ in edges]
    widths = [n.width for n in nodes] + [DUMMY_W] * (len(coords) - len(nodes))
    # Sugiyama places unit-width vertices; spread each layer left to right so that boxes of
    # real widths never overlap, keeping the order it chose (that is its crossing reduction)
    layers: dict[float, list[int]] = {}
    for i, (x, y) in enumerate(coords):
        layers.setdefault(y, []).append(i)
    xs: list[float] = [0.0] * len(coords)
    for members in layers.values():
        members.sort(key=lambda i: coords[i][0])
        right, prev_real = -1e18, False
        for i in members:
            real = i < len(nodes)
            gap = HGAP if real and prev_real else DUMMY_W
            xs[i] = max(coords[i][0] * UNIT, right + gap + widths[i] / 2)
            right, prev_real = xs[i] + widths[i] / 2, real
    left = min((xs[i] - widths[i] / 2 for i in range(len(coords))), default=0.0)
    top = min((y for _, y in coords), default=0.0)
    at = {(round(c[0], 6), round(c[1], 6)): i for i, c in enumerate(coords) if i >= len(nodes)}

    def place(i: int) -> tuple[float, float]:
        return round(xs[i] - left + MARGIN, 1), round((coords[i][1] - top) * VGAP + MARGIN + 20, 1)

    centres = {n.key: place(i) for i, n in enumerate(nodes)}
    paths: dict[tuple[str, str], str] = {}
    for (u, v), ctrl in zip(edges, routing):
        a, b = centres[u], centres[v]
        mids = [at.get((round(x, 6), round(y, 6))) for x, y in ctrl]
        pts = [a, *(place(i) for i in mids if i is not None), b]
        # start / end on the box borders (top / bottom), like dot's
        pts[0] = (a[0], a[1] + _half_h(nodes[index[u]]) * (1 if b[1] > a[1] else -1))
        pts[-1] = (b[0], b[1] - _half_h(nodes[index[v]]) * (1 if b[1] > a[1] else -1))
        paths[(u, v)] = "M" + " L".join(f"{x},{y}" for x, y in pts)
    width = max((c[0] + nodes[index[k]].width / 2 for k, c in centres.items()), default=0)
    height = max((c[1] for c in centres.values()), default=0) + 40
    clusters = _cluster_boxes(nodes, centres) if stack else {}
    return Layout("igraph", width + MARGIN, height + MARGIN, centres, paths, clusters)


def _cluster_boxes(nodes: list[NodeBox], centres: dict[str, tuple[float, float]]
                   ) -> dict[str, tuple[float, float, float, float]]:
    """(x, y, w, h) around each module's nodes, with room for its name above them."""
    out: dict[str, tuple[float, float, float, float]] = {}
    for n in nodes:
        if n.cluster is None:
            continue
        x, y = centres[n.key]
        box = (x - n.width / 2 - 8, y - n.height / 2 - 22, x + n.width / 2 + 8,
               y + n.height / 2 + 8)
        old = out.get(n.cluster, box)
        out[n.cluster] = (min(old[0], box[0]), min(old[1], box[1]), max(old[2], box[2]),
                          max(old[3], box[3]))
    return {k: (round(max(x0, 0.0), 1), round(max(y0, 0.0), 1), round(x1 - max(x0, 0.0), 1),
                round(y1 - max(y0, 0.0), 1)) for k, (x0, y0, x1, y1) in out.items()}


def _half_h(n: NodeBox) -> float:
    return n.height / 2


def main() -> int:
    req = json.load(sys.stdin)
    nodes = [NodeBox(*n) for n in req["nodes"]]
    lay = igraph_layout(nodes, [tuple(e) for e in req["edges"]])
    json.dump({"width": lay.width, "height": lay.height, "centres": lay.centres,
               "paths": [[u, v, d] for (u, v), d in lay.edge_paths.items()],
               "clusters": lay.clusters}, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
