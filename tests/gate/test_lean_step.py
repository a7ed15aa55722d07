"""Step 4 through the fake Lean: rejections only a compile can make, and fail-closed behaviour."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.blueprint import parse_text
from harness.blueprint.write import apply_edit, insert_before, replace_body
from harness.errors import CannotCertify
from harness.gate.lock import make_lock
from harness.gate.verify import verify
from harness.lean.toolchain import Toolchain
from tests.gate.corpus import BASE, PROOF


def prove(text: str, label: str, body: str, helpers: str = "") -> str:
    return apply_edit(parse_text(text), label, body, helpers)


def gate(new: str, base: str, allow: set[str], tc, ws: Path, **kw):
    lock = make_lock(parse_text(base, ws / "Base.lean"))
    return verify(new, ws / "Base.lean", lock, base_text=base, allow=allow, lean=tc,
                  workspace=ws, **kw)


def calls(tmp_path: Path) -> list[list[str]]:
    log = tmp_path / "fake-calls.log"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_unknown_identifier_is_a_lean_failure(fake_tc: Toolchain, workspace: Path) -> None:
    new = prove(BASE, "lem:double-eq", "by\n  exact bogus_lemma n")
    r = gate(new, BASE, {"lem:double-eq"}, fake_tc, workspace, static_only=False)
    assert r.exit_code == 1 and r.lean_status == "failed"
    (f,) = [f for f in r.failures if f.check == "lean"]
    assert "bogus_lemma" in f.message and f.key == "lem:double-eq"
    assert new.splitlines()[f.line - 1][f.col:].startswith("bogus_lemma")


def test_heartbeat_error_is_a_lean_failure(fake_tc: Toolchain, workspace: Path) -> None:
    new = prove(BASE, "lem:double-eq", "by\n  fake_heartbeat")
    r = gate(new, BASE, {"lem:double-eq"}, fake_tc, workspace)
    assert r.exit_code == 1 and any("heartbeats" in f.message for f in r.failures)


def test_timeout_cannot_certify(fake_tc: Toolchain, workspace: Path) -> None:
    new = prove(BASE, "lem:double-eq", "by\n  fake_hang")
    r = gate(new, BASE, {"lem:double-eq"}, fake_tc, workspace, timeout_s=2)
    assert r.exit_code == 3 and r.lean_status == "cannot certify" and not r.passed
    assert "did not finish" in (r.lean_detail or "")


def test_crash_cannot_certify(fake_tc: Toolchain, workspace: Path) -> None:
    new = prove(BASE, "lem:double-eq", "by\n  fake_crash")
    r = gate(new, BASE, {"lem:double-eq"}, fake_tc, workspace)
    assert r.exit_code == 3 and not r.certified and not r.passed


def test_runner_raising_cannot_certify_is_exit_3(base_lock) -> None:
    def runner(bp, labels):
        raise CannotCertify("Lean gave no axiom report")
    r = verify(BASE, "Base.lean", base_lock, lean=runner)
    assert r.exit_code == 3 and r.lean_status == "cannot certify"


def test_preexisting_native_decide_poisons_a_new_proof(fake_tc: Toolchain, workspace: Path) -> None:
    # the user's base already had native_decide (the lock allows it to stay), but a proof that
    # uses that node inherits its native-code axiom: only Lean's axiom report can see that
    base = insert_before(parse_text(BASE), "lem:double-eq",
                         "theorem two_add_two : 2 + 2 = 4 := by\n  native_decide")
    new = prove(base, "lem:double-eq", "by\n  have := two_add_two\n  unfold double\n  omega")
    static = gate(new, base, {"lem:double-eq"}, None, workspace, static_only=True)
    assert static.exit_code == 0
    r = gate(new, base, {"lem:double-eq"}, fake_tc, workspace)
    assert r.exit_code == 1
    bad = {f.key for f in r.failures if "native_decide" in f.message}
    assert bad == {"lem:double-eq", "Gate.two_add_two"}


def test_preexisting_admit_in_a_complete_claim_fails_in_lean(fake_tc: Toolchain, workspace: Path) -> None:
    base = replace_body(parse_text(BASE), "thm:small", "by\n  simp\n  admit")
    new = prove(base, "lem:double-eq", PROOF)
    assert gate(new, base, {"lem:double-eq"}, None, workspace, static_only=True).exit_code == 0
    r = gate(new, base, {"lem:double-eq"}, fake_tc, workspace)
    assert r.exit_code == 1
    assert any(f.key == "thm:small" and "sorry" in f.message for f in r.failures)


def test_preexisting_user_axiom_used_by_a_proof(fake_tc: Toolchain, workspace: Path) -> None:
    base = BASE.replace("namespace Gate\n", "namespace Gate\n\naxiom magic (n : Nat) : n + n = 2 * n\n")
    new = prove(base, "lem:double-eq", "by\n  unfold double\n  exact magic n")
    assert gate(new, base, {"lem:double-eq"}, None, workspace, static_only=True).exit_code == 0
    r = gate(new, base, {"lem:double-eq"}, fake_tc, workspace)
    assert r.exit_code == 1
    assert any("magic" in f.message and f.key == "lem:double-eq" for f in r.failures)


def test_proof_over_placeholders_is_accepted(fake_tc: Toolchain, workspace: Path) -> None:
    # double_count uses count_append and double_eq, both still `sorry`: proved relative to them
    new = prove(BASE, "thm:double-count", "by\n  rw [count_append, double_eq]\n  omega")
    r = gate(new, BASE, {"thm:double-count"}, fake_tc, workspace)
    assert r.exit_code == 0 and r.certified, [f.render() for f in r.failures]


def test_static_failure_skips_lean(fake_tc: Toolchain, workspace: Path, tmp_path: Path) -> None:
    before = len(calls(tmp_path))
    new = prove(BASE, "thm:small", "by\n  native_decide")
    r = gate(new, BASE, {"thm:small"}, fake_tc, workspace)
    assert r.exit_code == 1 and r.lean_status == "not run"
    assert len(calls(tmp_path)) == before


def test_lean_checks_every_claimed_declaration(fake_tc: Toolchain, workspace: Path,
                                                tmp_path: Path) -> None:
    new = prove(BASE, "lem:double-eq", PROOF)
    r = gate(new, BASE, {"lem:double-eq"}, fake_tc, workspace)
    assert r.exit_code == 0
    assert any("lean" in c for c in map(" ".join, calls(tmp_path)))


@pytest.mark.parametrize("version", ["4.27.0", "4.18.0"])
def test_old_toolchains_sorry_spelling(version: str, workspace: Path, monkeypatch, tmp_path) -> None:
    from harness.lean.toolchain import find_toolchain
    from tests.support.fakelean import FAKE_LAKE
    monkeypatch.setenv("FAKE_LEAN_VERSION", version)
    tc = find_toolchain(workspace, str(FAKE_LAKE))
    base = replace_body(parse_text(BASE), "thm:small", "by\n  simp\n  admit")
    new = prove(base, "lem:double-eq", PROOF)
    r = gate(new, base, {"lem:double-eq"}, tc, workspace)
    assert r.exit_code == 1 and any(f.key == "thm:small" for f in r.failures)
