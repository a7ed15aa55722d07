"""Lean's environment decides what a file declares (harness.gate.declared / audit): the fake
Lean reports constants, instances and kernel verdicts that differ from the text (README rule 13),
and each difference rejects the merge; errors anywhere in the file reject it too (class 8)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.blueprint import parse_text
from harness.blueprint.write import apply_edit
from harness.gate.audit import check_text
from harness.gate.declared import Audit, AuditConst
from harness.gate.lock import make_lock
from harness.gate.verify import verify
from harness.lean.toolchain import Toolchain
from tests.gate.corpus import BASE, PROOF
from tests.gate.test_split import PH

NODE = "lem:double-eq"


def gate(new: str, tc: Toolchain, ws: Path, *, base: str = BASE, allow=(NODE,), splits=()):
    lock = make_lock(parse_text(base, ws / "Base.lean"))
    return verify(new, ws / "Base.lean", lock, base_text=base, allow=set(allow),
                  allow_splits=set(splits), lean=tc, workspace=ws, timeout_s=60)


def prove(body: str, helpers: str = "", label: str = NODE, text: str = BASE) -> str:
    return apply_edit(parse_text(text), label, body, helpers)


def lean_lines(r) -> list[str]:
    return [f.render() for f in r.failures if f.check == "lean"]


def audits(tmp_path: Path) -> list[list[str]]:
    log = tmp_path / "fake-calls.log"
    calls = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
    return [c for c in calls if c[0] == "lean" and any(a.endswith("AuditModule.lean") for a in c)]


def test_a_clean_proof_passes_after_the_audit(fake_tc: Toolchain, workspace: Path,
                                              tmp_path: Path) -> None:
    r = gate(prove(PROOF), fake_tc, workspace)
    assert r.exit_code == 0 and r.certified, [f.render() for f in r.failures]
    assert not any("was not read" in n for n in r.notes)
    assert len(audits(tmp_path)) == 2  # the candidate and its base (each compiled with -o)
    r2 = gate(prove("by\n  unfold double\n  simp; omega"), fake_tc, workspace)
    assert r2.exit_code == 0
    assert len(audits(tmp_path)) == 3, "the base's audit is remembered, not recompiled"


# (what Lean sees, hidden from the text in a comment, the static checks pass it) -> the failure
HIDDEN = {
    "hidden-axiom": ("-- fake_hidden_decl axiom Gate.cheat", "axiom `Gate.cheat`"),
    "hidden-theorem": ("-- fake_hidden_decl theorem Gate.sneaky", "new theorem `Gate.sneaky`"),
    "hidden-inductive": ("-- fake_hidden_decl inductive Gate.Nat", "inductive `Gate.Nat`"),
    "hidden-instance": ("-- fake_hidden_instance", "instanceExtension"),
    "hidden-irreducible": ("-- fake_hidden_irreducible", "reducibilityExtraExt"),
    "kernel-rejects": ("-- fake_kernel_reject Gate.double_eq", "the kernel rejects"),
    "type-drift": ("-- fake_type_drift Gate.double_mono", "`Gate.double_mono` differently"),
    "unsafe": ("-- fake_unsafe Gate.double_eq", "`Gate.double_eq` is `unsafe`"),
}


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_what_lean_sees_and_the_text_hides_is_rejected(name: str, fake_tc: Toolchain,
                                                       workspace: Path) -> None:
    hidden, expect = HIDDEN[name]
    new = prove(f"by\n  {hidden}\n  unfold double\n  omega")
    static = gate(new, None, workspace)  # type: ignore[arg-type]
    assert not static.failures, "the static filter cannot see it"
    r = gate(new, fake_tc, workspace)
    assert r.exit_code == 1 and not r.passed, name
    assert any(expect in line for line in lean_lines(r)), lean_lines(r)


def _audit(consts: list[tuple[str, str]], **kw) -> Audit:
    return Audit(module="Base", constants=[AuditConst(name=n, kind=k, type="1")
                                           for n, k in consts], kernel_ok=True, **kw)


def test_the_text_declares_what_lean_does_not_have() -> None:
    bp = parse_text("namespace G\n\ntheorem a : True := trivial\n\ndef b : Nat := 1\n\n"
                    "private theorem c : True := trivial\n\nend G\n")
    full = [("G.a", "theorem"), ("G.b", "def"), ("_private.Base.0.G.c", "theorem")]
    assert check_text(bp, _audit(full)) == []
    (p,) = check_text(bp, _audit(full[1:]))
    assert "no constant `G.a`" in p.message and bp.pos_of(p.offset).line == 3
    msgs = [p.message for p in check_text(bp, _audit([("G.a", "axiom"), *full[1:]]))]
    assert len(msgs) == 2 and "`G.a` is a axiom in Lean's environment, not the `theorem`" in \
        msgs[0] and "an axiom `G.a` the text does not declare" in msgs[1]
    (p,) = check_text(bp, _audit([*full, ("G.Nat", "inductive")]))
    assert "inductive `G.Nat`" in p.message
    (p,) = check_text(bp, _audit([*full, ("G.sneaky", "def")]))
    assert "def `G.sneaky` that no declaration" in p.message
    # the base's own constants are the base comparison's business
    assert check_text(bp, _audit([*full, ("G.Nat", "inductive")]), known={"G.Nat"}) == []
    # what Lean generates is explained by the declaration it belongs to; theorems generated
    # under other names (`@[simps]`' `a_apply`) are left to the base comparison
    assert check_text(bp, _audit([*full, ("G.a.proof_1", "theorem"), ("G.b.eq_1", "theorem"),
                                  ("Base._auxLemma.3", "theorem"), ("G.b_apply", "theorem")])
                      ) == []


def test_a_failing_example_helper_rejects_the_merge(fake_tc: Toolchain,
                                                    workspace: Path) -> None:
    bad = "example : 1 = 1 := by\n  exact bogus_fact"
    r = gate(prove(PROOF, bad), fake_tc, workspace)
    assert r.exit_code == 1 and r.lean_status == "failed"
    assert any("bogus_fact" in line for line in lean_lines(r)), lean_lines(r)
    good = "example : 1 = 1 := by\n  rfl"
    assert gate(prove(PROOF, good), fake_tc, workspace).exit_code == 0


def test_an_ill_typed_split_placeholder_rejects_the_merge(fake_tc: Toolchain,
                                                          workspace: Path) -> None:
    node = "lem:double-succ"
    body = "by\n  sorry_using [double_succ_unfold]"
    ok = prove(body, PH, label=node)
    assert gate(ok, fake_tc, workspace, allow=(), splits=(node,)).exit_code == 0
    bad = prove(body, PH.replace("Nat.succ n + Nat.succ n", "Nat.succ n + fake_elab_mismatch"),
                label=node)
    r = gate(bad, fake_tc, workspace, allow=(), splits=(node,))
    assert r.exit_code == 1, [f.render() for f in r.failures]
    assert any("Application type mismatch" in line for line in lean_lines(r)), lean_lines(r)


@pytest.mark.parametrize("mode", ["fail", "garbage", "cut"])
def test_no_complete_audit_cannot_certify(mode: str, fake_tc: Toolchain, workspace: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_AUDIT", mode)
    r = gate(prove(PROOF), fake_tc, workspace)
    assert r.exit_code == 3 and r.lean_status == "cannot certify" and not r.passed
    assert "audit" in (r.lean_detail or "")


def test_without_a_base_the_text_rules_still_apply(fake_tc: Toolchain, workspace: Path) -> None:
    new = prove(PROOF)
    lock = make_lock(parse_text(new, workspace / "Base.lean"))
    ok = verify(new, workspace / "Base.lean", lock, lean=fake_tc, workspace=workspace)
    assert ok.exit_code == 0, [f.render() for f in ok.failures]
    hidden = new.replace("omega", "omega\n  -- fake_hidden_decl axiom Gate.cheat", 1)
    lock = make_lock(parse_text(hidden, workspace / "Base.lean"))
    r = verify(hidden, workspace / "Base.lean", lock, lean=fake_tc, workspace=workspace)
    assert r.exit_code == 1
    assert any("axiom `Gate.cheat` the text does not declare" in x for x in lean_lines(r))
