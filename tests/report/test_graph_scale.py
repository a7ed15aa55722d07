"""The graph of a ~1 000-node project with ~9 000 ordinary declarations (issue #21): blueprint
nodes only by default, edges projected through the ordinary declarations as LeanArchitect
does, module groups, a page under 5 MB, `-o x.json` without a layout, a progress bar."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import networkx as nx
import pytest

from harness.blueprint.genhelpers import generate_project_with_helpers
from harness.commands.graph import load_all, write_graph
from harness.report.graph import graph_data
from harness.report.projection import is_blueprint

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("big")
    info = generate_project_with_helpers(root)
    assert 950 <= info["nodes"] <= 1050 and 8500 <= info["helpers"] <= 9500
    return root, info


@pytest.fixture(scope="module")
def analysis(project):
    root, _ = project
    (a,) = load_all([root / "Gen"])
    return a


def expected_edges(a) -> set[tuple[str, str]]:
    """Independently of projection.py: node u -> node v when a path u -> … -> v runs through
    ordinary declarations only (networkx on the subgraph of ordinary declarations)."""
    g = a.graph
    ordinary = [k for k in g if not is_blueprint(a, k)]
    sub = g.subgraph(ordinary).copy()  # a plain graph: ancestors() on a view is slow
    reach: dict[str, set[str]] = {}  # ordinary u -> the nodes that reach it through ordinary ones
    out = set()
    for v in a.own:
        if not is_blueprint(a, v):
            continue
        for u in g.predecessors(v):
            if is_blueprint(a, u):
                out.add((u, v))
                continue
            if u not in reach:
                reach[u] = {x for w in {u} | nx.ancestors(sub, u) for x in g.predecessors(w)
                            if is_blueprint(a, x)}
            out.update((x, v) for x in reach[u])
    return {(u, v) for u, v in out if u != v}


def test_json_has_the_blueprint_nodes_projected_edges_and_no_layout(project, analysis,
                                                                    monkeypatch, tmp_path):
    root, info = project
    import harness.report.graph as graph_mod

    def no_layout(*_a, **_k):
        raise AssertionError("graph -o x.json must not lay out")

    monkeypatch.setattr(graph_mod, "layout", no_layout)
    out = tmp_path / "g.json"
    summary = write_graph(root / "Gen", out)
    data = json.loads(out.read_text())
    assert data["layout"] is None and summary["layout"] is None
    assert data["view"] == "blueprint" and data["hidden"] == info["helpers"]
    assert len(data["nodes"]) == info["nodes"]
    assert all(n["key"].split(":")[0] in ("def", "lem") and "x" not in n for n in data["nodes"])
    got = {(e["source"], e["target"]) for e in data["edges"]}
    want = expected_edges(analysis)
    assert got == want
    projected = {(e["source"], e["target"]) for e in data["edges"] if e["projected"]}
    assert projected and projected < got  # some only through helpers, some direct
    direct = {(u, v) for u, v in analysis.graph.edges
              if is_blueprint(analysis, u) and is_blueprint(analysis, v)}
    assert projected.isdisjoint(direct) and got - projected <= direct
    # per-node data the page needs: module, the Lean signature (directory mode), statement
    n = next(n for n in data["nodes"] if n["key"] == "lem:f005-1")
    assert n["module"] == "Gen.Layer00.File005" and n["state"] in ("proved", "ready", "open",
                                                                  "waiting")
    assert n["signature"].startswith("theorem Gen.F005.node1 : ") and "↔" in n["signature"]
    assert n["statement"] == "Claim 5.1."
    groups = {g["name"]: g for g in data["modules"]}
    assert len(groups) == info["files"] and "lem:f005-1" in groups["Gen.Layer00.File005"]["nodes"]
    assert sum(sum(g["counts"].values()) for g in groups.values()) == info["nodes"]
    mod = {n["key"]: n["module"] for n in data["nodes"]}
    pairs = {(mod[u], mod[v]) for u, v in got if mod[u] != mod[v]}
    assert {(e["source"], e["target"]) for e in data["module_edges"]} == pairs
    assert sum(e["count"] for e in data["module_edges"]) == sum(
        1 for u, v in got if mod[u] != mod[v])


def test_declarations_view_shows_every_declaration(analysis):
    data = graph_data(analysis, engine=None, declarations=True)
    assert data["view"] == "declarations" and data["hidden"] == 0
    assert len(data["nodes"]) == len(analysis.own) > 9000
    own = set(analysis.own)
    assert {(e["source"], e["target"]) for e in data["edges"]} == {
        (u, v) for u, v in analysis.graph.edges if v in own}


def test_page_at_scale_is_laid_out_grouped_and_small(project, tmp_path, monkeypatch):
    monkeypatch.setenv("HARNESS_DOT", "no-such-dot")  # here as on most pip users' machines
    root, info = project
    seen: list[tuple[int, int]] = []

    class Bar:  # what write_graph asks of rich's Progress
        def add_task(self, *_a, **_k):
            return 1

        def update(self, _task, **kw):
            if kw.get("total"):
                seen.append((kw["completed"], kw["total"]))

    out = tmp_path / "g.html"
    summary = write_graph(root / "Gen", out, progress=Bar())
    assert summary["layout"] == "layered" and summary["nodes"] == info["nodes"]
    assert out.stat().st_size <= 5_000_000
    assert seen and seen[-1][0] == seen[-1][1] and len(seen) > info["files"] // 2
    html = out.read_text()
    start = html.index('id="graph-data" type="application/json">') + len(
        'id="graph-data" type="application/json">')
    data = json.loads(html[start:html.index("</script>", start)].replace("<\\/", "</"))
    lay = data["layout"]
    assert lay["width"] < 4 * lay["height"] and lay["height"] < 4 * lay["width"]
    for n in data["nodes"]:  # every node inside its module's box
        x, y, w, h = lay["clusters"][n["module"]]
        assert x <= n["x"] - n["w"] / 2 and n["x"] + n["w"] / 2 <= x + w + 0.5
        assert y <= n["y"] - n["h"] / 2 and n["y"] + n["h"] / 2 <= y + h + 0.5
    at = {n["key"]: n for n in data["nodes"]}
    for e in data["edges"]:  # dependencies above their users, every edge drawn
        assert at[e["source"]]["y"] < at[e["target"]]["y"] and e["d"].startswith("M")
    for key in ("box", "collapsed"):  # module boxes apart, expanded and collapsed
        rects = sorted(g[key] for g in data["modules"])
        for i, (x, y, w, h) in enumerate(rects):
            for x2, y2, w2, h2 in rects[i + 1:]:
                if x2 >= x + w:
                    break
                assert y2 >= y + h or y >= y2 + h2
    # the collapsed view: every edge between modules points down, and it fits far better
    cbox = {g["name"]: g["collapsed"] for g in data["modules"]}
    for e in data["module_edges"]:
        assert cbox[e["source"]][1] < cbox[e["target"]][1] and e["dc"].startswith("M")
    c = lay["collapsed"]
    assert c["width"] * c["height"] < lay["width"] * lay["height"] / 5
    # ... as wide as its widest row (it scrolls down, never sideways), labels without the
    # prefix every module shares
    rows: dict[float, list[float]] = {}
    for g in data["modules"]:
        rows.setdefault(g["collapsed"][1], []).append(g["collapsed"][2])
    widest = max(sum(ws) + 12 * (len(ws) - 1) for ws in rows.values())
    assert widest <= c["width"] <= widest + 2 * 20 + 1
    assert all(g["short"] == g["name"].removeprefix("Gen.") for g in data["modules"])


def test_cli_shows_a_progress_bar_in_a_terminal(project, tmp_path):
    root, _ = project
    out = tmp_path / "g.html"
    pid, fd = pty.fork()
    if pid == 0:  # the child: the harness on a terminal
        os.chdir(ROOT)
        os.environ.update(PYTHONPATH=str(ROOT), HARNESS_DOT="no-such-dot", COLUMNS="120")
        os.execv(sys.executable, [sys.executable, "-m", "harness", "graph", str(root / "Gen"),
                                  "-o", str(out)])
    text = b""
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                text += chunk
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0, text[-2000:]
    shown = text.decode(errors="replace")
    # the phases that last long enough are drawn (rich refreshes ~10 times a second: the
    # layered layout of 1 000 nodes can take less than one refresh)
    assert "analysing" in shown and ("laying out" in shown or "writing html" in shown), \
        shown[-2000:]
    assert f"wrote {out}" in shown and "9185 ordinary declarations folded" in shown


def test_graph_json_cli_is_layout_free_and_layout_flag_adds_one(project, tmp_path):
    root, _ = project
    r = subprocess.run([sys.executable, "-m", "harness", "graph", str(root / "Gen"), "-o",
                        str(tmp_path / "g.json"), "--layout", "layered", "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=280,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["layout"] == "layered"
    data = json.loads((tmp_path / "g.json").read_text())
    assert all("x" in n for n in data["nodes"]) and data["layout"]["engine"] == "layered"
