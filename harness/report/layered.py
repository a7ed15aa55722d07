"""A layered (Sugiyama-style) layout in pure Python: the engine that cannot take the process down.

Why it exists: igraph 1.0.0's ``layout_sugiyama`` segfaults on some small DAGs (issue #19;
reproduced here: random DAGs of 1–30 vertices, one crash in ~1 000), and Graphviz is missing on
most pip users' machines. This engine has no native code, so the worst it can do is raise.

Steps, per graph: cycles broken (a DFS's back edges reversed); layers by longest path from the
sources, sources pulled down next to their first user; long edges cut by dummy vertices; order
inside a layer by barycentre sweeps (down and up); x by a few passes that move each vertex
towards its neighbours' mean and then resolve overlaps, keeping the order.

With modules (``NodeBox.cluster``) the layout is *compound*: each module is laid out on its own,
then the modules are laid out as boxes by the same routine over the module graph (imported
modules above), so module boxes never overlap and a project of a few hundred modules becomes a
grid of boxes, not a strip. Edges between modules are straight segments between the boxes'
nodes; the page can collapse a module to its box.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.report.layoutdata import Layout, NodeBox

HGAP, VGAP, DUMMY_W, MARGIN = 24.0, 56.0, 8.0, 20.0
MOD_HGAP, MOD_VGAP, MOD_PAD, MOD_HEAD = 40.0, 60.0, 10.0, 22.0
SWEEPS, XPASSES = 6, 4
DUMMY_BUDGET = 3  # dummy vertices per real one, at most
ASPECT = 2.0  # target width / height of a drawing (screens are wider than tall)

Progress = Callable[[int, int], None]  # (done, total)


def flat(widths: list[float], heights: list[float], edges: list[tuple[int, int]], *,
         hgap: float = HGAP, vgap: float = VGAP
         ) -> tuple[list[tuple[float, float]], dict[tuple[int, int], list[tuple[float, float]]],
                    float, float]:
    """Centres (top-left origin, no margin), per edge its polyline from the tail's border to the
    head's border, and the width and height of the drawing."""
    n = len(widths)
    edges = list(dict.fromkeys((u, v) for u, v in edges if u != v))
    up = _acyclic(n, edges)  # edges as drawn: tail above head
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    for u, v in up:
        succ[u].append(v)
        pred[v].append(u)
    rank = _ranks(n, succ, pred)
    rank = _bounded(rank, pred, widths, heights, hgap, vgap)
    # long edges: dummy vertices on every layer crossed
    w = list(widths)
    r = list(rank)
    chains: dict[tuple[int, int], list[int]] = {}
    adj_up: list[list[int]] = [list(p) for p in pred]
    adj_down: list[list[int]] = [list(s) for s in succ]
    # the shortest long edges get dummies first, up to a budget: a few edges spanning a hundred
    # layers would otherwise multiply the vertices (and the time) tenfold; the rest are straight
    budget = max(2000, DUMMY_BUDGET * n)
    for u, v in sorted(up, key=lambda e: r[e[1]] - r[e[0]]):
        if r[v] - r[u] <= 1:
            continue
        budget -= r[v] - r[u] - 1
        if budget < 0:
            break
        prev, chain = u, []
        adj_down[u].remove(v)
        adj_up[v].remove(u)
        for k in range(r[u] + 1, r[v]):
            d = len(w)
            w.append(DUMMY_W)
            r.append(k)
            adj_up.append([prev])
            adj_down.append([])
            adj_down[prev].append(d)
            chain.append(d)
            prev = d
        adj_down[prev].append(v)
        adj_up[v].append(prev)
        chains[(u, v)] = chain
    layers: list[list[int]] = [[] for _ in range(max(r, default=-1) + 1)]
    for i in _dfs_order(len(w), adj_down, adj_up):
        layers[r[i]].append(i)
    _order(layers, adj_up, adj_down)
    xs = _xs(layers, adj_up, adj_down, w, n, hgap)
    h = list(heights) + [0.0] * (len(w) - n)
    tops, y = [], 0.0
    for layer in layers:
        tops.append(y)
        y += max((h[i] for i in layer if i < n), default=0.0) + vgap
    lh = [max((h[i] for i in layer if i < n), default=0.0) for layer in layers]
    ys = [tops[r[i]] + lh[r[i]] / 2 for i in range(len(w))]
    left = min((xs[i] - w[i] / 2 for i in range(len(w))), default=0.0)
    xs = [x - left for x in xs]
    cx = [(xs[i], ys[i]) for i in range(len(w))]
    paths: dict[tuple[int, int], list[tuple[float, float]]] = {}
    drawn = set(up)
    for u, v in edges:
        a, b = (u, v) if (u, v) in drawn or (v, u) not in drawn else (v, u)
        pts = [(cx[a][0], cx[a][1] + heights[a] / 2), *(cx[d] for d in chains.get((a, b), [])),
               (cx[b][0], cx[b][1] - heights[b] / 2)]
        paths[(u, v)] = pts if (a, b) == (u, v) else pts[::-1]
    width = max((xs[i] + w[i] / 2 for i in range(len(w))), default=0.0)
    height = max(y - vgap, 0.0)
    return cx[:n], paths, width, height


def _acyclic(n: int, edges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The edges with a DFS's back edges reversed (a DAG stays as it is)."""
    succ: list[list[int]] = [[] for _ in range(n)]
    for u, v in edges:
        succ[u].append(v)
    state = [0] * n  # 0 new, 1 on the stack, 2 done
    back: set[tuple[int, int]] = set()
    for s in range(n):
        if state[s]:
            continue
        stack = [(s, iter(succ[s]))]
        state[s] = 1
        while stack:
            u, it = stack[-1]
            for v in it:
                if state[v] == 1:
                    back.add((u, v))
                elif state[v] == 0:
                    state[v] = 1
                    stack.append((v, iter(succ[v])))
                    break
            else:
                state[u] = 2
                stack.pop()
    return [(v, u) if (u, v) in back else (u, v) for u, v in edges]


def _ranks(n: int, succ: list[list[int]], pred: list[list[int]]) -> list[int]:
    indeg = [len(p) for p in pred]
    queue = [i for i in range(n) if indeg[i] == 0]
    rank = [0] * n
    topo = []
    while queue:
        u = queue.pop()
        topo.append(u)
        for v in succ[u]:
            rank[v] = max(rank[v], rank[u] + 1)
            indeg[v] -= 1
            if indeg[v] == 0:
                queue.append(v)
    for u in reversed(topo):  # a source sits just above its first user, not on the top layer
        if not pred[u] and succ[u]:
            rank[u] = min(rank[v] for v in succ[u]) - 1
    return rank


def _bounded(rank: list[int], pred: list[list[int]], widths: list[float],
             heights: list[float], hgap: float, vgap: float) -> list[int]:
    """Layers no wider than about ASPECT times the drawing's height: a vertex moves down to the
    first layer with room (below its dependencies), so that many independent nodes make a
    block that fits a screen, not a row 50 000 px long (Coffman–Graham's idea, by pixels)."""
    n = len(rank)
    if n < 4:
        return rank
    area = sum((w + hgap) * (h + vgap) for w, h in zip(widths, heights))
    limit = max(max(widths) + hgap, (area * ASPECT) ** 0.5)
    used: list[float] = []
    out = [0] * n
    for v in sorted(range(n), key=lambda i: rank[i]):
        lay = max([rank[v], *(out[p] + 1 for p in pred[v])])
        while lay < len(used) and used[lay] and used[lay] + widths[v] > limit:
            lay += 1
        while len(used) <= lay:
            used.append(0.0)
        used[lay] += widths[v] + hgap
        out[v] = lay
    return out


def _dfs_order(m: int, down: list[list[int]], up: list[list[int]]) -> list[int]:
    """An initial order in which connected vertices are near each other."""
    seen = [False] * m
    out: list[int] = []
    for s in range(m):
        if seen[s] or up[s]:
            continue
        stack = [s]
        while stack:
            u = stack.pop()
            if seen[u]:
                continue
            seen[u] = True
            out.append(u)
            stack.extend(reversed(down[u]))
    out.extend(i for i in range(m) if not seen[i])
    return out


def _order(layers: list[list[int]], up: list[list[int]], down: list[list[int]]) -> None:
    """Barycentre crossing reduction, in place."""
    pos: dict[int, float] = {}
    for layer in layers:
        for j, i in enumerate(layer):
            pos[i] = j
    for sweep in range(SWEEPS):
        seq = range(1, len(layers)) if sweep % 2 == 0 else range(len(layers) - 2, -1, -1)
        nbrs = up if sweep % 2 == 0 else down
        for k in seq:
            layer = layers[k]
            key = {i: (sum(pos[j] for j in nbrs[i]) / len(nbrs[i]) if nbrs[i] else pos[i])
                   for i in layer}
            layer.sort(key=lambda i: key[i])
            for j, i in enumerate(layer):
                pos[i] = j


def _xs(layers: list[list[int]], up: list[list[int]], down: list[list[int]], w: list[float],
        n: int, hgap: float) -> list[float]:
    xs = [0.0] * len(w)

    def gap(a: int, b: int) -> float:
        return (w[a] + w[b]) / 2 + (hgap if a < n and b < n else DUMMY_W)

    for layer in layers:  # packed left to right, centred on 0
        x = 0.0
        for j, i in enumerate(layer):
            x = x + gap(layer[j - 1], i) if j else 0.0
            xs[i] = x
        mid = x / 2
        for i in layer:
            xs[i] -= mid
    for p in range(XPASSES):
        seq = layers if p % 2 == 0 else layers[::-1]
        nbrs = up if p % 2 == 0 else down
        for layer in seq:
            want = [sum(xs[j] for j in nbrs[i]) / len(nbrs[i]) if nbrs[i] else xs[i]
                    for i in layer]
            _place(layer, want, xs, gap)
    return xs


def _place(layer: list[int], want: list[float], xs: list[float], gap) -> None:
    """Positions as close to ``want`` as the order and the gaps allow: a forward pass keeps the
    minimum gaps, a backward one pulls blocks left again, averaged (cheap, and good enough)."""
    m = len(layer)
    if not m:
        return
    fwd = list(want)
    for j in range(1, m):
        fwd[j] = max(fwd[j], fwd[j - 1] + gap(layer[j - 1], layer[j]))
    bwd = list(want)
    for j in range(m - 2, -1, -1):
        bwd[j] = min(bwd[j], bwd[j + 1] - gap(layer[j], layer[j + 1]))
    both = [(a + b) / 2 for a, b in zip(fwd, bwd)]
    for j in range(1, m):  # the average keeps the order; restore the gaps it may shrink
        both[j] = max(both[j], both[j - 1] + gap(layer[j - 1], layer[j]))
    for j, i in enumerate(layer):
        xs[i] = both[j]


def layered_layout(nodes: list[NodeBox], edges: list[tuple[str, str]],
                   progress: Progress | None = None) -> Layout:

    index = {b.key: i for i, b in enumerate(nodes)}
    groups: dict[str | None, list[int]] = {}
    for i, b in enumerate(nodes):
        groups.setdefault(b.cluster, []).append(i)
    links = [(index[u], index[v]) for u, v in edges]
    if len(groups) < 2:
        cx, paths, w, h = flat([b.width for b in nodes], [b.height for b in nodes], links)
        if progress:
            progress(1, 1)
        centres = {b.key: _pt(cx[i], MARGIN, MARGIN) for i, b in enumerate(nodes)}
        return Layout("layered", w + 2 * MARGIN, h + 2 * MARGIN, centres,
                      {(u, v): _path(paths[(index[u], index[v])], MARGIN, MARGIN)
                       for u, v in edges})
    names = list(groups)
    gi = {g: k for k, g in enumerate(names)}
    of = [gi[b.cluster] for b in nodes]
    inner: dict[int, list[tuple[int, int]]] = {k: [] for k in range(len(names))}
    for u, v in links:
        if of[u] == of[v]:
            inner[of[u]].append((u, v))
    local: list[tuple[dict[int, tuple[float, float]], dict, float, float]] = []
    for k, g in enumerate(names):  # each module on its own
        members = groups[g]
        li = {i: j for j, i in enumerate(members)}
        cx, paths, w, h = flat([nodes[i].width for i in members],
                               [nodes[i].height for i in members],
                               [(li[u], li[v]) for u, v in inner[k]])
        local.append(({i: cx[li[i]] for i in members},
                      {(u, v): paths[(li[u], li[v])] for u, v in inner[k]}, w, h))
        if progress:
            progress(k + 1, len(names) + 1)
    boxw = [w + 2 * MOD_PAD for _, _, w, _ in local]
    boxh = [h + 2 * MOD_PAD + MOD_HEAD for _, _, _, h in local]
    mlinks = list(dict.fromkeys((of[u], of[v]) for u, v in links if of[u] != of[v]))
    mc, _, mw, mh = flat(boxw, boxh, mlinks, hgap=MOD_HGAP, vgap=MOD_VGAP)
    if progress:
        progress(len(names) + 1, len(names) + 1)
    centres: dict[str, tuple[float, float]] = {}
    paths_out: dict[tuple[str, str], str] = {}
    clusters: dict[str, tuple[float, float, float, float]] = {}
    for k, g in enumerate(names):
        x0 = mc[k][0] - boxw[k] / 2 + MARGIN
        y0 = mc[k][1] - boxh[k] / 2 + MARGIN
        if g is not None:
            clusters[g] = (round(x0, 1), round(y0, 1), round(boxw[k], 1), round(boxh[k], 1))
        dx, dy = x0 + MOD_PAD, y0 + MOD_PAD + MOD_HEAD
        cxs, paths, _, _ = local[k]
        for i, c in cxs.items():
            centres[nodes[i].key] = _pt(c, dx, dy)
        for (u, v), pts in paths.items():
            paths_out[(nodes[u].key, nodes[v].key)] = _path(pts, dx, dy)
    for u, v in edges:
        if (u, v) not in paths_out:  # between modules: border to border
            a, b = centres[u], centres[v]
            ha, hb = nodes[index[u]].height / 2, nodes[index[v]].height / 2
            s = 1 if b[1] >= a[1] else -1
            paths_out[(u, v)] = _path([(a[0], a[1] + s * ha), (b[0], b[1] - s * hb)], 0, 0)
    return Layout("layered", mw + 2 * MARGIN, mh + 2 * MARGIN, centres, paths_out, clusters)


def _pt(c: tuple[float, float], dx: float, dy: float) -> tuple[float, float]:
    return round(c[0] + dx, 1), round(c[1] + dy, 1)


def _path(pts: list[tuple[float, float]], dx: float, dy: float) -> str:
    return "M" + " L".join(f"{round(x + dx, 1)},{round(y + dy, 1)}" for x, y in pts)
