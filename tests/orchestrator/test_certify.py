"""A node is proved only when Lean's axiom report says so (issue 14, hole 1).

The fake Lean sees what real Lean sees and the text does not name (tests/fakes/README.md rule 8):
`simp` uses every earlier `@[simp]` lemma, `h.symm` uses `h`, `open NS in` inside a body resolves
names in NS. Each attack below is a node whose text looks complete and whose static dependencies
are all proved, while Lean's `#print axioms` shows `sorryAx`.
"""

from __future__ import annotations

import json
from pathlib import Path

import git

from harness.blueprint.dag import analyse
from harness.blueprint.parse import parse_text
from harness.orchestrator.certify import (Certification, apply_lean_view, contradictions,
                                          reopen, reopened_events)
from harness.orchestrator.events import read_events
from harness.orchestrator.state import run_dir
from tests.orchestrator.support import fake_certifier, run_session, scripted_runner, workspace
from tests.orchestrator.test_run_cli import config, harness
from tests.support.llm_server import ScriptedLLM, text

SIMP = '''import Architect

namespace H

/-- A `@[simp]` lemma that is not a blueprint node, its proof a placeholder. -/
@[simp] theorem seven : (7 : Nat) = 7 := by
  sorry

@[blueprint "lem:target"
  (statement := /-- Seven is seven. -/)
  (latexEnv := "lemma")]
theorem target : (7 : Nat) = 7 := by
  sorry

end H
'''


def test_run_does_not_count_a_node_resting_on_a_hidden_placeholder(tmp_path) -> None:
    """End to end through `python -m harness run`: the prover answers `by simp`, the gate
    accepts it (sorryAx only through a dependency), the static DAG calls the node proved — and
    the final certification re-opens it, names the hidden edge, and the run exits 1."""
    f = workspace(tmp_path, SIMP)
    ws = f.parent.parent
    with ScriptedLLM(lambda req: text("```lean\nby simp\n```")) as srv:
        config(ws, srv.base_url, workers=1, batch_window=0.05, max_attempts=2)
        out = harness(["run", str(f), "--json"], ws)
    assert out.returncode == 1, out.stdout + out.stderr
    res = json.loads(out.stdout)
    assert res["stop_reason"] != "all nodes proved"
    node = res["nodes"]["lem:target"]
    assert node["status"] == "open"
    assert "sorryAx" in node["reason"] and "`H.seven`" in node["reason"], node
    assert "by simp" in f.read_text()  # the proof is in the record: it waits for `seven`
    merges = [c for c in git.Repo(ws).iter_commits() if "Harness-Batch:" in c.message]
    assert merges  # the gate merged it (relative to its dependencies) ...
    events = read_events(run_dir(ws, f) / "events.jsonl").events
    re_ = [e for e in events if e["kind"] == "reopened"]
    assert [(e["node"], e["culprits"]) for e in re_] == [("lem:target", ["H.seven"])]
    cert = [e for e in events if e["kind"] == "certified"]
    assert cert and cert[-1]["contradicted"] == ["lem:target"]
    assert "sorryAx" in cert[-1]["dirty"]["lem:target"]


def test_clean_run_exits_0_only_after_certification(tmp_path) -> None:
    f = workspace(tmp_path, SIMP.replace("(7 : Nat) = 7 := by\n  sorry\n\n@[blueprint",
                                         "(7 : Nat) = 7 := rfl\n\n@[blueprint", 1))
    s, res = run_session(f, scripted_runner(lambda j: "by simp"))
    assert res.exit_code == 0 and res.stop_reason == "all nodes proved"
    events = read_events(s.dir / "events.jsonl").events
    cert = [e for e in events if e["kind"] == "certified"]
    assert cert and cert[-1]["commit"] == res.final_commit and "lem:target" in cert[-1]["clean"]


def test_without_a_certifier_the_run_cannot_exit_0(tmp_path) -> None:
    from harness.orchestrator.run import Session
    from harness.orchestrator.runmodels import RunSettings, Services
    from tests.orchestrator.support import lean_gate

    f = workspace(tmp_path, SIMP.replace("(7 : Nat) = 7 := by\n  sorry\n\n@[blueprint",
                                         "(7 : Nat) = 7 := rfl\n\n@[blueprint", 1))
    s = Session(f, RunSettings(stage="2", batch_window=0.05))
    res = s.run(lambda sess, rec: Services(runner=scripted_runner(lambda j: "by simp"),
                                           make_gate=lambda: lean_gate(rec)))
    assert res.exit_code == 3 and "final certification" in res.stop_reason


FIELD = '''import Architect

namespace H

@[blueprint "lem:base"
  (statement := /-- Placeholder. -/)]
theorem base : (1 : Nat) = 1 := by
  sorry

@[blueprint "lem:sym"
  (statement := /-- Uses `base` through a field access. -/)]
theorem sym : (1 : Nat) = 1 := base.symm

namespace Inner

@[blueprint "lem:inner"
  (statement := /-- Placeholder in a namespace. -/)]
theorem inner_fact : (2 : Nat) = 2 := by
  sorry

end Inner

@[blueprint "lem:opened"
  (statement := /-- Reaches `inner_fact` through `open Inner in` inside the body. -/)]
theorem opened : (2 : Nat) = 2 := by
  open Inner in exact inner_fact

end H
'''


def test_field_access_and_open_in_are_hidden_edges_lean_reveals(tmp_path) -> None:
    """`base.symm` and `open Inner in exact inner_fact`: the DAG misses both uses, Lean's
    axiom report contradicts it, and Lean's used constants give the edges back."""
    f = workspace(tmp_path, FIELD)
    from harness.orchestrator.record import Record

    rec = Record(f.parent.parent, f)
    cert = fake_certifier(rec)
    bp = parse_text(FIELD, f)
    a = analyse(bp)
    c = cert.axioms(FIELD)
    assert "sorryAx" in (c.axioms["lem:sym"] or []) and "sorryAx" in (c.axioms["lem:opened"] or [])
    bad = contradictions(a, c)
    # the resolver reads `base.symm` as a projection of `base` (Lean's resolveGlobalName), so
    # the static DAG already has that edge; `open Inner in` inside a body it still misses
    assert a.graph.has_edge("lem:base", "lem:sym") and "lem:sym" not in a.proved
    assert bad == ["lem:opened"]  # the static DAG calls it proved
    used = cert.used(FIELD, ["lem:sym", "lem:opened"])
    assert used == {"lem:sym": ["lem:base"], "lem:opened": ["lem:inner"]}
    for r in reopen(a, c, ["lem:sym", "lem:opened"], used):
        assert r.culprits == used[r.node] and "not named in its text" in r.reason
    events = [{"kind": "reopened", "node": n, "culprits": u, "reason": "x"}
              for n, u in used.items()]
    a2 = analyse(bp)
    assert "lem:opened" in a2.proved
    apply_lean_view(a2, reopened_events(events))
    assert a2.graph.has_edge("lem:inner", "lem:opened") and "lem:opened" not in a2.proved
    # once Lean certifies the node clean, the re-opening is over
    assert reopened_events(events + [{"kind": "certified", "clean": ["lem:sym"]}]).keys() == {
        "lem:opened"}


def test_a_contradiction_without_a_named_culprit_blocks_the_node() -> None:
    bp = parse_text(SIMP.replace("by\n  sorry\n\nend H", "by simp\n\nend H"), Path("H.lean"))
    a = analyse(bp)
    c = Certification({"lem:target": ["propext", "sorryAx"]})
    assert contradictions(a, c) == ["lem:target"]
    (r,) = reopen(a, c, ["lem:target"], {"lem:target": []})
    assert r.culprits == [] and "names no unproved declaration" in r.reason
    (r,) = reopen(a, c, ["lem:target"], {})
    assert "could not list" in r.reason
    apply_lean_view(a, {"lem:target": {"culprits": []}})
    assert "lem:target" not in a.proved


def test_lean_backed_is_the_latest_word_of_lean() -> None:
    from harness.orchestrator.certify import lean_backed

    evs = [{"kind": "certified", "clean": ["a", "b"], "dirty": {"c": ["sorryAx"]}},
           {"kind": "reopened", "node": "b"},
           {"kind": "certified", "clean": ["c"], "dirty": {"a": ["sorryAx"]}},
           {"kind": "merged", "nodes": ["d"]}]  # merged by the gate is not certified
    assert lean_backed(evs) == {"c"}
    assert lean_backed(evs[:1]) == {"a", "b"} and lean_backed([]) == set()


def test_a_clean_certification_that_misses_a_node_cannot_exit_0(tmp_path) -> None:
    """The DAG says every node is proved and Lean's report is clean but has nothing for one
    node: that node is not proved, and the run cannot certify (exit 3)."""
    from harness.orchestrator.run import Session
    from harness.orchestrator.runmodels import RunSettings, Services
    from tests.orchestrator.support import lean_gate

    f = workspace(tmp_path, SIMP.replace("(7 : Nat) = 7 := by\n  sorry\n\n@[blueprint",
                                         "(7 : Nat) = 7 := rfl\n\n@[blueprint", 1))

    class Forgetful:  # Lean's answer without one node (a report Lean did not give)
        def __init__(self, real) -> None:
            self.real, self.dropped = real, None

        def axioms(self, text):
            cert = self.real.axioms(text)
            self.dropped = self.dropped or sorted(cert.axioms)[-1]
            return Certification({k: v for k, v in cert.axioms.items() if k != self.dropped},
                                 cert.errors)

        def used(self, *args, **kw):
            return self.real.used(*args, **kw)

    certifiers = []

    def services(sess, rec):
        certifiers.append(Forgetful(fake_certifier(rec)))
        return Services(runner=scripted_runner(lambda j: "by simp"),
                        make_gate=lambda: lean_gate(rec), certifier=certifiers[-1])

    res = Session(f, RunSettings(stage="2", batch_window=0.05)).run(services)
    dropped = certifiers[0].dropped
    assert res.exit_code == 3, res.stop_reason
    assert res.stop_reason == "no axiom report of Lean confirms 1 complete node(s)"
    node = res.nodes[dropped]
    assert node.status == "open"
    assert node.reason.endswith("Lean's final certification gave no clean report for it")
    assert res.counts["proved"] == len(res.nodes) - 1
