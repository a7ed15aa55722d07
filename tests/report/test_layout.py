"""Layout engines (Graphviz dot as a subprocess, igraph's Sugiyama in a child, the layered
engine) and `harness graph` over
several files; no browser needed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.blueprint import parse_text
from harness.blueprint.dag import analyse
from harness.blueprint.generate import generate_blueprint
from harness.errors import UsageError
from harness.report.graph import graph_data
from harness.report.layout import dot_executable, layout
from harness.report.layoutdata import NodeBox

ROOT = Path(__file__).resolve().parents[2]
needs_dot = pytest.mark.skipif(dot_executable() is None,
                               reason="Graphviz `dot` not installed (Debian package graphviz)")


def harness(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300)


def sample(n: int = 80, seed: int = 4):
    a = analyse(parse_text(generate_blueprint(n, seed=seed), "s.lean"))
    boxes = [NodeBox(k, 60 + 7 * len(k), 28, "box" if k.startswith("def:") else "ellipse")
             for k in a.own]
    return a, boxes, list(a.graph.edges)


def check_layout(lay, boxes, edges):
    assert set(lay.centres) == {b.key for b in boxes}
    assert set(lay.edge_paths) == set(edges)
    width = {b.key: b.width for b in boxes}
    rows: dict[float, list[str]] = {}
    for k, (x, y) in lay.centres.items():
        assert 0 <= x <= lay.width and 0 <= y <= lay.height
        rows.setdefault(y, []).append(k)
    for keys in rows.values():  # boxes of one rank never overlap
        keys.sort(key=lambda k: lay.centres[k][0])
        for a, b in zip(keys, keys[1:]):
            assert lay.centres[a][0] + width[a] / 2 <= lay.centres[b][0] - width[b] / 2 + 0.5
    for u, v in edges:  # dependencies above their users
        assert lay.centres[u][1] < lay.centres[v][1]
        assert lay.edge_paths[(u, v)].startswith("M")


@needs_dot
def test_dot_layout():
    _, boxes, edges = sample()
    lay = layout(boxes, edges, engine="dot")
    assert lay.engine == "dot" and lay.note == ""
    check_layout(lay, boxes, edges)
    assert any(" C" in p for p in lay.edge_paths.values())  # dot's splines


@pytest.mark.parametrize("engine", ["igraph", "layered"])
def test_igraph_and_layered_layout(engine):
    _, boxes, edges = sample()
    lay = layout(boxes, edges, engine=engine)
    assert lay.engine == engine, lay.note
    check_layout(lay, boxes, edges)


@pytest.mark.parametrize("engine", [pytest.param("dot", marks=needs_dot), "igraph", "layered"])
def test_modules_are_stacked_imported_first(engine):
    """Three modules, the last one's nodes used by the first: each is a cluster box around its
    nodes, one below the other in import order, so the picture is not one wide strip."""
    _, boxes, edges = sample(90, seed=5)
    mod = {b.key: ("M2", "M0", "M1")[i % 3] for i, b in enumerate(boxes)}
    edges = [(u, v) for u, v in edges if mod[u] == mod[v] or (mod[u], mod[v]) in
             {("M2", "M0"), ("M2", "M1"), ("M0", "M1")}]
    boxes = [NodeBox(b.key, b.width, b.height, b.shape, mod[b.key]) for b in boxes]
    lay = layout(boxes, edges, engine=engine)
    assert lay.engine == engine
    check_layout(lay, boxes, edges)
    assert set(lay.clusters) == {"M0", "M1", "M2"}
    for b in boxes:
        x, y, w, h = lay.clusters[b.cluster]
        cx, cy = lay.centres[b.key]
        assert x <= cx - b.width / 2 and cx + b.width / 2 <= x + w + 0.5
        assert y <= cy - b.height / 2 and cy + b.height / 2 <= y + h + 0.5
    tops = sorted(lay.clusters, key=lambda c: lay.clusters[c][1])
    assert tops == ["M2", "M0", "M1"]
    for a, b in zip(tops, tops[1:]):
        assert lay.clusters[a][1] + lay.clusters[a][3] <= lay.clusters[b][1]


def test_missing_dot_falls_back_to_the_layered_engine(monkeypatch):
    monkeypatch.setenv("HARNESS_DOT", "no-such-dot")
    _, boxes, edges = sample(20)
    lay = layout(boxes, edges)
    assert lay.engine == "layered" and "not found" in lay.note
    with pytest.raises(UsageError, match="dot` not found"):
        layout(boxes, edges, engine="dot")


@pytest.mark.parametrize("script, why", [
    ("#!/bin/sh\nexec sleep 60\n", "timed out"),
    ("#!/bin/sh\necho 'Error: syntax error in line 1' >&2\nexit 1\n", "exit 1: Error"),
    ("#!/bin/sh\ncat >/dev/null\necho not-json\n", "JSONDecodeError"),
])
def test_broken_dot_falls_back(tmp_path, monkeypatch, script, why):
    dot = tmp_path / "dot"
    dot.write_text(script)
    dot.chmod(0o755)
    monkeypatch.setenv("HARNESS_DOT", str(dot))
    _, boxes, edges = sample(20)
    lay = layout(boxes, edges, timeout_s=1.0)
    assert lay.engine == "layered" and why in lay.note
    check_layout(lay, boxes, edges)


@pytest.mark.parametrize("engine", [pytest.param("dot", marks=needs_dot), "layered"])
def test_graph_of_a_workspace_directory(tmp_path, engine):
    out = tmp_path / "g.json"
    r = harness("graph", "Blueprint", "-o", str(out), "--layout", engine)
    assert r.returncode in (0, 1), r.stderr
    data = json.loads(out.read_text())
    files = sorted((ROOT / "Blueprint").rglob("*.lean"))
    assert len(data["files"]) == len(files) >= 2
    modules = {n["module"] for n in data["nodes"]}
    assert modules == {".".join(f.relative_to(ROOT).with_suffix("").parts) for f in files}
    clusters = data["layout"]["clusters"]
    assert set(clusters) == modules
    for n in data["nodes"]:  # every node sits inside its module's cluster box
        x, y, w, h = clusters[n["module"]]
        assert x <= n["x"] <= x + w and y <= n["y"] <= y + h
    # one graph: edges across files are drawn once, between nodes that exist
    keys = {n["key"] for n in data["nodes"]}
    assert len(keys) == len(data["nodes"])
    pairs = [(e["source"], e["target"]) for e in data["edges"]]
    assert len(pairs) == len(set(pairs)) and all(u in keys and v in keys for u, v in pairs)
    cross = [e for e in data["edges"] if
             next(n["module"] for n in data["nodes"] if n["key"] == e["source"]) !=
             next(n["module"] for n in data["nodes"] if n["key"] == e["target"])]
    assert cross  # SLT files use each other's nodes
    # modules are stacked, imported ones above, not set side by side in one wide strip
    lay = data["layout"]
    if engine == "dot":  # dot stacks the modules in one column
        assert lay["width"] < 1.5 * lay["height"], (lay["width"], lay["height"])
        boxes = sorted(clusters.values(), key=lambda c: c[1])
        assert all(a[1] + a[3] <= b[1] for a, b in zip(boxes, boxes[1:]))
    else:  # the layered engine lays the modules out as a graph of boxes: never overlapping
        assert lay["width"] < 3 * lay["height"], (lay["width"], lay["height"])
        boxes = list(clusters.values())
        for i, a in enumerate(boxes):
            for b in boxes[i + 1:]:
                assert (a[0] + a[2] <= b[0] or b[0] + b[2] <= a[0] or a[1] + a[3] <= b[1]
                        or b[1] + b[3] <= a[1]), (a, b)
    for e in cross:
        mod = {n["key"]: n["module"] for n in data["nodes"]}
        assert clusters[mod[e["source"]]][1] < clusters[mod[e["target"]]][1]


def test_graph_of_two_files_and_of_an_empty_directory(tmp_path):
    a = tmp_path / "A.lean"
    b = tmp_path / "B.lean"
    a.write_text('@[blueprint "lem:a"] theorem a : True := trivial\n')
    b.write_text('@[blueprint "lem:b"] theorem b : True := by\n  sorry_using [a]\n')
    out = tmp_path / "g.json"
    r = harness("graph", str(a), str(b), "-o", str(out), "--json")
    assert r.returncode == 1  # b does not import A: its `sorry_using [a]` is dangling
    assert any("`sorry_using` names `a`" in x for x in json.loads(r.stdout)["findings"])
    data = json.loads(out.read_text())
    assert {n["key"] for n in data["nodes"]} == {"lem:a", "lem:b"}
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "Plain.lean").write_text("theorem t : True := trivial\n")
    r = harness("graph", str(empty), "-o", str(tmp_path / "e.html"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no blueprint files" in r.stderr


def test_graph_data_overlays_a_run():
    a, _, _ = sample(30)
    key = a.own[-1]
    data = graph_data(a, run={key: {"status": "blocked", "attempts": 4, "message": "m"}})
    n = next(n for n in data["nodes"] if n["key"] == key)
    assert n["state"] == "blocked" and n["run"]["attempts"] == 4
    assert data["counts"]["blocked"] == 1


def test_auto_uses_the_layered_engine_above_the_dot_limit(monkeypatch):
    import harness.report.layout as layout_mod

    monkeypatch.setattr(layout_mod, "DOT_MAX_NODES", 10)
    _, boxes, edges = sample(30)
    lay = layout(boxes, edges)
    assert lay.engine == "layered" and "--layout dot" in lay.note
    if dot_executable() is not None:
        assert layout(boxes, edges, engine="dot").engine == "dot"
    with pytest.raises(UsageError, match="unknown engine"):
        layout(boxes, edges, engine="neato")


def test_workspace_root_takes_the_module_directories_only(tmp_path):
    r = harness("graph", ".", "-o", str(tmp_path / "g.json"), "--json")
    assert r.returncode in (0, 1), r.stderr
    info = json.loads(r.stdout)
    # the project-wide DAG of the capitalised module folders: Blueprint/ (not tests/fixtures);
    # SLT.lean and Blueprint.lean only import
    assert info["files"] == len(list((ROOT / "Blueprint").rglob("*.lean")))
