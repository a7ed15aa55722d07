"""The doubles speak the real protocol: their output has the recorded shapes (tests/fixtures/lean)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lean.conftest import FIXTURES
from tests.support.fakelean import FAKE_LAKE, FAKE_LEAN, FAKE_REPL, fake_env

REPL_DIR = FIXTURES / "repl"


def run_fake(argv: list[str], *, cwd: Path, stdin: str | None = None, **env: str):
    return subprocess.run([sys.executable, *argv], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=60, env=fake_env(**env))


def answers(out: str) -> list[dict]:
    assert out.endswith("\n\n"), "every answer ends with a blank line"
    return [json.loads(chunk) for chunk in out.split("\n\n") if chunk.strip()]


def shape(v):
    """Key order, types and list lengths — everything but the values."""
    if isinstance(v, dict):
        return [(k, shape(x)) for k, x in v.items()]
    if isinstance(v, list):
        return [shape(x) for x in v]
    return type(v).__name__


def recorded(name: str) -> list[dict]:
    return answers((REPL_DIR / f"{name}.expected.out").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["readme", "unknown_environment", "unknown_tactic"])
def test_repl_replays_recorded_fixture(tmp_path: Path, name: str) -> None:
    out = run_fake([str(FAKE_REPL)], cwd=tmp_path,
                   stdin=(REPL_DIR / f"{name}.in").read_text(encoding="utf-8")).stdout
    got, want = answers(out), recorded(name)
    assert [shape(a) for a in got] == [shape(a) for a in want]
    for g, w in zip(got, want):  # positions, env ids, proof states and texts are the real ones
        g.pop("goals", None), w.pop("goals", None)
        assert g == w
    if name != "readme":  # byte-exact, pretty-printing and framing included
        assert out == (REPL_DIR / f"{name}.expected.out").read_text(encoding="utf-8")


def test_repl_pretty_printing_matches_lean_layout(tmp_path: Path) -> None:
    out = run_fake([str(FAKE_REPL)], cwd=tmp_path,
                   stdin=(REPL_DIR / "readme.in").read_text(encoding="utf-8")).stdout
    want = (REPL_DIR / "readme.expected.out").read_text(encoding="utf-8")
    assert out.replace("⊢ Nat\"]", "⊢ Int\"]") == want


def test_repl_sorry_in_tactic_mode_has_no_position(tmp_path: Path) -> None:
    stdin = (REPL_DIR / "have_by_sorry.in").read_text(encoding="utf-8")
    got, want = answers(run_fake([str(FAKE_REPL)], cwd=tmp_path, stdin=stdin).stdout), \
        recorded("have_by_sorry")
    assert shape(got[1]) == shape(want[1])  # `by sorry` command: sorries + warning + env
    assert got[1]["messages"] == want[1]["messages"]
    assert shape(got[2]) == shape(want[2])  # tactic with sorry: sorry without pos
    assert "pos" not in got[2]["sorries"][0]


def test_repl_bad_identifier_in_tactic_is_not_an_error_object(tmp_path: Path) -> None:
    stdin = (REPL_DIR / "invalid_tactic.in").read_text(encoding="utf-8").replace(
        "my_fake_premise", "bogus_premise")
    got = answers(run_fake([str(FAKE_REPL)], cwd=tmp_path, stdin=stdin).stdout)
    want = recorded("invalid_tactic")
    assert [shape(a) for a in got] == [shape(a) for a in want]
    assert got[1]["proofStatus"] == want[1]["proofStatus"] == "Incomplete: contains sorry"
    assert got[1]["messages"][0]["pos"] == {"line": 0, "column": 0}


def test_repl_pickle_round_trip(tmp_path: Path) -> None:
    (tmp_path / "test").mkdir()
    out = run_fake([str(FAKE_REPL)], cwd=tmp_path,
                   stdin=(REPL_DIR / "pickle_environment.in").read_text(encoding="utf-8")).stdout
    assert out == (REPL_DIR / "pickle_environment.expected.out").read_text(encoding="utf-8")


def test_repl_skips_comment_chunks_and_reports_bad_json(tmp_path: Path) -> None:
    stdin = '-- a comment\n\n{"cmd": \n\n{"cmd": "def x := 1"}\n\n'
    got = answers(run_fake([str(FAKE_REPL)], cwd=tmp_path, stdin=stdin).stdout)
    assert got[0]["message"].startswith("Could not parse JSON")
    assert got[1] == {"env": 0}


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


SRC = "theorem s (n : Nat) : n = n := by\n  sorry\n\ntheorem e : 1 = 1 := bogus_x\n\n#print axioms s\n"


def test_lean_json_new_shape_has_recorded_keys(tmp_path: Path) -> None:
    (tmp_path / "F.lean").write_text(SRC, encoding="utf-8")
    res = run_fake([str(FAKE_LEAN), "--json", "F.lean"], cwd=tmp_path)
    assert res.returncode == 1
    got = [json.loads(x) for x in res.stdout.splitlines()]
    rec = _lines(FIXTURES / "lean_json_v4_31.jsonl")
    assert {tuple(g) for g in got} == {tuple(r) for r in rec}  # same keys, same order
    by_kind = {g["kind"]: g for g in got}
    assert by_kind["hasSorry"]["data"] == "declaration uses `sorry`"
    assert by_kind["hasSorry"]["pos"] == {"column": 8, "line": 1}  # the declaration name
    assert by_kind["lean.unknownIdentifier._namedError"]["data"] == "Unknown identifier `bogus_x`"
    assert by_kind["[anonymous]"]["severity"] == "information"


def test_lean_json_old_shapes(tmp_path: Path) -> None:
    (tmp_path / "F.lean").write_text(SRC, encoding="utf-8")
    old = run_fake([str(FAKE_LEAN), "--json", "F.lean"], cwd=tmp_path, version="4.18.0")
    got = [json.loads(x) for x in old.stdout.splitlines()]
    rec_keys = list(_lines(FIXTURES / "lean_json_old.jsonl")[1])
    assert all("kind" not in g and list(g) == rec_keys for g in got)
    assert got[0]["data"] == "declaration uses 'sorry'"
    mid = run_fake([str(FAKE_LEAN), "--json", "F.lean"], cwd=tmp_path, version="4.27.0")
    sorry = json.loads(mid.stdout.splitlines()[0])
    assert sorry["kind"] == "hasSorry" and sorry["data"] == "declaration uses 'sorry'"


def test_lean_plain_text_and_version(tmp_path: Path) -> None:
    (tmp_path / "F.lean").write_text(SRC, encoding="utf-8")
    res = run_fake([str(FAKE_LEAN), "F.lean"], cwd=tmp_path)
    assert res.stdout.splitlines() == [
        "F.lean:1:8: warning: declaration uses `sorry`",
        "F.lean:4:21: error(lean.unknownIdentifier): Unknown identifier `bogus_x`",
        "'s' depends on axioms: [sorryAx]"]
    v = run_fake([str(FAKE_LAKE), "env", "lean", "--version"], cwd=tmp_path, version="4.27.0")
    assert v.stdout.startswith("Lean (version 4.27.0, x86_64-unknown-linux-gnu, commit ")


def test_fake_log_counts_invocations(tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    run_fake([str(FAKE_LAKE), "env", "lean", "--version"], cwd=tmp_path, log=log)
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    assert calls == [["lake", "env", "lean", "--version"], ["lean", "--version"]]


def test_a_name_an_imported_module_declares_is_already_declared(tmp_path: Path) -> None:
    """README rule 18: how a helper lemma merged into a module breaks a module importing it."""
    (tmp_path / "A").mkdir()
    (tmp_path / "A" / "B.lean").write_text("namespace A\ntheorem clash : True := trivial\nend A\n")
    user = tmp_path / "User.lean"
    user.write_text("import A.B\n\ntheorem A.clash : True := trivial\ntheorem A.other : True := "
                    "trivial\n")
    out = run_fake([str(FAKE_LEAN), "--json", str(user)], cwd=tmp_path)
    msgs = [json.loads(x) for x in out.stdout.splitlines()]
    assert out.returncode == 1
    assert [(m["severity"], m["pos"]["line"], m["data"]) for m in msgs] == [
        ("error", 3, "`A.clash` has already been declared")]
    user.write_text("import A.B\n\ntheorem A.other : True := trivial\n")
    assert run_fake([str(FAKE_LEAN), "--json", str(user)], cwd=tmp_path).returncode == 0
