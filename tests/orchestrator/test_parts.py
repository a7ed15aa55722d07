"""A shared label is one node with several bodies: one job per open part (docs/leanarchitect.md)."""

from __future__ import annotations

from harness.agents.context import build_context
from harness.blueprint.dag import analyse
from harness.blueprint.parse import parse_text
from harness.orchestrator.events import read_events
from harness.orchestrator.workgraph import work_graph
from tests.orchestrator.support import run_session, scripted_runner, workspace

SHARED = '''import Architect

namespace P

@[blueprint "def:base" (statement := /-- The base value. -/)]
def base : Nat := 2

@[blueprint "thm:pair" (statement := /-- Two facts about \\cref{def:base}. -/)]
theorem pair_left : base = 2 := by
  sorry

@[blueprint "thm:pair"]
theorem pair_right : 0 < base := by
  sorry

@[blueprint "thm:after" (statement := /-- Uses both halves. -/)]
theorem after : base + 0 = 2 := by
  sorry_using [pair_left, pair_right]

end P
'''


def test_work_graph_has_one_unit_per_open_part_and_dependents_wait_for_all():
    a = analyse(parse_text(SHARED, "Shared.lean"))
    h, work, _, blocked = work_graph(a)
    assert work == ["P.pair_left", "P.pair_right", "thm:after"] and not blocked
    assert set(h.edges) == {("P.pair_left", "thm:after"), ("P.pair_right", "thm:after")}


def test_context_of_a_part_shows_every_part_of_a_shared_dependency():
    bp = parse_text(SHARED, "Shared.lean")
    ctx = build_context(bp, "thm:after", analyse(bp).graph)
    assert ctx.included == ["def:base", "P.pair_left", "P.pair_right"]
    assert "theorem pair_left" in ctx.text and "theorem pair_right" in ctx.text
    part = build_context(bp, "P.pair_right", analyse(bp).graph)
    assert "theorem pair_right : 0 < base" in part.text and "def base" in part.text
    assert "Referenced in the prose (links, not dependencies):\n- def:base" in part.text


def test_run_proves_every_part_and_then_the_node(tmp_path) -> None:
    f = workspace(tmp_path, SHARED, "Shared.lean")
    s, res = run_session(f, scripted_runner(lambda job: "by\n  decide"), workers=2)
    assert res.exit_code == 0 and res.stop_reason == "all nodes proved", res
    assert res.nodes["thm:pair"].status == "proved" and res.nodes["thm:pair"].attempts == 2
    assert res.nodes["thm:after"].status == "proved"
    a = analyse(parse_text(f.read_text(), f))
    assert all(p.status.is_complete for p in a.parts("thm:pair"))
    evs = read_events(s.dir / "events.jsonl").events
    dispatched = [e["node"] for e in evs if e["kind"] == "dispatch"]
    assert sorted(dispatched) == ["P.pair_left", "P.pair_right", "thm:after"]
    seq = {e["node"]: e["seq"] for e in evs if e["kind"] == "dispatch"}
    merged = {n: e["seq"] for e in evs if e["kind"] == "merged" for n in e["nodes"]}
    assert merged["P.pair_left"] < seq["thm:after"] and merged["P.pair_right"] < seq["thm:after"]


def test_check_node_on_a_shared_label_checks_every_part(tmp_path) -> None:
    import json
    import subprocess
    import sys

    from tests.orchestrator.support import ROOT, fake_env

    f = workspace(tmp_path, SHARED, "Shared.lean")
    r = subprocess.run([sys.executable, "-m", "harness", "check", str(f), "--node", "thm:pair",
                        "--json"], capture_output=True, text=True, timeout=120, cwd=ROOT,
                       env=fake_env())
    assert r.returncode == 1, r.stderr  # both parts use sorry
    nodes = json.loads(r.stdout)["nodes"]
    assert [(n["key"], n["status"]) for n in nodes] == [("P.pair_left", "sorry"),
                                                        ("P.pair_right", "sorry")]


def test_run_on_a_file_whose_shared_label_has_an_open_part_elsewhere(tmp_path) -> None:
    import json

    from tests.orchestrator.test_run_cli import harness

    f = workspace(tmp_path, 'import Blueprint.A\nimport Architect\n'
                  '@[blueprint "thm:split"]\ntheorem split_b : True := trivial\n', "B.lean")
    (f.parent / "A.lean").write_text(
        'import Architect\n@[blueprint "thm:split"]\ntheorem split_a : True := by\n  sorry\n')
    out = harness(["run", str(f), "--json"], f.parent.parent)
    assert out.returncode == 1, out.stderr
    res = json.loads(out.stdout)
    assert res["nodes"]["thm:split"] == {
        **res["nodes"]["thm:split"], "status": "open",
        "reason": "rests on unproved nodes of imported files: split_a"}
    assert res["stop_reason"] == ("no work left here: 1 open node rests on unproved nodes "
                                  "(of imported files)")
