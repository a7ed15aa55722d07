"""Split mode of the scope check (``verify(..., allow_splits=…)``): the repair role's split — new
placeholder nodes directly before the node, its body a `sorry_using` naming them — passes; every
way of smuggling something else in through a "split" is rejected."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.blueprint import parse_text
from harness.blueprint.write import apply_edit, insert_before, replace_body
from harness.gate.lock import Lock
from harness.gate.verify import verify
from harness.lean.toolchain import Toolchain
from tests.gate.corpus import BASE

NODE = "lem:double-succ"
PH = '''@[blueprint "lem:double-succ-unfold"
  (statement := /-- $d(n+1) = (n+1)+(n+1)$. -/)
  (latexEnv := "lemma")]
theorem double_succ_unfold (n : Nat) : double (Nat.succ n) = Nat.succ n + Nat.succ n := by
  sorry'''
PH2 = '''@[blueprint "lem:double-succ-arith"
  (statement := /-- $(n+1)+(n+1) = d(n) + 2$. -/)
  (latexEnv := "lemma")]
theorem double_succ_arith (n : Nat) : Nat.succ n + Nat.succ n = double n + 2 := by
  sorry_using [double_succ_unfold, double_eq]'''
SPLIT_BODY = "by\n  sorry_using [double_succ_unfold]"
COMPLETE = "theorem double_aux (n : Nat) : n + n = 2 * n := by\n  omega"


def split(helpers: str, body: str = SPLIT_BODY, label: str = NODE, text: str = BASE) -> str:
    return apply_edit(parse_text(text), label, body, helpers)


def gate(new: str, lock: Lock, *, splits=(NODE,), allow=(), **kw):
    return verify(new, "Base.lean", lock, base_text=BASE, allow=set(allow),
                  allow_splits=set(splits), static_only=kw.pop("static_only", True), **kw)


LEGIT = {
    "one-placeholder": split(PH),
    "two-placeholders-chained": split(PH + "\n\n" + PH2,
                                      "by\n  sorry_using [double_succ_unfold, double_succ_arith, "
                                      "double_eq]"),
    "placeholder-and-complete-helper": split(COMPLETE + "\n\n" + PH,
                                             "by\n  sorry_using [double_aux, double_succ_unfold]"),
    "plain-sorry-body": split(PH, "by\n  sorry"),
    "term-mode-sorry-using": split(PH, "sorry_using [double_succ_unfold]"),
    "no-placeholder-just-a-proof": split("", "by\n  unfold double\n  omega"),
}


@pytest.mark.parametrize("name", sorted(LEGIT))
def test_legit_split_passes(name: str, base_lock: Lock) -> None:
    r = gate(LEGIT[name], base_lock)
    assert r.exit_code == 0 and r.passed, [f.render() for f in r.failures]
    assert "scope" in r.checks


def test_split_is_rejected_without_split_mode(base_lock: Lock) -> None:
    r = gate(LEGIT["one-placeholder"], base_lock, splits=(), allow=(NODE,))
    assert r.exit_code == 1
    assert any(f.check == "scope" and "must be complete" in f.message for f in r.failures)


def test_legit_split_passes_the_fake_lean(base_lock: Lock, fake_tc: Toolchain,
                                          workspace: Path) -> None:
    new = LEGIT["two-placeholders-chained"]
    r = verify(new, workspace / "Base.lean", base_lock, base_text=BASE,
               allow_splits={NODE}, lean=fake_tc, workspace=workspace, timeout_s=60)
    assert r.exit_code == 0 and r.lean_status == "passed", [f.render() for f in r.failures]


ph = PH.replace  # a variant of the placeholder
CHEATS: dict[str, tuple[str, tuple[str, str | None, str]]] = {
    # (new text, (check, rule, substring of one expected failure message))
    "changes-the-node-statement": (
        split(PH).replace("double (Nat.succ n) = double n + 2", "double (Nat.succ n) = double n + 3"),
        ("scope", None, "only the body of an allowed node may change")),
    "placeholder-far-away": (
        insert_before(parse_text(replace_body(parse_text(BASE), NODE, SPLIT_BODY)), "thm:small", PH),
        ("scope", None, "outside the allowed nodes")),
    "placeholder-after-the-node": (
        insert_before(parse_text(replace_body(parse_text(BASE), NODE, SPLIT_BODY)),
                      "lem:count-append", PH),
        ("scope", None, "outside the allowed nodes")),
    "non-placeholder-def": (
        split("def helper_def : Nat := 3\n\n" + PH),
        ("scope", None, "helpers must be theorems, lemmas or examples")),
    "sorry-def": (
        split("def helper_def : Nat := sorry\n\n" + PH),
        ("scope", None, "a split adds theorems or lemmas only")),
    "axiom-helper": (
        split("axiom helper_ax : 1 = 2\n\n" + PH),
        ("forbidden", "axiom", "")),
    "reuses-a-label": (
        split(ph('"lem:double-succ-unfold"', '"lem:double-eq"')),
        ("scope", None, "reuses the label `lem:double-eq`")),
    "reuses-a-name": (
        split(ph("theorem double_succ_unfold", "theorem double_eq"), "by\n  sorry_using [double_eq]"),
        ("scope", None, "is already declared")),
    "two-placeholders-same-label": (
        split(PH + "\n\n" + ph("theorem double_succ_unfold", "theorem double_succ_again")),
        ("scope", None, "reuses the label")),
    "native-decide-helper": (
        split(ph("  sorry", "  native_decide")),
        ("forbidden", "native", "")),
    "sorry-after-tactic-helper": (
        split(ph("  sorry", "  simp [double]; sorry")),
        ("scope", None, "must be complete")),
    "no-statement-field": (
        split(ph("  (statement := /-- $d(n+1) = (n+1)+(n+1)$. -/)\n", "")),
        ("scope", None, "needs a `statement := /-- … -/`")),
    "unannotated-placeholder": (
        split("theorem double_succ_unfold (n : Nat) : double (Nat.succ n) = Nat.succ n + "
              "Nat.succ n := by\n  sorry"),
        ("scope", None, "needs a @[blueprint")),
    "simp-attribute": (
        split(ph('(latexEnv := "lemma")]', '(latexEnv := "lemma"), simp]')),
        ("scope", None, "not allowed (only `blueprint`)")),
    "node-body-a-real-proof": (
        split(PH, "by\n  unfold double\n  omega"),
        ("scope", None, "its body must be `sorry_using [..]`")),
    "node-body-native-decide": (
        split(PH, "by\n  native_decide"),
        ("forbidden", "native", "")),
    "node-names-a-later-node": (
        split(PH, "by\n  sorry_using [double_succ_unfold, double_count]"),
        ("scope", None, "`sorry_using` names `double_count`")),
    "node-names-an-unknown-name": (
        split(PH, "by\n  sorry_using [double_succ_unfold, no_such_lemma]"),
        ("scope", None, "`sorry_using` names `no_such_lemma`")),
    "placeholder-names-a-later-node": (
        split(ph("  sorry", "  sorry_using [double_count]")),
        ("scope", None, "`sorry_using` names `double_count`")),
    "also-edits-another-node": (
        replace_body(parse_text(split(PH)), "thm:small", "by\n  decide"),
        ("scope", None, "outside the allowed nodes")),
    "shadowing-placeholder": (
        split(ph("theorem double_succ_unfold", "theorem Nat.succ"), "by\n  sorry"),
        ("lock", None, "shadows an identifier")),
    "option-command-before": (
        split("set_option autoImplicit true\n\n" + PH),
        ("forbidden", "set_option", "")),
}


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_cheat_via_split_is_rejected(name: str, base_lock: Lock) -> None:
    new, (check, rule, sub) = CHEATS[name]
    assert new != BASE
    r = gate(new, base_lock)
    assert r.exit_code == 1 and not r.passed
    hits = [f for f in r.failures if f.check == check and (rule is None or f.rule == rule)
            and sub in f.message]
    assert hits, [f.render() for f in r.failures]


def test_lock_still_pins_statements_in_split_mode(base_lock: Lock) -> None:
    new, _ = CHEATS["changes-the-node-statement"]
    r = gate(new, base_lock)
    assert any(f.check == "lock" and f.key == NODE and f.message == "statement changed"
               for f in r.failures)


def test_cli_allow_split(tmp_path: Path) -> None:
    from tests.gate.test_cli import base_repo, harness

    ws = base_repo(tmp_path, source=None)
    (ws / "Blueprint/Base.lean").write_text(LEGIT["one-placeholder"], encoding="utf-8")
    args = ("verify", "Blueprint/Base.lean", "--lock", "base.lock.json", "--base", "HEAD",
            "--static-only")
    assert harness(*args, "--allow-split", NODE, cwd=ws).returncode == 0
    plain = harness(*args, "--allow", NODE, cwd=ws)
    assert plain.returncode == 1 and "[scope]" in plain.stderr
    no_base = harness("verify", "Blueprint/Base.lean", "--lock", "base.lock.json",
                      "--allow-split", NODE, cwd=ws)
    assert no_base.returncode == 2 and "--allow-split needs --base" in no_base.stderr


def test_orchestrator_gate_uses_split_mode(tmp_path: Path, fake_tc: Toolchain) -> None:
    """The run's gate (harness.orchestrator.services.LockedGate) checks a repair batch in split
    mode: the scope step runs, for the split node only."""
    from harness.gate.lock import make_lock
    from harness.orchestrator.record import Record
    from harness.orchestrator.services import make_gate
    from tests.support.fakelean import make_workspace

    ws = make_workspace(tmp_path / "run", {"Base.lean": BASE})
    record = Record(ws, ws / "Base.lean")
    g = make_gate(record, make_lock(parse_text(BASE, ws / "Base.lean")), fake_tc, 60)
    ok = g(LEGIT["one-placeholder"], BASE, [NODE], structural=True, splits=[NODE])
    assert ok.passed and ok.certified, ok.messages
    far, _ = CHEATS["placeholder-far-away"]
    bad = g(far, BASE, [NODE], structural=True, splits=[NODE])
    assert not bad.passed and bad.certified and any("[scope]" in m for m in bad.messages)
    # another node of the same batch is a prover's: it may not be split
    other = split(PH.replace("double_succ_unfold", "small_aux").replace("-succ-unfold", "-small"),
                  "by\n  sorry_using [small_aux]", label="thm:small", text=LEGIT["one-placeholder"])
    mixed = g(other, BASE, [NODE, "thm:small"], structural=True, splits=[NODE])
    assert not mixed.passed and mixed.certified
    assert any("[scope]" in m and "small_aux" in m and "must be complete" in m
               for m in mixed.messages), mixed.messages
    record.repo.close()
