"""Layered layout of a DAG by a real layout engine: Graphviz ``dot``, else igraph's Sugiyama.

``dot`` (the engine leanblueprint users already have) runs as a subprocess with a timeout and
``-Tjson0`` output; its clusters group nodes by module. When ``dot`` is missing, fails or times
out, igraph's Sugiyama layout (a PyPI wheel) is used: layers, barycentre crossing reduction, and
dummy vertices that route long edges. Both return the same :class:`Layout`, in pixels with the
origin at the top left, dependencies above their users.
"""

from __future__ import annotations

import graphlib
import json
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field

from harness.errors import UsageError

DPI = 72.0  # dot's points; we draw 1 point = 1 pixel
MARGIN = 20.0
DOT_MAX_NODES = 2500  # docs/benchmarks.md: dot's time grows fast past a few thousand nodes


@dataclass(frozen=True)
class NodeBox:
    key: str
    width: float  # pixels
    height: float
    shape: str = "box"  # "box" | "ellipse"
    cluster: str | None = None  # module name (dot draws a cluster box around each)


@dataclass
class Layout:
    engine: str  # "dot" | "igraph"
    width: float
    height: float
    centres: dict[str, tuple[float, float]]
    edge_paths: dict[tuple[str, str], str]  # SVG path data, tail -> head
    clusters: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    seconds: float = 0.0
    note: str = ""  # why the fallback was used


def dot_executable() -> str | None:
    return shutil.which(os.environ.get("HARNESS_DOT", "dot"))


def layout(nodes: list[NodeBox], edges: list[tuple[str, str]], *, engine: str = "auto",
           timeout_s: float | None = None) -> Layout:
    """``engine``: "auto" (dot up to DOT_MAX_NODES nodes, else or when dot is unusable
    igraph), "dot" or "igraph"."""
    keys = {n.key for n in nodes}
    edges = [(u, v) for u, v in edges if u in keys and v in keys and u != v]
    timeout_s = timeout_s if timeout_s is not None else 30.0 + len(nodes) / 50
    note = ""
    if engine == "auto" and len(nodes) > DOT_MAX_NODES:
        engine, note = "igraph", (f"{len(nodes)} nodes: igraph (dot takes minutes above "
                                  f"{DOT_MAX_NODES}; `--layout dot` forces it)")
    if engine in ("auto", "dot"):
        exe = dot_executable()
        if exe is not None:
            try:
                return _with_time(lambda: dot_layout(exe, nodes, edges, timeout_s))
            except (subprocess.TimeoutExpired, subprocess.CalledProcessError, OSError,
                    ValueError, KeyError) as err:
                note = f"dot failed ({_short(err)}); used igraph"
                if engine == "dot":
                    raise UsageError(f"graph layout: dot failed: {_short(err)}") from None
        elif engine == "dot":
            raise UsageError("graph layout: Graphviz `dot` not found (install Debian's "
                             "graphviz, or set HARNESS_DOT)")
        else:
            note = "Graphviz dot not found; used igraph"
    if engine not in ("auto", "dot", "igraph"):
        raise UsageError(f"graph layout: unknown engine `{engine}` (auto, dot or igraph)")
    try:
        out = _with_time(lambda: igraph_layout(nodes, edges))
    except ImportError:
        raise UsageError("graph layout: neither Graphviz `dot` nor igraph is available "
                         "(install Debian's graphviz, or `pip install igraph`)") from None
    out.note = note
    return out


def _with_time(f) -> Layout:
    t0 = time.perf_counter()
    out = f()
    out.seconds = round(time.perf_counter() - t0, 4)
    return out


def _short(err: BaseException) -> str:
    if isinstance(err, subprocess.TimeoutExpired):
        return f"timed out after {err.timeout:g} s"
    if isinstance(err, subprocess.CalledProcessError):
        tail = (err.stderr or b"").decode(errors="replace").strip().splitlines()
        return f"exit {err.returncode}" + (f": {tail[-1]}" if tail else "")
    return f"{type(err).__name__}: {err}"


# ---- Graphviz dot ----------------------------------------------------------------------------

def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def dot_source(nodes: list[NodeBox], edges: list[tuple[str, str]]) -> tuple[str, list[str]]:
    """The dot input; node i is called ``n<i>`` (no quoting issues), the list maps back."""
    ids = {n.key: f"n{i}" for i, n in enumerate(nodes)}
    big = len(nodes) > 1500  # spline routing dominates dot's time on big graphs
    clusters: dict[str | None, list[NodeBox]] = {}
    for n in nodes:
        clusters.setdefault(n.cluster, []).append(n)
    # newrank: one ranking across clusters, so that _stack_lines can order them
    lines = ["digraph G {",
             f"graph [rankdir=TB, {'newrank=true, ' if len(clusters) > 1 else ''}nodesep=0.3, "
             f"ranksep=0.6, splines={'line' if big else 'true'}, outputorder=edgesfirst, "
             f"mclimit={'0.3' if big else '1'}];",
             'node [fixedsize=true, label=""];', "edge [arrowsize=0.6];"]
    for ci, (name, members) in enumerate(clusters.items()):
        if name is not None and len(clusters) > 1:
            lines.append(f"subgraph cluster_{ci} {{ label={_quote(name)};")
        for n in members:
            lines.append(f"{ids[n.key]} [shape={n.shape}, width={n.width / DPI:.3f}, "
                         f"height={n.height / DPI:.3f}];")
        if name is not None and len(clusters) > 1:
            lines.append("}")
    lines.extend(f"{ids[u]} -> {ids[v]};" for u, v in edges)
    lines.extend(_stack_lines(nodes, edges, ids))
    lines.append("}")
    return "\n".join(lines) + "\n", [n.key for n in nodes]


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


def _stack_lines(nodes: list[NodeBox], edges: list[tuple[str, str]],
                 ids: dict[str, str]) -> list[str]:
    """:func:`module_stack` for dot: invisible points and ``weight=0`` edges (they order ranks
    and pull nothing sideways)."""
    out = []
    for i, (above, below) in enumerate(module_stack(nodes, edges)):
        out.append(f"stack{i} [shape=point, style=invis, width=0, height=0];")
        out.extend(f"{ids[k]} -> stack{i} [style=invis, weight=0];" for k in above)
        out.extend(f"stack{i} -> {ids[k]} [style=invis, weight=0];" for k in below)
    return out


def dot_layout(exe: str, nodes: list[NodeBox], edges: list[tuple[str, str]],
               timeout_s: float) -> Layout:
    src, back = dot_source(nodes, edges)
    g = json.loads(_run(exe, src.encode(), timeout_s))
    _, _, bw, bh = (float(v) for v in g["bb"].split(","))
    height = bh + 2 * MARGIN

    def pt(s: str) -> tuple[float, float]:
        x, y = s.split(",")[:2]
        return round(float(x) + MARGIN, 1), round(height - MARGIN - float(y), 1)

    centres: dict[str, tuple[float, float]] = {}
    clusters: dict[str, tuple[float, float, float, float]] = {}
    gvid: dict[int, str] = {}
    for obj in g.get("objects", []):
        name = obj.get("name", "")
        if "bb" in obj and name.startswith("cluster_"):
            x0, y0, x1, y1 = (float(v) for v in obj["bb"].split(","))
            clusters[obj.get("label", name)] = (x0 + MARGIN, height - MARGIN - y1, x1 - x0,
                                                y1 - y0)
        elif "pos" in obj and name.startswith("n"):
            key = back[int(name[1:])]
            centres[key] = pt(obj["pos"])
            gvid[obj["_gvid"]] = key
    paths: dict[tuple[str, str], str] = {}
    for e in g.get("edges", []):
        if e["tail"] not in gvid or e["head"] not in gvid:
            continue  # an invisible stacking edge (_stack_lines)
        u, v = gvid[e["tail"]], gvid[e["head"]]
        paths[(u, v)] = _spline_path(e.get("pos", ""), pt) or _line(centres[u], centres[v])
    for u, v in edges:  # dot drops nothing, but never leave an edge undrawn
        paths.setdefault((u, v), _line(centres[u], centres[v]))
    return Layout("dot", bw + 2 * MARGIN, height, centres, paths, clusters)


def _run(exe: str, data: bytes, timeout_s: float) -> bytes:
    """``dot -Tjson0`` in its own process group, killed as a whole on timeout."""
    p = subprocess.Popen([exe, "-Tjson0"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(data, timeout=timeout_s)
    except BaseException:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        p.communicate()
        raise
    if p.returncode != 0:
        raise subprocess.CalledProcessError(p.returncode, exe, out, err)
    return out


def _spline_path(pos: str, pt) -> str:
    """dot's edge ``pos``: ``[s,x,y] [e,x,y] p1 p2 … pn`` (n = 1 mod 3: cubic B-spline control
    points; the ``e`` point is the arrow tip after pn)."""
    end = None
    pts = []
    for tok in pos.split():
        if tok.startswith("e,"):
            end = pt(tok[2:])
        elif tok.startswith("s,"):
            continue
        else:
            pts.append(pt(tok))
    if not pts:
        return ""
    d = [f"M{pts[0][0]},{pts[0][1]}"]
    if (len(pts) - 1) % 3 == 0:
        for i in range(1, len(pts), 3):
            a, b, c = pts[i:i + 3]
            d.append(f"C{a[0]},{a[1]} {b[0]},{b[1]} {c[0]},{c[1]}")
    else:
        d.extend(f"L{x},{y}" for x, y in pts[1:])
    if end is not None:
        d.append(f"L{end[0]},{end[1]}")
    return " ".join(d)


def _line(a: tuple[float, float], b: tuple[float, float]) -> str:
    return f"M{a[0]},{a[1]} L{b[0]},{b[1]}"


# ---- igraph Sugiyama -------------------------------------------------------------------------

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
