"""Elaborated-type hashes: `harness lock` with Lean stores them, `verify` compares them.

The fake Lean's "elaborated type" unfolds parameterless abbrevs, also those of imported modules
found under `.lake/packages/` (tests/fakes/_fakecheck.py) — a dependency the lock does not hash,
so a change there leaves every source fingerprint intact.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.blueprint import parse_file, parse_text
from harness.errors import CannotCertify
from harness.gate.elaborated import elaborated_hashes, normal_type, type_hash
from harness.gate.lock import load_lock, make_lock
from harness.gate.verify import verify
from harness.lean.toolchain import Toolchain, find_toolchain
from tests.support.fakelean import FAKE_LAKE, fake_env, make_workspace

ROOT = Path(__file__).resolve().parents[2]

BOUND = '''import Dep.Defs

/-! A statement whose meaning comes from a dependency. -/

namespace Gate

abbrev Local : Nat := 32

@[blueprint "thm:bound"
  (statement := /-- $2^5$ is the dependency's bound. -/)
  (latexEnv := "theorem")]
theorem small_bound : 2 ^ 5 = Dep.bound := by
  sorry

@[blueprint "thm:local"
  (statement := /-- $2^5$ is the local bound. -/)
  (latexEnv := "theorem")]
theorem small_local : 2 ^ 5 = Local := by
  sorry

end Gate
'''
DEP = "namespace Dep\n\nabbrev bound : Nat := {n}\n\nend Dep\n"
DEP_PATH = ".lake/packages/dep/Dep/Defs.lean"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws", {"Blueprint/Bound.lean": BOUND,
                                            DEP_PATH: DEP.format(n=32)})


@pytest.fixture
def tc(ws: Path, monkeypatch: pytest.MonkeyPatch) -> Toolchain:
    monkeypatch.delenv("FAKE_LEAN_VERSION", raising=False)
    return find_toolchain(ws, str(FAKE_LAKE))


def hashed_lock(ws: Path, tc: Toolchain):
    bp = parse_file(ws / "Blueprint/Bound.lean")
    keys = [d.key for d in bp.decls if d.name]
    return make_lock(bp, elaborated=elaborated_hashes(bp, keys, tc, workspace=ws, timeout_s=60))


def test_type_hash_normal_form() -> None:
    assert type_hash("∀ (n : Nat),\n    n = n") == type_hash("∀ (n : Nat), n = n")
    assert type_hash("n = n") != type_hash("n = n + 0")
    assert normal_type("@_private.Blueprint.«tmp-1a».0.Gate.x = 1") == "@_private.0.Gate.x = 1"


def test_lock_with_lean_has_type_hashes(ws: Path, tc: Toolchain) -> None:
    lock = hashed_lock(ws, tc)
    assert lock.elaborated
    assert {e.key for e in lock.entries if e.type_hash} == {"Gate.Local", "thm:bound", "thm:local"}
    assert lock.entry("thm:bound").type_hash == type_hash("2 ^ 5 = (32)")
    assert lock.entry("thm:local").type_hash == type_hash("2 ^ 5 = (32)")
    again = load_lock_roundtrip(lock, ws)
    assert again.entry("thm:bound").type_hash == lock.entry("thm:bound").type_hash


def load_lock_roundtrip(lock, ws: Path):
    lock.save(ws / "b.lock.json")
    return load_lock(ws / "b.lock.json")


def test_dependency_change_is_caught_only_by_the_elaborated_type(ws: Path, tc: Toolchain) -> None:
    lock = hashed_lock(ws, tc)
    f = ws / "Blueprint/Bound.lean"
    ok = verify(BOUND, f, lock, lean=tc, workspace=ws, timeout_s=60)
    assert ok.exit_code == 0 and ok.elaborated == "compared", ok.failures
    (ws / DEP_PATH).write_text(DEP.format(n=33), encoding="utf-8")
    # every source fingerprint (statement, context, header, workspace files) is unchanged ...
    static = verify(BOUND, f, lock, static_only=True)
    assert static.exit_code == 0 and not static.failures
    assert any("not compared" in n for n in static.notes)
    # ... but the statement now means something else
    r = verify(BOUND, f, lock, lean=tc, workspace=ws, timeout_s=60)
    assert r.exit_code == 1 and not r.passed
    assert [(x.check, x.key, x.message.split(" (")[0]) for x in r.failures] == [
        ("lock", "thm:bound", "elaborated type changed")]
    at = BOUND.splitlines()[r.failures[0].line - 1][r.failures[0].col:]
    assert at.startswith("theorem small_bound")


def test_in_file_abbrev_change_is_a_definition_change(ws: Path, tc: Toolchain) -> None:
    """In the file, the source lock already sees it (and Lean is not even run)."""
    lock = hashed_lock(ws, tc)
    new = BOUND.replace("abbrev Local : Nat := 32", "abbrev Local : Nat := 33")
    r = verify(new, ws / "Blueprint/Bound.lean", lock, lean=tc, workspace=ws, timeout_s=60)
    assert r.exit_code == 1 and r.lean_status == "not run"
    assert [(x.key, x.message.split(" (")[0]) for x in r.failures] == [
        ("Gate.Local", "definition changed")]


def test_tampered_hash_in_lock_fails_at_the_node(ws: Path, tc: Toolchain) -> None:
    lock = hashed_lock(ws, tc)
    lock.entry("thm:local").type_hash = type_hash("2 ^ 5 = 31")
    r = verify(BOUND, ws / "Blueprint/Bound.lean", lock, lean=tc, workspace=ws, timeout_s=60)
    assert [(x.check, x.key) for x in r.failures] == [("lock", "thm:local")]
    assert r.failures[0].render().startswith(f"{ws / 'Blueprint/Bound.lean'}:18:0: [lock] "
                                             "thm:local: elaborated type changed")


def test_lock_without_hashes_is_reported_not_failed(ws: Path, tc: Toolchain) -> None:
    lock = make_lock(parse_text(BOUND, ws / "Blueprint/Bound.lean"))
    (ws / DEP_PATH).write_text(DEP.format(n=33), encoding="utf-8")
    r = verify(BOUND, ws / "Blueprint/Bound.lean", lock, lean=tc, workspace=ws, timeout_s=60)
    assert r.exit_code == 0 and r.elaborated == "not in lock"
    assert any("no elaborated-type hashes" in n for n in r.notes)


def test_runner_without_types_cannot_certify(ws: Path, tc: Toolchain) -> None:
    from harness.lean.verdict import check_file

    lock = hashed_lock(ws, tc)
    bp_path = ws / "Blueprint/Bound.lean"

    def runner(bp, labels):  # a pre-bound runner that cannot print types
        return check_file(tc, ws, bp, labels=labels, timeout_s=60)

    r = verify(BOUND, bp_path, lock, lean=runner)
    assert r.exit_code == 3 and "elaborated types" in (r.lean_detail or "")

    def typed_runner(bp, labels, *, types=None):
        return check_file(tc, ws, bp, labels=labels, types=types, timeout_s=60)

    # the lock also pins definitions' elaborated values: a runner that cannot print them
    r = verify(BOUND, bp_path, lock, lean=typed_runner)
    assert r.exit_code == 3 and "elaborated values" in (r.lean_detail or "")

    def full_runner(bp, labels, *, types=None, values=None):
        return check_file(tc, ws, bp, labels=labels, types=types, values=values, timeout_s=60)

    assert verify(BOUND, bp_path, lock, lean=full_runner).exit_code == 0


def test_elaborated_hashes_refuse_a_file_lean_rejects(ws: Path, tc: Toolchain) -> None:
    bad = BOUND.replace("  sorry\n\n@[blueprint \"thm:local\"", "  exact bogus_x\n\n"
                        "@[blueprint \"thm:local\"")
    bp = parse_text(bad, ws / "Blueprint/Bound.lean")
    with pytest.raises(CannotCertify, match="bogus_x"):
        elaborated_hashes(bp, ["thm:bound"], tc, workspace=ws, timeout_s=60)


# ----------------------------------------------------------------------------- the CLI

def cli(*args: str, cwd: Path, lean: bool) -> subprocess.CompletedProcess:
    env = fake_env(lake=lean)
    env["PYTHONPATH"] = str(ROOT)
    env.pop("FAKE_LEAN_VERSION", None)
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_cli_lock_with_lean_then_verify(ws: Path) -> None:
    out = cli("lock", "Blueprint/Bound.lean", "--json", cwd=ws, lean=True)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["elaborated"] is True and data["type_hashes"] == 3
    saved = json.loads((ws / "Blueprint/Bound.lock.json").read_text())
    assert saved["elaborated"] is True
    assert all(len(e["type_hash"]) == 64 for e in saved["entries"])
    ok = cli("verify", "Blueprint/Bound.lean", "--lock", "Blueprint/Bound.lock.json", "--json",
             cwd=ws, lean=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert json.loads(ok.stdout)["elaborated"] == "compared"
    (ws / DEP_PATH).write_text(DEP.format(n=33), encoding="utf-8")
    bad = cli("verify", "Blueprint/Bound.lean", "--lock", "Blueprint/Bound.lock.json",
              cwd=ws, lean=True)
    assert bad.returncode == 1
    assert "Blueprint/Bound.lean:12:0: [lock] thm:bound: elaborated type changed" in bad.stderr


def test_cli_lock_without_lean_says_so(ws: Path) -> None:
    out = cli("lock", "Blueprint/Bound.lean", "--json", cwd=ws, lean=False)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["elaborated"] is False
    lines = [ln for ln in out.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "no elaborated-type hashes" in lines[0]
    saved = json.loads((ws / "Blueprint/Bound.lock.json").read_text())
    assert saved["elaborated"] is False and all(e["type_hash"] is None for e in saved["entries"])
    v = cli("verify", "Blueprint/Bound.lean", "--lock", "Blueprint/Bound.lock.json",
            "--static-only", cwd=ws, lean=False)
    assert v.returncode == 0 and "no elaborated-type hashes" in v.stdout + v.stderr


def test_cli_lock_static_only_with_lean(ws: Path) -> None:
    out = cli("lock", "Blueprint/Bound.lean", "--no-lean", "--json", cwd=ws, lean=True)
    assert out.returncode == 0 and json.loads(out.stdout)["elaborated"] is False


def test_cli_lock_when_lean_fails_writes_nothing(ws: Path) -> None:
    f = ws / "Blueprint/Bound.lean"
    f.write_text(BOUND.replace("theorem small_local : 2 ^ 5 = Local := by\n  sorry",
                               "theorem small_local : 2 ^ 5 = Local := by\n  exact bogus_x"),
                 encoding="utf-8")
    out = cli("lock", "Blueprint/Bound.lean", cwd=ws, lean=True)
    assert out.returncode == 3, out.stdout + out.stderr
    assert "bogus_x" in out.stderr and "Traceback" not in out.stderr
    assert not (ws / "Blueprint/Bound.lock.json").exists()
    # the static lock is still available on request
    assert cli("lock", "Blueprint/Bound.lean", "--static-only", cwd=ws, lean=True).returncode == 0
    assert (ws / "Blueprint/Bound.lock.json").exists()


def test_cli_lock_timeout_exit_3(ws: Path) -> None:
    f = ws / "Blueprint/Bound.lean"
    f.write_text(BOUND.replace("exact", "").replace("2 ^ 5 = Local := by\n  sorry",
                                                     "2 ^ 5 = Local := by\n  fake_hang"),
                 encoding="utf-8")
    out = cli("lock", "Blueprint/Bound.lean", "--timeout", "2", cwd=ws, lean=True)
    assert out.returncode == 3 and "did not finish" in out.stderr
    assert not (ws / "Blueprint/Bound.lock.json").exists()


def test_corrupt_or_legacy_lock(ws: Path, tc: Toolchain) -> None:
    lock_file = ws / "b.lock.json"
    lock_file.write_text('{"schema": "slt-harness/statement-lock", "version": 1, "entries": [',
                         encoding="utf-8")
    out = cli("verify", "Blueprint/Bound.lean", "--lock", "b.lock.json", cwd=ws, lean=True)
    assert out.returncode == 2 and "corrupt lock file" in out.stderr
    # a lock written before `type_hash` existed (entries had `"elaborated": null`) still loads
    data = json.loads(make_lock(parse_file(ws / "Blueprint/Bound.lean")).to_json())
    for e in data["entries"]:
        e["elaborated"] = e.pop("type_hash")
    lock_file.write_text(json.dumps(data), encoding="utf-8")
    legacy = load_lock(lock_file)
    assert not legacy.elaborated and all(e.type_hash is None for e in legacy.entries)
    # a hash of the wrong type is corrupt, not ignored
    data["entries"][0]["elaborated"] = 5
    lock_file.write_text(json.dumps(data), encoding="utf-8")
    bad = cli("verify", "Blueprint/Bound.lean", "--lock", "b.lock.json", cwd=ws, lean=True)
    assert bad.returncode == 2 and "corrupt statement lock" in bad.stderr
    assert os.path.exists(lock_file)
