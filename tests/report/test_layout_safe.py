"""A layout cannot take the process down (issue #19): igraph runs in a child process, and the
pure-Python layered engine lays out hundreds of random DAGs sanely."""

from __future__ import annotations

import json
import math
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.report.layout import layout
from harness.report.layoutdata import Layout, NodeBox

ROOT = Path(__file__).resolve().parents[2]
# issue #19's minimal input for igraph 1.0.0 (27 vertices), and a random DAG that crashed it here
ISSUE_EDGES = [(1, 7), (1, 24), (1, 25), (2, 3), (3, 26), (4, 10), (4, 16), (4, 26), (5, 14),
               (5, 25), (8, 12), (8, 13), (12, 17), (12, 18), (15, 23), (17, 21), (18, 21),
               (18, 25), (20, 23), (21, 25)]
SEED_1077 = [(0, 1), (0, 19), (1, 17), (2, 5), (3, 9), (3, 15), (4, 15), (6, 7), (9, 15),
             (10, 13), (12, 14), (17, 19)]


def tiny_dag(seed: int) -> tuple[list[NodeBox], list[tuple[str, str]]]:
    """1–30 vertices, edge probability 0.08: igraph 1.0.0 crashed on the 1 078th of these."""
    r = random.Random(seed)
    n = r.randint(1, 30)
    edges = [(str(i), str(j)) for i in range(n) for j in range(i + 1, n) if r.random() < 0.08]
    return [NodeBox(str(i), 50.0, 28.0) for i in range(n)], edges


def random_dag(seed: int, n: int | None = None) -> tuple[list[NodeBox], list[tuple[str, str]]]:
    """1–2 000 vertices (log-uniform), local edges plus a few long ones, and — for most graphs —
    modules that are consecutive stretches of a topological order (a module stack, as Lean's
    imports make them), some of one vertex."""
    r = random.Random(seed)
    n = n or max(1, int(math.exp(r.uniform(0, math.log(2000)))))
    edges = set()
    for j in range(1, n):
        for _ in range(r.choice((0, 1, 1, 2, 3))):
            i = j - 1 - int(r.expovariate(0.2)) if r.random() < 0.85 else r.randrange(j)
            if 0 <= i < j:
                edges.add((i, j))
    cluster: list[str | None] = [None] * n
    if r.random() < 0.7:
        m, k = 0, 0
        while k < n:
            size = r.choice((1, 2, 5, 10, 30))
            for i in range(k, min(n, k + size)):
                cluster[i] = f"M{m}"
            k, m = k + size, m + 1
    perm = list(range(n))
    r.shuffle(perm)  # vertex order is not the topological order
    boxes = [NodeBox(f"v{perm[i]}", r.choice((40.0, 90.0, 300.0)), 28.0,
                     r.choice(("box", "ellipse")), cluster[i]) for i in range(n)]
    return boxes, [(f"v{perm[u]}", f"v{perm[v]}") for u, v in sorted(edges)]


NUM = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def check(lay: Layout, boxes: list[NodeBox], edges: list[tuple[str, str]]) -> None:
    """Sane output: every node placed at finite coordinates inside the drawing, no two boxes of
    one layer overlapping, each edge pointing down from its tail to its head, module boxes
    around their nodes and apart from each other."""
    assert set(lay.centres) == {b.key for b in boxes}
    assert set(lay.edge_paths) == set(edges)
    assert math.isfinite(lay.width) and math.isfinite(lay.height)
    by_key = {b.key: b for b in boxes}
    rows: dict[float, list[str]] = {}
    for k, (x, y) in lay.centres.items():
        assert math.isfinite(x) and math.isfinite(y), (k, x, y)
        b = by_key[k]
        assert -0.5 <= x - b.width / 2 and x + b.width / 2 <= lay.width + 0.5, (k, x, lay.width)
        assert -0.5 <= y - b.height / 2 and y + b.height / 2 <= lay.height + 0.5
        rows.setdefault(y, []).append(k)
    for keys in rows.values():
        keys.sort(key=lambda k: lay.centres[k][0])
        for a, b in zip(keys, keys[1:]):
            assert (lay.centres[a][0] + by_key[a].width / 2
                    <= lay.centres[b][0] - by_key[b].width / 2 + 0.5), (a, b)
    for u, v in edges:
        assert lay.centres[u][1] < lay.centres[v][1], (u, v)
        d = lay.edge_paths[(u, v)]
        assert d.startswith("M") and all(math.isfinite(float(t)) for t in NUM.findall(d))
    for b in boxes:
        if b.cluster is not None and b.cluster in lay.clusters:
            x, y, w, h = lay.clusters[b.cluster]
            cx, cy = lay.centres[b.key]
            assert x - 0.5 <= cx - b.width / 2 and cx + b.width / 2 <= x + w + 0.5
            assert y - 0.5 <= cy - b.height / 2 and cy + b.height / 2 <= y + h + 0.5
    if lay.engine == "layered":  # its module boxes never overlap (dot's neither; igraph's may)
        rects = sorted(lay.clusters.values())
        for i, (x, y, w, h) in enumerate(rects):
            for x2, y2, w2, h2 in rects[i + 1:]:
                if x2 >= x + w:
                    break
                assert y2 >= y + h or y >= y2 + h2, ((x, y, w, h), (x2, y2, w2, h2))


_CHILD = """
import json, sys
from harness.report.layout import layout
from tests.report.test_layout_safe import check, random_dag, tiny_dag
seeds = json.loads(sys.argv[1])
placed = engines = 0
seen = set()
for seed in range(1200):
    boxes, edges = tiny_dag(seed)
    check(layout(boxes, edges), boxes, edges)
for seed in seeds:
    boxes, edges = random_dag(seed)
    lay = layout(boxes, edges)  # the default path, with Graphviz hidden: the fallback
    check(lay, boxes, edges)
    placed += len(lay.centres)
    seen.add(lay.engine)
print(json.dumps({"graphs": len(seeds), "placed": placed, "engines": sorted(seen)}))
"""


def test_hundreds_of_random_dags_through_the_fallback_in_a_child_process():
    """Before the fix the default path without Graphviz was igraph in-process, and this child
    died of SIGSEGV on the 1 078th tiny DAG (igraph 1.0.0). Now: exit 0, every graph checked."""
    seeds = list(range(300))
    env = {**os.environ, "HARNESS_DOT": "no-such-dot", "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(seeds)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=280)
    assert r.returncode == 0, (r.returncode, r.stderr[-3000:])
    out = json.loads(r.stdout)
    assert out["graphs"] == 300 and out["engines"] == ["layered"]
    assert out["placed"] == sum(len(random_dag(s)[0]) for s in seeds)


@pytest.mark.parametrize("n", [1, 2, 2000])
def test_edge_sizes(n):
    boxes, edges = random_dag(n + 7, n)
    check(layout(boxes, edges, engine="layered"), boxes, edges)


def test_cycles_and_duplicate_edges_do_not_break_the_layered_engine():
    """Not a DAG (a cycle through a shared label can happen): still every node placed."""
    boxes = [NodeBox(k, 50, 28) for k in "abcd"]
    edges = [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("a", "b")]
    lay = layout(boxes, edges, engine="layered")
    assert set(lay.centres) == set("abcd") and set(lay.edge_paths) == set(edges)
    assert lay.centres["c"][1] < lay.centres["d"][1]


def _boxes(pairs: list[tuple[int, int]], n: int) -> tuple[list[NodeBox], list[tuple[str, str]]]:
    return [NodeBox(str(i), 50, 28) for i in range(n)], [(str(u), str(v)) for u, v in pairs]


@pytest.mark.parametrize("pairs, n", [(ISSUE_EDGES, 27), (SEED_1077, 22)])
def test_igraph_on_the_crashing_inputs_never_kills_us(pairs, n):
    """igraph (whatever version is installed, 1.0.0 here) runs in a child: it answers, or it
    crashes there and the layered engine answers."""
    boxes, edges = _boxes(pairs, n)
    lay = layout(boxes, edges, engine="igraph")
    assert lay.engine in ("igraph", "layered")
    if lay.engine == "layered":
        assert lay.note.startswith("igraph ")
    check(lay, boxes, edges)


@pytest.mark.parametrize("code, why", [
    ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", "igraph crashed (SIGSEGV)"),
    ("import time; time.sleep(60)", "igraph timed out after 2 s"),
    ("print('not json')", "igraph answered garbage"),
    ("import json; print(json.dumps({'width': 1, 'height': 1, 'centres': {}, 'paths': [],"
     " 'clusters': {}}))", "not every node or edge placed"),
    ("raise SystemExit(\"No module named 'igraph'\")", "igraph is not installed"),
])
def test_a_failing_igraph_child_falls_back(monkeypatch, code, why):
    import harness.report.layout as layout_mod

    monkeypatch.setattr(layout_mod, "IGRAPH_CHILD", [sys.executable, "-c", code])
    boxes, edges = random_dag(3, 40)
    lay = layout(boxes, edges, engine="igraph", timeout_s=2)
    assert lay.engine == "layered" and why in lay.note, lay.note
    check(lay, boxes, edges)
