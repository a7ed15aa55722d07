"""`simulate --dag` reads the JSON `graph -o x.json` writes; `bench` says what it is doing."""

from __future__ import annotations

import json

from tests.cli.projects import harness, ordinary_project


def test_simulate_reads_the_graph_json_of_a_generated_project(tmp_path) -> None:
    root = tmp_path / "p"
    info = ordinary_project(root, n_files=20)
    g = tmp_path / "g.json"
    r = harness("graph", ".", "-o", str(g), cwd=root)
    assert r.returncode == 0, r.stderr
    graph = json.loads(g.read_text())
    sim = harness("simulate", "--dag", str(g), "--workers", "4", "--json", cwd=root)
    assert sim.returncode == 0, sim.stderr
    data = json.loads(sim.stdout)
    nodes = {n["key"] for n in graph["nodes"]}
    assert {a["node"] for a in data["attempts"]} == nodes and len(nodes) >= info["nodes"]
    todo = sum(1 for n in graph["nodes"] if n["state"] in ("ready", "open"))
    assert todo and data["total_work"] >= todo * 600.0  # a node to prove takes 600 s


def test_simulate_still_reads_its_own_format(tmp_path) -> None:
    f = tmp_path / "d.json"
    f.write_text(json.dumps({"nodes": [{"id": "a", "duration": 2}, {"id": "b", "duration": 3}],
                             "edges": [["a", "b"]]}))
    r = harness("simulate", "--dag", str(f), "--json", cwd=tmp_path)
    assert r.returncode == 0 and json.loads(r.stdout)["makespan"] == 5.0


def test_bench_shows_progress_on_stderr(tmp_path) -> None:
    r = harness("bench", "parse", "--nodes", "40", "--scale", "2", "--repeat", "1", "--json",
                cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    json.loads(r.stdout)  # stdout: the result only
    lines = r.stderr.splitlines()
    assert lines[0] == "bench parse: 40 nodes (1/2)" and lines[1] == "bench parse: 80 nodes (2/2)"
    assert lines[-1].startswith("bench parse: done in ")
    r = harness("bench", "schedule", "--nodes", "12", "--json", cwd=tmp_path)
    assert r.returncode == 0 and "bench schedule: running" in r.stderr
