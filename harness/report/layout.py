"""Layered layout of a DAG: Graphviz ``dot``, else a pure-Python layered layout; igraph on request.

``dot`` (the engine leanblueprint users already have) runs as a subprocess with a timeout and
``-Tjson0`` output; its clusters group nodes by module. When ``dot`` is missing, fails, times
out or the graph is big, :mod:`harness.report.layered` lays it out in this process: pure
Python, so it cannot crash the process (igraph 1.0.0's Sugiyama segfaults: issue #19). In
"auto" the two run side by side, and ``dot`` gets a time in proportion to the layered engine's
(:func:`_dot_alongside`): a graph too big for ``dot`` costs seconds, not the whole timeout.
``--layout igraph`` runs igraph's Sugiyama in a child process (:mod:`harness.report.igraph_child`)
with a timeout; a crash there falls back to the layered engine with a note. All return the same
:class:`Layout`, in pixels with the origin at the top left, dependencies above their users.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable

from harness.errors import UsageError
from harness.lean.run import kill_group
from harness.report.layered import layered_layout
from harness.report.layoutdata import MARGIN, Layout, NodeBox, module_stack

DPI = 72.0  # dot's points; we draw 1 point = 1 pixel
DOT_MAX_NODES = 2500  # docs/benchmarks.md: dot's time grows fast past a few thousand nodes
ENGINES = ("auto", "dot", "igraph", "layered")
AUTO_DOT_TIMEOUT = 10.0  # seconds; then the layered engine, with a note
# "auto": dot's wait after the layered engine is done, as a multiple of the layered engine's time
# (dot/layered: 5-18x up to 1 000 generated nodes, docs/benchmarks.md; > 40x on the real
# 978-node PrimeNumberTheoremAnd, where dot used to time out), never under DOT_MIN_WAIT_S
DOT_PER_LAYERED = 10.0
DOT_MIN_WAIT_S = 2.0
KILL_WAIT_S = 5.0  # after a timeout's SIGKILL: the longest wait for the pipes, then for the exit
IGRAPH_CHILD = [sys.executable, "-m", "harness.report.igraph_child"]  # tests swap it


def dot_executable() -> str | None:
    return shutil.which(os.environ.get("HARNESS_DOT", "dot"))


def layout(nodes: list[NodeBox], edges: list[tuple[str, str]], *, engine: str = "auto",
           timeout_s: float | None = None,
           progress: Callable[[int, int], None] | None = None) -> Layout:
    """``engine``: "auto" (dot up to DOT_MAX_NODES nodes when installed, else the layered
    engine), "dot", "igraph" (in a child process) or "layered". Any engine that fails falls
    back to "layered" with a note, except an explicit "dot" that is missing or fails (an
    error: the user asked for it). ``progress(done, total)``: the layered engine's progress."""
    if engine not in ENGINES:
        raise UsageError(f"graph layout: unknown engine `{engine}` ({', '.join(ENGINES)})")
    keys = {n.key for n in nodes}
    edges = [(u, v) for u, v in edges if u in keys and v in keys and u != v]
    if timeout_s is None:  # "auto" keeps a page's layout within seconds (issue #21); a dot
        # asked for by name may take its time
        timeout_s = AUTO_DOT_TIMEOUT if engine == "auto" else 30.0 + len(nodes) / 50
    note = ""
    if engine == "auto" and len(nodes) > DOT_MAX_NODES:
        engine, note = "layered", (f"{len(nodes)} nodes: the layered engine (dot takes minutes "
                                   f"above {DOT_MAX_NODES}; `--layout dot` forces it)")
    if engine in ("auto", "dot"):
        exe = dot_executable()
        if exe is not None and engine == "auto":
            return _dot_alongside(exe, nodes, edges, timeout_s, progress)
        if exe is not None:
            try:
                return _with_time(lambda: dot_layout(exe, nodes, edges, timeout_s))
            except (subprocess.TimeoutExpired, subprocess.CalledProcessError, OSError,
                    ValueError, KeyError) as err:
                note = f"dot failed ({_short(err)}); used the layered engine"
                if engine == "dot":
                    raise UsageError(f"graph layout: dot failed: {_short(err)}") from None
        elif engine == "dot":
            raise UsageError("graph layout: Graphviz `dot` not found (install Debian's "
                             "graphviz, or set HARNESS_DOT)")
        else:
            note = "Graphviz dot not found; used the layered engine"
    if engine == "igraph":
        try:
            return _with_time(lambda: igraph_in_child(nodes, edges, timeout_s))
        except ChildFailed as err:
            note = f"igraph {err}; used the layered engine"
    out = _with_time(lambda: layered_layout(nodes, edges, progress))
    out.note = note
    return out


def _dot_alongside(exe: str, nodes: list[NodeBox], edges: list[tuple[str, str]],
                   timeout_s: float, progress: Callable[[int, int], None] | None) -> Layout:
    """"auto" with ``dot`` installed: ``dot`` runs in its own process while the layered engine
    lays the graph out here; then ``dot`` gets DOT_PER_LAYERED times the layered engine's time
    (at least DOT_MIN_WAIT_S, at most ``timeout_s``, counted from its start) before its process
    group is killed and the layered layout, already made, is the answer. The layered engine's
    time measures this graph on this machine under its current load, which a node count up
    front does not: dot's cost depends on edges and module clusters too."""
    box: dict[str, object] = {}
    t0 = time.perf_counter()

    def started(p: subprocess.Popen) -> None:
        box["proc"] = p
        if box.get("cancel"):  # given up before dot even started (^C at once)
            kill_group(p)

    def work() -> None:
        try:
            box["layout"] = _with_time(lambda: dot_layout(exe, nodes, edges, timeout_s,
                                                          started=started))
        except BaseException as err:  # noqa: BLE001 - judged below, in the caller's thread
            box["error"] = err

    worker = threading.Thread(target=work, name="dot", daemon=True)
    early = killed = False  # early: stopped before its timeout, the layered engine was quicker
    try:
        worker.start()  # inside: a ^C handled as it returns still kills dot (its own session)
        fallback = _with_time(lambda: layered_layout(nodes, edges, progress))
        budget = min(timeout_s, max(DOT_MIN_WAIT_S, DOT_PER_LAYERED * fallback.seconds))
        worker.join(max(0.0, t0 + budget - time.perf_counter()))
        early = worker.is_alive() and budget < timeout_s
    finally:
        if worker.is_alive():  # out of time, or ^C: dot's whole process group goes
            killed = True
            box["cancel"] = True  # then `started` sees it, or we see the process: either kills
            proc = box.get("proc")
            if isinstance(proc, subprocess.Popen):
                kill_group(proc)
            worker.join(2 * KILL_WAIT_S + 0.5)  # _run drains and reaps it (see _kill)
    if "layout" in box:
        return box["layout"]  # type: ignore[return-value]
    err = box.get("error")
    if early:
        fallback.note = (f"dot did not finish in {budget:.1f} s ({DOT_PER_LAYERED:g}x the "
                         f"layered engine's {fallback.seconds:.2f} s, at least "
                         f"{DOT_MIN_WAIT_S:g} s); used the layered engine (`--layout dot` "
                         "waits for it)")
    elif err is None or isinstance(err, (subprocess.TimeoutExpired, OSError, ValueError,
                                         KeyError, subprocess.CalledProcessError)):
        why = (f"timed out after {timeout_s:g} s" if killed and not isinstance(err, StuckChild)
               else _short(err))
        fallback.note = f"dot failed ({why}); used the layered engine"
    else:
        raise err  # type: ignore[misc]  # a bug of ours, not dot's
    fallback.seconds = round(time.perf_counter() - t0, 4)  # the wait for dot is layout time too
    return fallback


class ChildFailed(Exception):
    """The igraph child crashed, timed out, is not installed or answered garbage."""


def igraph_in_child(nodes: list[NodeBox], edges: list[tuple[str, str]],
                    timeout_s: float) -> Layout:
    """igraph's Sugiyama in a child process: a segfault there is a :class:`ChildFailed`."""
    req = json.dumps({"nodes": [[n.key, n.width, n.height, n.shape, n.cluster] for n in nodes],
                      "edges": edges}).encode()
    try:
        out = _run(IGRAPH_CHILD, req, timeout_s)
    except subprocess.TimeoutExpired as err:
        raise ChildFailed(_short(err)) from None
    except subprocess.CalledProcessError as err:
        tail = (err.stderr or b"").decode(errors="replace").strip().splitlines()
        if err.returncode < 0:
            try:
                why = f"crashed ({signal.Signals(-err.returncode).name})"
            except ValueError:
                why = f"crashed (signal {-err.returncode})"
        elif tail and "No module named 'igraph'" in tail[-1]:
            why = "is not installed (`pip install 'slt-harness[igraph]'`)"
        else:
            why = f"failed (exit {err.returncode}{': ' + tail[-1] if tail else ''})"
        raise ChildFailed(why) from None
    except OSError as err:
        raise ChildFailed(f"could not start ({err})") from None
    try:
        g = json.loads(out)
        centres = {k: (float(x), float(y)) for k, (x, y) in g["centres"].items()}
        paths = {(u, v): str(d) for u, v, d in g["paths"]}
        clusters = {k: tuple(float(x) for x in box) for k, box in g["clusters"].items()}
        if set(centres) != {n.key for n in nodes} or not set(edges) <= set(paths):
            raise ValueError("not every node or edge placed")
        return Layout("igraph", float(g["width"]), float(g["height"]), centres, paths,
                      clusters)  # type: ignore[arg-type]
    except (ValueError, KeyError, TypeError) as err:
        raise ChildFailed(f"answered garbage ({type(err).__name__}: {err})") from None


def _with_time(f) -> Layout:
    t0 = time.perf_counter()
    out = f()
    out.seconds = round(time.perf_counter() - t0, 4)
    return out


def _short(err: BaseException) -> str:
    if isinstance(err, StuckChild):
        return (f"timed out after {err.timeout:g} s; {KILL_WAIT_S:g} s after SIGKILL a process "
                "of it still held its output open: no longer read, left to the system")
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
               timeout_s: float, started: Callable[[subprocess.Popen], object] | None = None
               ) -> Layout:
    src, back = dot_source(nodes, edges)
    g = json.loads(_run(exe, src.encode(), timeout_s, started))
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


class StuckChild(subprocess.TimeoutExpired):
    """Timed out, and the process group was still not gone KILL_WAIT_S after SIGKILL."""


def _run(exe: str | list[str], data: bytes, timeout_s: float,
         started: Callable[[subprocess.Popen], object] | None = None) -> bytes:
    """``dot -Tjson0`` (or an argv) in its own process group, killed as a whole on timeout.
    ``started(p)``: told the process (another thread may kill its group early)."""
    argv = [exe, "-Tjson0"] if isinstance(exe, str) else exe
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    if started is not None:
        started(p)
    try:
        out, err = p.communicate(data, timeout=timeout_s)
    except subprocess.TimeoutExpired:
        if not _kill(p):
            raise StuckChild(argv, timeout_s) from None
        raise
    except BaseException:
        _kill(p)
        raise
    if p.returncode != 0:
        raise subprocess.CalledProcessError(p.returncode, argv, out, err)
    return out


def _kill(p: subprocess.Popen) -> bool:
    """SIGKILL ``p``'s process group, then drain and reap for at most KILL_WAIT_S each: a
    process that left the group (its own session) may hold the pipes open forever, and a child
    in uninterruptible sleep (D state) cannot die yet. Then stop reading: the pipes are closed
    and an unreaped child is left to subprocess's own clean-up. False when that happened."""
    kill_group(p)
    try:
        p.communicate(timeout=KILL_WAIT_S)
        return True
    except subprocess.TimeoutExpired:
        pass
    for f in (p.stdin, p.stdout, p.stderr):
        if f is not None:
            f.close()
    try:
        p.wait(timeout=KILL_WAIT_S)
    except subprocess.TimeoutExpired:
        pass
    return False


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
