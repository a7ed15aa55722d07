"""check_node: a candidate body (and helpers) for one node; positions mapped to the candidate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.blueprint.source import parse_file
from harness.errors import CannotCertify, UsageError
from harness.lean.nodecheck import build_check_text, check_node
from harness.lean.toolchain import Toolchain
from tests.support.fakelean import make_workspace

BP = '''import Std

namespace Demo

@[blueprint "def:double"]
def double (n : Nat) : Nat := n + n

@[blueprint "lem:open"]
theorem double_eq (n : Nat) : double n = 2 * n := by
  sorry

section Inner

@[blueprint "lem:target" (uses := ["lem:open"])]
theorem target (n : Nat) : double n = n * 2 := by
  sorry

@[blueprint "lem:later"]
theorem later : 1 = 1 := by
  exact bogus_never_seen

end Inner
'''


@pytest.fixture
def demo(tmp_path: Path) -> tuple[Path, Path]:
    ws = make_workspace(tmp_path / "ws", {"Demo.lean": BP})
    return ws, ws / "Demo.lean"


def test_candidate_proves_node_modulo_open_dependency(demo, toolchain: Toolchain) -> None:
    ws, f = demo
    bp = parse_file(f)
    v = check_node(toolchain, ws, bp, "lem:target", "by\n  omega", timeout_s=60)
    assert v.status == "proved" and v.accepted_modulo_deps and v.axioms == [
        "propext", "Classical.choice", "Quot.sound"]
    v = check_node(toolchain, ws, bp, "lem:target", "by\n  rw [double_eq]\n  omega", timeout_s=60)
    assert v.status == "sorry" and v.sorry_via_deps and v.accepted_modulo_deps
    assert not v.own_sorry
    assert f.read_text(encoding="utf-8") == BP


def test_error_positions_are_candidate_relative(demo, toolchain: Toolchain) -> None:
    ws, f = demo
    v = check_node(toolchain, ws, parse_file(f), "lem:target",
                   "by\n  simp [double]\n  exact  bogus_fact n", timeout_s=60)
    assert v.status == "error" and not v.accepted_modulo_deps
    (m,) = [m for m in v.messages if m.is_error]
    assert (m.region, m.candidate_line, m.candidate_col) == ("body", 3, 9)
    assert v.first_error == "3:9: Unknown identifier `bogus_fact`" and v.first_error_line == 3


def test_own_sorry_and_heartbeat(demo, toolchain: Toolchain) -> None:
    ws, f = demo
    bp = parse_file(f)
    v = check_node(toolchain, ws, bp, "lem:target", "by\n  admit", timeout_s=60)
    assert v.status == "sorry" and v.own_sorry and not v.accepted_modulo_deps
    (w,) = [m for m in v.messages if m.region != "context"]
    assert w.region == "head" and (w.pos.line, w.pos.col) == (15, 8)  # user-file coordinates
    (c,) = [m for m in v.messages if m.region == "context"]  # `lem:open`'s own sorry, not ours
    assert c.pos.line == 9 and c.is_sorry
    v = check_node(toolchain, ws, bp, "lem:target", "by fake_heartbeat", timeout_s=60)
    assert v.status == "error" and "heartbeats" in v.first_error and v.first_error.startswith("1:3:")


def test_helpers_are_checked_and_mapped(demo, toolchain: Toolchain, tmp_path: Path) -> None:
    ws, f = demo
    bp = parse_file(f)
    helpers = ("theorem helper_ok (n : Nat) : n + n = n * 2 := by\n  omega\n\n"
               "theorem helper_bad : 1 = 1 := by\n  exact bogus_h\n")
    v = check_node(toolchain, ws, bp, "lem:target", "by\n  exact helper_ok n", helpers=helpers,
                   timeout_s=60)
    (m,) = [m for m in v.messages if m.is_error]
    assert (m.region, m.candidate_line, m.candidate_col) == ("helpers", 5, 8)
    assert v.status == "error"
    sorry_helper = "theorem cheat_h (n : Nat) : n + n = n * 2 := by\n  sorry\n"
    v = check_node(toolchain, ws, bp, "lem:target", "by\n  exact cheat_h n", helpers=sorry_helper,
                   timeout_s=60)
    assert v.status == "sorry" and not v.sorry_via_deps and not v.accepted_modulo_deps
    native = "theorem nd_h : 10 < 20 := by native_decide\n"
    v = check_node(toolchain, ws, bp, "lem:target", "by\n  omega", helpers=native, timeout_s=60)
    assert v.status == "axioms"
    assert v.forbidden_axioms == ["Demo.nd_h._native.native_decide.ax_1_1"]


def test_check_text_stops_after_the_node(demo, toolchain: Toolchain, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    ws, f = demo
    bp = parse_file(f)
    text, marks = build_check_text(bp, bp.node("lem:target"), "by\n  omega", "theorem h : 1 = 1 := rfl")
    assert "bogus_never_seen" not in text and "theorem h : 1 = 1 := rfl\n\n@[blueprint" in text
    assert text[marks["body"]:marks["tail"]] == "by\n  omega"
    log = tmp_path / "calls.log"
    monkeypatch.setenv("FAKE_LEAN_LOG", str(log))
    monkeypatch.setenv("HARNESS_KEEP_TMP", "1")
    check_node(toolchain, ws, bp, "lem:later", "rfl", timeout_s=60)
    call = [json.loads(x) for x in log.read_text().splitlines()][-1]
    scratch = (ws / call[-1]).read_text(encoding="utf-8")
    assert scratch.endswith("\n#print axioms _root_.Demo.later\n")  # never an impostor
    assert call[:2] == ["lean", "--json"] and call[-1].startswith(".harness/tmp/")


def test_usage_errors_and_cannot_certify(demo, toolchain: Toolchain) -> None:
    ws, f = demo
    bp = parse_file(f)
    with pytest.raises(UsageError, match="no node or declaration 'nope'"):
        check_node(toolchain, ws, bp, "nope", "rfl")
    v = check_node(toolchain, ws, bp, "Demo.double", "n * 2", timeout_s=60)  # by Lean name
    assert v.key == "def:double" and v.status == "proved"
    with pytest.raises(CannotCertify, match="within 2s"):
        check_node(toolchain, ws, bp, "lem:target", "by\n  fake_hang", timeout_s=2)
