"""The prove role's tools against the fake Lean backend."""

from __future__ import annotations

from pathlib import Path

from harness.agents.tools import ProveTools
from harness.blueprint.source import parse_file
from harness.lean.nodecheck import check_node
from harness.lean.toolchain import find_toolchain


def _tools(ws: Path, spy: list | None = None) -> ProveTools:
    def check(*a, **kw):
        if spy is not None:
            spy.append(a[4])
        return check_node(*a, **kw)

    return ProveTools(parse_file(ws / "Demo.lean"), "lem:double_add", workspace=ws,
                      toolchain=find_toolchain(ws), check=check)


def test_check_candidate_reports_candidate_positions_and_caches(demo_ws, fake_lake):
    spy: list[str] = []
    t = _tools(demo_ws, spy)
    out = t.call("check_candidate", {"body": "by\n  simp\n  exact bogus_lemma"})
    assert out.startswith("FAILED (error)")
    assert "body 3:8: error: Unknown identifier `bogus_lemma`" in out
    assert "declaration uses `sorry`" not in out  # earlier declarations' warnings are noise
    assert t.call("check_candidate", {"body": "by omega"}).startswith("OK")
    t.call("check_candidate", {"body": "by omega"})
    assert spy == ["by\n  simp\n  exact bogus_lemma", "by omega"]  # second `by omega` cached
    assert "REJECTED before Lean" in t.call("check_candidate", {"body": "by native_decide"})
    assert len(spy) == 2


def test_goals_at_sorry_traces_each_sorry(demo_ws, fake_lake):
    spy: list[str] = []
    t = _tools(demo_ws, spy)
    out = t.call("goals_at_sorry", {"body": "by\n  constructor\n  · sorry\n  · sorry -- sorry"})
    assert spy == ["by\n  constructor\n  · (trace_state; sorry)\n  · (trace_state; sorry) -- sorry"]
    assert "no goals" in out or "goal at sorry" in out
    assert "has no `sorry`" in t.call("goals_at_sorry", {"body": "by simp"})


def test_lookup_blueprint_and_workspace(demo_ws, fake_lake):
    (demo_ws / "Extra").mkdir()
    (demo_ws / "Extra" / "More.lean").write_text(
        "namespace Extra\n\n/-- doc -/\ntheorem twice_pos (n : Nat) (h : 0 < n) :\n    0 < 2 * n := by\n"
        "  omega\n\nend Extra\n")
    (demo_ws / ".lake").mkdir()
    (demo_ws / ".lake" / "Hidden.lean").write_text("theorem secret_thing : True := trivial\n")
    t = _tools(demo_ws)
    assert "def double (n : Nat) : Nat := 2 * n" in t.call("lookup", {"name": "double"})
    got = t.call("lookup", {"name": "Extra.twice_pos"})
    assert "Extra/More.lean" in got and "0 < 2 * n" in got and "omega" not in got
    assert "not found" in t.call("lookup", {"name": "secret_thing"})
    assert t.call("lookup", {}).startswith("error")
    assert t.call("check_candidate", {"body": 3}).startswith("error")


def test_try_this_suggestions_in_lean_formats():
    from harness.agents.tactics import suggestion
    from harness.lean.messages import LeanPos
    from harness.lean.verdict import LocatedMessage

    def msg(data, region="body", sev="information"):
        return LocatedMessage(pos=LeanPos(line=1, col=3), severity=sev, data=data, region=region)

    assert suggestion([msg("Try this: exact Nat.add_comm a b")]) == "exact Nat.add_comm a b"
    assert suggestion([msg("Try this:\n  [apply] exact Nat.le_refl n")]) == "exact Nat.le_refl n"
    assert suggestion([msg("Try these:\n • simp only [foo]\n • omega")]) == "simp only [foo]"
    assert suggestion([msg("Try this: exact h", region="context")]) is None
    assert suggestion([msg("unsolved goals", sev="error")]) is None


def test_goals_at_sorry_from_the_repl_pool(demo_ws, fake_lake):
    from harness.lean.pool import ReplPool

    tc = find_toolchain(demo_ws)
    bp = parse_file(demo_ws / "Demo.lean")
    with ReplPool(tc.repl(), cwd=demo_ws, timeout_s=30) as pool:
        t = ProveTools(bp, "thm:main", workspace=demo_ws, toolchain=tc, pool=pool)
        out = t.call("goals_at_sorry", {"body": "by\n  rw [double_add]\n  sorry"})
        # one goal: the node's own (the earlier `sorry` in double_add is not reported)
        assert out == "goal at sorry #1:\na : Nat\n⊢ double (a + a) = double a + double a"
        assert "Unknown identifier `bogus_x`" in t.call("goals_at_sorry",
                                                         {"body": "by\n  exact bogus_x"})
        assert t.lean_runs == 0  # the compiler was not needed
