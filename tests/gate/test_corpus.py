"""The corpus: every cheat is rejected by the check it targets; every legitimate change passes,
statically and through the (fake) Lean compile."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.gate.lock import Lock
from harness.gate.verify import GateReport, verify
from harness.lean.toolchain import Toolchain
from tests.gate.corpus import BASE, CHEATS, LEGIT, Case


def run(case: Case, lock: Lock, path: str | Path = "Base.lean", **kw) -> GateReport:
    new = case.transform(BASE)
    assert new != BASE or case.name == "unchanged", f"{case.name}: transformation changed nothing"
    return verify(new, path, lock, base_text=BASE if case.allow is not None else None,
                  allow=set(case.allow or ()), **kw)


def test_corpus_is_big_enough() -> None:
    assert len(CHEATS) >= 40
    assert len(LEGIT) >= 10
    assert len({c.name for c in CHEATS + LEGIT}) == len(CHEATS) + len(LEGIT)


@pytest.mark.parametrize("case", CHEATS, ids=lambda c: c.name)
def test_cheat_rejected(case: Case, base_lock: Lock) -> None:
    report = run(case, base_lock, static_only=True)
    got = {(f.check, f.rule) for f in report.failures}
    assert report.exit_code == 1 and not report.passed, case.name
    assert any(g[0] == check and (rule is None or g[1] == rule)
               for g in got for check, rule in case.expect), (case.name, got)
    for f in report.failures:
        assert f.path == "Base.lean" and f.line >= 1 and f.col >= 0
        assert f.render().startswith(f"Base.lean:{f.line}:{f.col}: [{f.check}]")


@pytest.mark.parametrize("case", CHEATS[:12], ids=lambda c: c.name)
def test_cheat_rejected_without_lean_is_still_a_failure(case: Case, base_lock: Lock) -> None:
    # a rejection (1) wins over "cannot certify" (3): the change is known to be bad
    report = run(case, base_lock)
    assert report.exit_code == 1
    assert report.lean_status == "not run"


@pytest.mark.parametrize("case", LEGIT, ids=lambda c: c.name)
def test_legit_change_passes_static(case: Case, base_lock: Lock) -> None:
    report = run(case, base_lock, static_only=True)
    assert report.failures == [], [f.render() for f in report.failures]
    assert report.exit_code == 0 and report.passed and not report.certified


@pytest.mark.parametrize("case", LEGIT, ids=lambda c: c.name)
def test_legit_change_without_lean_cannot_be_certified(case: Case, base_lock: Lock) -> None:
    report = run(case, base_lock)
    assert report.exit_code == 3 and not report.passed
    assert report.lean_status == "not run"


@pytest.mark.parametrize("case", [c for c in LEGIT if c.lean_ok], ids=lambda c: c.name)
def test_legit_change_certified_by_lean(case: Case, base_lock: Lock, fake_tc: Toolchain,
                                        workspace: Path) -> None:
    report = run(case, base_lock, workspace / "Base.lean", lean=fake_tc, workspace=workspace)
    assert report.failures == [], [f.render() for f in report.failures]
    assert report.lean_status == "passed" and report.certified and report.exit_code == 0


def test_failure_points_at_the_offending_token(base_lock: Lock) -> None:
    case = next(c for c in CHEATS if c.name == "native-decide")
    new = case.transform(BASE)
    report = run(case, base_lock, static_only=True)
    (f,) = [f for f in report.failures if f.rule == "native"]
    line = new.splitlines()[f.line - 1]
    assert line[f.col:].startswith("native_decide")
    assert f.key == "thm:small"


def test_informal_change_is_reported_not_failed(base_lock: Lock) -> None:
    case = next(c for c in LEGIT if c.name == "informal-statement-edited")
    report = run(case, base_lock, static_only=True)
    assert report.exit_code == 0
    assert [c.key for c in report.informal_changes] == ["lem:double-eq"]


def test_unknown_allowed_node_is_a_usage_error(base_lock: Lock) -> None:
    from harness.errors import UsageError
    with pytest.raises(UsageError, match="lem:nope"):
        verify(BASE, "Base.lean", base_lock, base_text=BASE, allow={"lem:nope"}, static_only=True)
    with pytest.raises(UsageError, match="needs --base"):
        verify(BASE, "Base.lean", base_lock, allow={"lem:double-eq"}, static_only=True)


def test_allow_accepts_lean_names(base_lock: Lock) -> None:
    from harness.blueprint import parse_text
    from harness.blueprint.write import replace_body
    new = replace_body(parse_text(BASE), "lem:double-eq", "by\n  unfold double\n  omega")
    for name in ("lem:double-eq", "Gate.double_eq", "double_eq"):
        r = verify(new, "Base.lean", base_lock, base_text=BASE, allow={name}, static_only=True)
        assert r.exit_code == 0, name


def test_unparseable_candidate_is_an_input_error(base_lock: Lock) -> None:
    from harness.errors import InputError
    with pytest.raises(InputError):
        verify(BASE + "\n/- unterminated", "Base.lean", base_lock, static_only=True)


def test_context_failure_names_the_command(base_lock: Lock) -> None:
    case = next(c for c in CHEATS if c.name == "variable-added")
    report = run(case, base_lock, static_only=True)
    msgs = {f.key: f.message for f in report.failures}
    assert msgs["lem:double-eq"] == "context changed: +`variable (k : Nat)`"
    assert "def:double" not in msgs  # declarations before it are untouched
