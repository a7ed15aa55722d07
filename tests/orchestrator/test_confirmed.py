"""Lean-confirmed edges (issue 22 item 5): every certification keeps Lean's used constants of
each node it elaborated, keyed by the file's content hash, under `.harness/`; plan/status/graph
show them (kind `lean`) from then on and the scheduler uses them. Through the fake Lean, whose
`simp` uses every earlier `@[simp]` declaration (tests/fakes/README.md rule 8)."""

from __future__ import annotations

import json
import subprocess
import sys

from harness.blueprint import confirmed
from harness.blueprint.dag import analyse
from harness.blueprint.parse import parse_text
from harness.blueprint.project import load
from tests.orchestrator.support import ROOT, run_session, scripted_runner, workspace
from tests.orchestrator.test_certify import SIMP

CLEAN = SIMP.replace("(7 : Nat) = 7 := by\n  sorry\n\n@[blueprint",
                     "(7 : Nat) = 7 := rfl\n\n@[blueprint", 1)


def test_a_certification_keeps_the_edges_lean_saw_and_status_shows_them(tmp_path) -> None:
    f = workspace(tmp_path, CLEAN)
    ws = f.parent.parent
    pre = load(f, ws)
    assert "H.seven" not in pre.deps["lem:target"].proof  # the text names no `seven` ...
    s, res = run_session(f, scripted_runner(lambda j: "by simp"))
    assert res.exit_code == 0
    store = json.loads(confirmed.store_path(ws).read_text())
    (entry,) = store["files"]["Blueprint/Demo.lean"]
    assert entry["hash"] == confirmed.digest(f.read_text(encoding="utf-8"))
    assert entry["nodes"]["lem:target"]["uses"] == ["H.seven"]  # ... Lean's `simp` used it
    r = subprocess.run([sys.executable, "-m", "harness", "status", str(f), "--json"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    node = {n["key"]: n for n in json.loads(r.stdout)["nodes"]}["lem:target"]
    assert node["lean_deps"] == ["H.seven"] and "H.seven" in node["proof_deps"]
    a = load(f, ws)
    assert a.graph.edges["H.seven", "lem:target"]["kinds"] == {"proof", "lean"}


def test_an_answer_outlives_edits_elsewhere_but_not_of_its_own_node(tmp_path) -> None:
    f = workspace(tmp_path, CLEAN.replace("by\n  sorry\n\nend H", "by simp\n\nend H"))
    ws = f.parent.parent
    bp = parse_text(f.read_text(), f)
    confirmed.record(ws, f, bp, {"lem:target": ["H.seven"]})

    def lean_edges(text: str) -> set[str]:
        b = parse_text(text, f)
        found = confirmed.edges(ws, [b])
        a = analyse(b, adjust=confirmed.adjuster(found))
        confirmed.mark(a, found)
        return {u for u, _, k in a.graph.in_edges("lem:target", data="kinds") if "lean" in k}

    assert lean_edges(bp.text) == {"H.seven"}
    other = bp.text.replace("namespace H\n", "namespace H\n\ntheorem extra : True := trivial\n")
    assert lean_edges(other) == {"H.seven"}  # another declaration changed: still Lean's word
    assert lean_edges(bp.text.replace("by simp\n\nend H", "by simp; rfl\n\nend H")) == set()
    store = json.loads(confirmed.store_path(ws).read_text())
    assert store["version"] == confirmed.VERSION


def test_the_scheduler_waits_on_an_edge_only_lean_saw(tmp_path) -> None:
    """With Lean's answer kept, the node that `simp`s through an open placeholder waits for it
    in the work graph, although its text names nothing open."""
    from harness.orchestrator.workgraph import work_graph

    src = SIMP.replace('theorem seven', '@[blueprint "lem:seven"] theorem seven')
    src = src.replace("theorem target : (7 : Nat) = 7 := by\n  sorry",
                      "theorem target : (7 : Nat) = 7 := by\n  sorry\n\n"
                      "@[blueprint \"lem:user\"]\ntheorem user : (7 : Nat) = 7 := by\n  sorry")
    f = workspace(tmp_path, src)
    ws = f.parent.parent
    bp = parse_text(f.read_text(), f)
    h, *_ = work_graph(analyse(bp))
    assert not h.has_edge("lem:seven", "lem:user")
    confirmed.record(ws, f, bp, {"lem:user": ["H.seven"]})
    a = load(f, ws)
    h, *_ = work_graph(a)
    assert h.has_edge("lem:seven", "lem:user") and "lem:user" not in a.leaf_set
