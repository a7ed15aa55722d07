"""`python -m harness check` in a subprocess: output and exit codes 0 / 1 / 2 / 3."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.fakelean import FAKE_LAKE, fake_env, make_workspace

REPO = Path(__file__).resolve().parents[2]
GOOD = '''namespace Demo

@[blueprint "lem:one"]
theorem one : 1 = 1 := rfl

@[blueprint "lem:add"]
theorem add (n : Nat) : n + 0 = n := by
  omega
'''
OPEN = GOOD + '''
@[blueprint "lem:open"]
theorem still_open (n : Nat) : n * 1 = n := by
  sorry

@[blueprint "lem:broken"]
theorem broken : 2 = 2 := by
  exact bogus_two
'''


def harness(*args: str, cwd: Path, **env_kw) -> subprocess.CompletedProcess:
    env = fake_env(**env_kw)
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run([sys.executable, "-m", "harness", "check", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_all_proved_exit_0(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"Demo.lean": GOOD}, toolchain="4.32.0")
    res = harness("Demo.lean", cwd=ws)
    assert res.returncode == 0, res.stderr
    assert "lem:one" in res.stdout and "proved" in res.stdout and "all proved" in res.stdout
    assert res.stderr == ""
    older = harness("Demo.lean", cwd=ws, version="4.28.0")  # lean-toolchain pins 4.32.0
    assert older.returncode == 0 and older.stderr.startswith("warning: ")
    assert "pins 4.32.0 but lean reports 4.28.0" in older.stderr


def test_findings_exit_1_and_json(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"Demo.lean": OPEN})
    res = harness("Demo.lean", "--json", cwd=ws, version="4.27.0")
    assert res.returncode == 1, res.stderr
    out = json.loads(res.stdout)
    assert {n["key"]: n["status"] for n in out["nodes"]} == {
        "lem:one": "proved", "lem:add": "proved", "lem:open": "sorry", "lem:broken": "error"}
    assert out["ok"] is False and out["counts"] == {"proved": 2, "sorry": 1, "error": 1}
    broken = next(n for n in out["nodes"] if n["key"] == "lem:broken")
    assert broken["first_error"] == "16:8: unknown identifier 'bogus_two'"
    human = harness("Demo.lean", cwd=ws)
    assert human.returncode == 1 and "unknown identifier" not in human.stdout
    assert "Unknown identifier `bogus_two`" in human.stdout and "uses sorry" in human.stdout


def test_node_selection(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"Demo.lean": OPEN})
    res = harness("Demo.lean", "--node", "lem:add", "--node", "Demo.one", "--json", cwd=ws)
    assert res.returncode == 0, res.stderr
    assert [n["key"] for n in json.loads(res.stdout)["nodes"]] == ["lem:add", "lem:one"]
    bad = harness("Demo.lean", "--node", "lem:nope", cwd=ws)
    assert bad.returncode == 2 and "Demo.lean:1:0: no node `lem:nope`" in bad.stderr


def test_usage_exit_2(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws", {"Demo.lean": GOOD})
    nolean = harness("Demo.lean", cwd=ws, lake=False)
    assert nolean.returncode == 2
    assert nolean.stderr.count("\n") == 1 and "elan-init.sh" in nolean.stderr
    missing = harness("Nope.lean", cwd=ws)
    assert missing.returncode == 2 and missing.stderr.startswith("Nope.lean:1:0: no such file")
    wrong = harness("Demo.lean", "--lake", str(tmp_path / "no-lake"), cwd=ws)
    assert wrong.returncode == 2 and "Traceback" not in wrong.stderr
    assert harness("Demo.lean", "--timeout", "0", cwd=ws).returncode == 2


def test_cannot_certify_exit_3(tmp_path: Path) -> None:
    hang = GOOD + '\n@[blueprint "lem:h"]\ntheorem h : 1 = 1 := by\n  fake_hang\n'
    ws = make_workspace(tmp_path / "ws", {"Demo.lean": hang})
    res = harness("Demo.lean", "--timeout", "2", "--lake", str(FAKE_LAKE), cwd=ws)
    assert res.returncode == 3 and "did not finish within 2s" in res.stderr
    assert res.stderr.count("\n") == 1
    crash = GOOD.replace("rfl", "by fake_crash", 1)
    (ws / "Crash.lean").write_text(crash, encoding="utf-8")
    res = harness("Crash.lean", cwd=ws)
    assert res.returncode == 3 and "exited with code 134" in res.stderr



PLAIN = '''/-! A sorry-free module: no blueprint nodes, so every named declaration is audited. -/
namespace SLT

theorem clean (n : Nat) : n + 0 = n := by
  omega

private theorem hidden : 2 = 2 := rfl
'''
CHEAT = PLAIN + '''
axiom cheat : 1 = 2

theorem uses_cheat : 1 = 2 := cheat
'''

ANON = '''namespace SLT

instance : Inhabited Nat := by
  exact ⟨0⟩
'''


def test_module_axiom_audit_as_ci_runs_it(tmp_path: Path) -> None:
    """lean.yml audits each SLT module with `harness check MODULE`: a user axiom is a finding."""
    ws = make_workspace(tmp_path / "ws", {"SLT/Clean.lean": PLAIN, "SLT/Cheat.lean": CHEAT,
                                          "SLT/Anon.lean": ANON})
    clean = harness("SLT/Clean.lean", "--json", cwd=ws)
    assert clean.returncode == 0, clean.stderr
    assert [n["key"] for n in json.loads(clean.stdout)["nodes"]] == ["SLT.clean", "SLT.hidden"]
    cheat = harness("SLT/Cheat.lean", "--json", cwd=ws)
    assert cheat.returncode == 1, cheat.stderr
    by_key = {n["key"]: n for n in json.loads(cheat.stdout)["nodes"]}
    assert by_key["SLT.uses_cheat"]["status"] == "axioms"
    assert by_key["SLT.uses_cheat"]["forbidden_axioms"] == ["SLT.cheat"]
    assert by_key["SLT.clean"]["status"] == "proved"
    anon = harness("SLT/Anon.lean", "--json", cwd=ws)  # an anonymous instance escapes by-name
    assert anon.returncode == 1, anon.stderr
    assert json.loads(anon.stdout)["unaudited"] == [
        "SLT/Anon.lean:3:0: unnamed instance: the axiom audit checks declarations by name; "
        "name it (`instance instFoo : …`)"]
    (ws / "SLT.lean").write_text("import SLT.Clean\n")  # a root module: nothing to audit, said so
    root = harness("SLT.lean", cwd=ws)
    assert root.returncode == 0 and "no named declaration to check" in root.stdout
