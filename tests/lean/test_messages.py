"""Parsing Lean's output: `lean --json`, REPL messages, `lake build` logs, sorry and axioms."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from harness.lean.messages import (
    Message, forbidden_axioms, from_json, is_sorry, normalise_path, parse_axioms,
    parse_lake_log, parse_lean_json, strip_ansi, try_this,
)
from tests.lean.conftest import FIXTURES
from tests.support.fakelean import FAKE_LAKE, fake_env, make_workspace


def test_recorded_v4_31_lines() -> None:
    msgs, other = parse_lean_json((FIXTURES / "lean_json_v4_31.jsonl").read_text(encoding="utf-8"))
    assert other == []
    assert [m.severity for m in msgs] == ["warning", "error"] + ["information"] * 4
    assert is_sorry(msgs[0]) and not is_sorry(msgs[1])
    assert msgs[1].kind == "lean.unknownIdentifier._namedError"
    assert (msgs[1].pos.line, msgs[1].pos.col, msgs[1].end_pos.col) == (3, 27, 50)
    reports = [parse_axioms(m) for m in msgs[2:]]
    assert [r.name for r in reports] == ["Empiricist.connected_edge_bound", "Empiricist.scaffold_true",
                                        "Empiricist.scaffold_true", "Empiricist.nd"]
    assert reports[0].forbidden == [] and reports[1].axioms == []
    assert reports[2].forbidden == ["sorryAx"]
    assert reports[3].forbidden == ["Empiricist.nd._native.native_decide.ax_1_1"]


def test_old_messages_without_kind_or_end() -> None:
    msgs, _ = parse_lean_json((FIXTURES / "lean_json_old.jsonl").read_text(encoding="utf-8"))
    sorry, heartbeat = msgs
    assert sorry.kind is None and sorry.end_pos is None and is_sorry(sorry)
    assert heartbeat.is_error and "maximum number of heartbeats" in heartbeat.data
    grind, _ = parse_lean_json((FIXTURES / "lean_json_grind.jsonl").read_text(encoding="utf-8"))
    assert grind[0].kind == "[anonymous]" and grind[0].file == "/tmp/test.lean"


@pytest.mark.parametrize("data,kind,expected", [
    ("declaration uses 'sorry'", None, True),  # Lean <= 4.27
    ("declaration uses `sorry`", None, True),  # Lean >= 4.28
    ("declaration uses `sorry`", "hasSorry", True),
    ("anything at all", "hasSorry", True),  # kind wins over text
    ("declaration uses sorry", None, False),
    ("unused variable `sorry`", "linter.unusedVariables", False),
])
def test_sorry_detection(data: str, kind: str | None, expected: bool) -> None:
    m = Message(pos={"line": 1, "col": 0}, severity="warning", data=data, kind=kind)
    assert is_sorry(m) is expected


def test_sorry_text_in_an_error_is_not_a_sorry_warning() -> None:
    m = Message(pos={"line": 1, "col": 0}, severity="error", data="declaration uses 'sorry'")
    assert not is_sorry(m)


def test_repl_message_info_and_null_end() -> None:
    m = from_json({"severity": "info", "pos": {"line": 2, "column": 3}, "endPos": None, "data": "x"})
    assert m.severity == "information" and m.end_pos is None and m.file is None
    with pytest.raises(ValueError):
        from_json({"env": 0})
    with pytest.raises(ValueError):
        from_json({"severity": "fatal", "pos": {"line": 1, "column": 0}, "data": "x"})


@given(st.permutations(["caption", "data", "endPos", "fileName", "isSilent", "keepFullRange",
                        "kind", "pos", "severity"]))
def test_any_key_order(order: list[str]) -> None:
    full = json.loads((FIXTURES / "lean_json_v4_31.jsonl").read_text(encoding="utf-8").splitlines()[1])
    line = json.dumps({k: full[k] for k in order})
    (m,), other = parse_lean_json(line + "\n")
    assert other == [] and m.data == "Unknown identifier `rfl_this_is_not_a_thing`"


def test_non_json_lines_are_kept_apart() -> None:
    good = (FIXTURES / "lean_json_v4_31.jsonl").read_text(encoding="utf-8").splitlines()[0]
    text = f"info: downloading component 'lean'\n{good}\n[1, 2]\n{{broken\n\n\"str\"\n"
    msgs, other = parse_lean_json(text)
    assert len(msgs) == 1 and other == ["info: downloading component 'lean'", "[1, 2]", "{broken",
                                         '"str"']
    assert parse_lean_json("") == ([], [])


def test_axiom_report_forms() -> None:
    assert parse_axioms("'A.b' does not depend on any axioms").axioms == []
    r = parse_axioms("'A.b' depends on axioms: [propext, sorryAx, Classical.choice, Lean.ofReduceBool,"
                     " Quot.sound, A.myAxiom]")
    assert r.name == "A.b"
    assert r.forbidden == ["sorryAx", "Lean.ofReduceBool", "A.myAxiom"]
    assert parse_axioms("declaration uses `sorry`") is None
    assert forbidden_axioms(["propext", "Classical.choice", "Quot.sound"]) == []


def test_normalise_paths() -> None:
    assert normalise_path("././././Pkg/F.lean") == "Pkg/F.lean"
    assert normalise_path(".\\.\\.\\.\\Pkg\\Sub\\F.lean") == "Pkg/Sub/F.lean"
    assert normalise_path("/abs/F.lean") == "/abs/F.lean"


def test_recorded_lake_logs() -> None:
    ok = parse_lake_log((FIXTURES / "lake_build_sorry_ok.log").read_text(encoding="utf-8"))
    assert ok.succeeded and not ok.build_failed and ok.built == ["PSL.MPT", "PSL.Ledger"]
    (w,) = ok.messages
    assert (w.file, w.pos.line, w.pos.col, is_sorry(w)) == ("PSL/MPT.lean", 49, 8, True)
    bad = parse_lake_log((FIXTURES / "lake_build_windows_fail.log").read_text(encoding="utf-8"))
    assert bad.build_failed and bad.failed_modules == ["MathEvidence.Core.ExprSerialize"]
    assert bad.lean_exit_codes == [1]
    (e,) = bad.messages
    assert e.file == "MathEvidence/Core/ExprSerialize.lean" and e.pos.line == 49
    assert e.data == "unexpected token 'prefix'; expected '=>'"


def test_lake_log_continuations_ansi_and_old_paths() -> None:
    log = ("\x1b[33m⚠ [1/2] Built Pkg.A (0.4s)\x1b[0m\n"
           "\x1b[33mwarning:\x1b[0m ././././Pkg/A.lean:3:8: declaration uses 'sorry'\n"
           "✖ [2/2] Building Pkg.B\n"
           "error: ././././Pkg/B.lean:7:2: unsolved goals\n"
           "x : Nat\n"
           "⊢ x = x\n"
           "\n"
           "info: ././././Pkg/B.lean:9:0: 'Pkg.b' depends on axioms: [sorryAx]\n"
           "error: Lean exited with code 1\n"
           "Some builds logged failures:\n"
           "- Pkg.B\n"
           "error: build failed\n")
    res = parse_lake_log(log)
    assert strip_ansi("\x1b[1;31mred\x1b[0m") == "red"
    assert [m.severity for m in res.messages] == ["warning", "error", "information"]
    assert res.messages[1].data == "unsolved goals\nx : Nat\n⊢ x = x"
    assert res.messages[0].file == "Pkg/A.lean"
    assert parse_axioms(res.messages[2]).forbidden == ["sorryAx"]
    assert res.failed_modules == ["Pkg.B"] and res.build_failed and res.lean_exit_codes == [1]


@pytest.mark.parametrize("paths, style", [("", ""), ("old", "old"), ("windows", ""),
                                          ("", "old")])
def test_fake_lake_build_log_round_trip(tmp_path: Path, paths: str, style: str) -> None:
    ws = make_workspace(tmp_path / "ws", {
        "Pkg/A.lean": "theorem a : 1 = 1 := rfl\n",
        "Pkg/B.lean": "theorem b (n : Nat) : n = n := by\n  sorry\n",
        "Pkg/C.lean": "theorem c : 2 = 2 := by\n  fake_heartbeat\n\ntheorem d : 1 = 1 := bogus\n",
    })
    res = subprocess.run([sys.executable, str(FAKE_LAKE), "build"], cwd=ws, capture_output=True,
                         text=True, timeout=60, env=fake_env(FAKE_LAKE_PATHS=paths, FAKE_LAKE_ANSI="1",
                                                             FAKE_LAKE_LOG=style))
    assert res.returncode == 1
    log = parse_lake_log(res.stdout)
    assert log.failed_modules == ["Pkg.C"] and log.build_failed and not log.succeeded
    assert log.failed and log.lean_exit_codes == ([1] if style == "old" else [])
    assert log.built == ["Pkg.A", "Pkg.B", "Pkg.C"]
    assert [(m.file, m.pos.line, m.pos.col, m.severity) for m in log.messages] == [
        ("Pkg/B.lean", 1, 8, "warning"), ("Pkg/C.lean", 2, 2, "error"), ("Pkg/C.lean", 4, 21, "error")]
    assert "maximum number of heartbeats (200000)" in log.messages[1].data
    assert log.messages[1].data.count("\n") >= 2  # multi-line message kept whole
    wfail = subprocess.run([sys.executable, str(FAKE_LAKE), "build", "Pkg.B", "--wfail"], cwd=ws,
                           capture_output=True, text=True, timeout=60, env=fake_env())
    assert wfail.returncode == 1 and parse_lake_log(wfail.stdout).failed_modules == ["Pkg.B"]


# ----------------------------------------------------------------------------- #19.6: current shapes

def test_current_lake_logs_without_exit_code_lines() -> None:
    d = parse_lake_log((FIXTURES / "lake_build_targets_fail.log").read_text(encoding="utf-8"))
    assert d.failed_modules == ["Axiward.Proofs"] and d.lean_exit_codes == [] and d.failed
    assert d.built == ["Axiward.Proofs", "Main"]
    (err,) = [m for m in d.messages if m.is_error]
    assert (err.file, err.pos.line, err.pos.col) == ("Axiward/Proofs.lean", 14, 81)
    assert err.data.endswith("⊢ item :: q.items = q.items ++ [item]")
    c = parse_lake_log((FIXTURES / "lake_build_bad_import.log").read_text(encoding="utf-8"))
    assert c.failed_modules == ["Proofs.GreensTheoremOQ01OQ01OQ02", "Mathlib.Logic.Equiv.Fin"]
    bad_import, missing = [m for m in c.messages if m.is_error]
    assert bad_import.file == "Proofs/GreensTheoremOQ01OQ01OQ02.lean"
    assert bad_import.data.startswith("bad import 'Mathlib.MeasureTheory")
    assert missing.file is None and missing.data.endswith("Mathlib/Logic/Equiv/Fin.lean")
    e = parse_lake_log((FIXTURES / "lake_build_failed_first.log").read_text(encoding="utf-8"))
    assert e.build_failed and e.failed and e.failed_modules == [
        "GroupApproximation.Analysis.STW22ConditionalNegativeSolution"]
    ok = parse_lake_log((FIXTURES / "lake_build_sorry_ok.log").read_text(encoding="utf-8"))
    assert not ok.failed


@pytest.mark.parametrize("data, expected", [
    ("Try this: exact Nat.add_comm a b", ["exact Nat.add_comm a b"]),
    ("Try this:\n  [apply] exact Nat.le_trans h₁ h₂", ["exact Nat.le_trans h₁ h₂"]),
    ("Try these:\n • simp only [foo]\n • omega", ["simp only [foo]", "omega"]),
    ("Try these:\n  [apply] expensive_meta_tactic\n  [apply] exact CustomGoal.mk✝",
     ["expensive_meta_tactic", "exact CustomGoal.mk✝"]),
    # a suggestion over several lines, nested lines deeper: every line loses the block's indent
    ("Try this:\n  [apply] theorem all_two : ∀ (n : ℕ), n = 2 := by\n      intro n\n"
     "      have all_one_lemma_again : n = 1 := by assumption\n      assumption",
     ["theorem all_two : ∀ (n : ℕ), n = 2 := by\n    intro n\n"
      "    have all_one_lemma_again : n = 1 := by assumption\n    assumption"]),
    # several commands at the block's indentation are one suggestion
    ("Try this:\n  [apply] #grind_lint check  (min := 20) in BitVec\n"
     "  #grind_lint inspect BitVec.append_assoc",
     ["#grind_lint check  (min := 20) in BitVec\n#grind_lint inspect BitVec.append_assoc"]),
    # what follows the block (less indented) is not part of it
    ("Try this:\n  [apply] refine ⟨?_, ?_⟩\n  · simp\n\nRemaining subgoals:\n⊢ False",
     ["refine ⟨?_, ?_⟩\n· simp"]),
    ("unsolved goals", []),
])
def test_try_this_shapes(data: str, expected: list[str]) -> None:
    assert try_this(data) == expected


def test_portfolio_rechecks_a_multi_line_suggestion_as_lean_meant_it(tmp_path: Path,
                                                                      monkeypatch) -> None:
    """`aesop?` on the double prints a multi-line `[apply]` block (tests/fakes/_fakeio.py); the
    recorded proof is the block dedented as a whole, not only its first line."""
    from harness.agents.tactics import run_portfolio
    from harness.agents.tools import ProveTools
    from harness.blueprint.source import parse_file
    from harness.lean.toolchain import find_toolchain

    monkeypatch.setenv("HARNESS_LAKE", str(FAKE_LAKE))
    ws = make_workspace(tmp_path / "ws", {"Demo.lean": "theorem t (n : Nat) : n = n := by\n"
                                                       "  sorry\n"})
    tc = find_toolchain(ws)
    tools = ProveTools(parse_file(ws / "Demo.lean"), "t", workspace=ws, toolchain=tc)
    res = run_portfolio(tools, ["aesop?"])
    assert res.status == "proved"
    assert res.body == ("by\n  intro h\n  induction h with\n  | zero => simp\n"
                        "  | succ n ih =>\n    simp_all")
