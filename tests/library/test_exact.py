"""The exact pass: Lean's environment (the fake `lake env lean --run ExportDecls.lean`, which
speaks the program's JSON-lines protocol) merged into the scanned index — real SQLite, real
subprocesses, the failure modes (timeout, Lean error, garbage, cut short) leave the scan usable."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from harness.errors import UsageError
from harness.library.exact import ExactPass, exact_step
from harness.library.exact_run import PROGRAM
from harness.library.query import open_index
from harness.library.store import build_index, index_path
from tests.library.conftest import lib_ws, write  # noqa: F401 - the fixture
from tests.library.test_cli import harness
from tests.support.fakelean import FAKE_LAKE

HOM = """\
namespace Demo

/-- A bundled multiplicative map. -/
structure MulHom' (M N : Type) extends Inhabited M where
  toFun : M → N
  map_mul : ∀ x y : M, toFun x = toFun y

/-- Multiplying by a constant. -/
@[to_additive (attr := simps) "Adding a constant."]
def mulConst (x : Nat) : Nat := x

protected theorem mul_guarded (n : Nat) : n = n := rfl

private theorem mul_hidden (n : Nat) : n = n := rfl

theorem fake_unbuilt_lemma : True := trivial

end Demo
"""


@pytest.fixture
def built_ws(lib_ws: Path) -> Path:  # noqa: F811 - pytest fixture injection
    m = lib_ws / ".lake" / "packages" / "mathlib"
    write(m / "Mathlib" / "Algebra" / "Hom.lean", HOM)
    write(m / "Mathlib.lean", "import Mathlib.Analysis.Exp\nimport Mathlib.Algebra.Hom\n")
    write(m / ".lake" / "build" / "lib" / "lean" / "Mathlib.olean", "olean bytes")
    return lib_ws


def rows(ws: Path, where: str, args: tuple = ()) -> dict[str, tuple]:
    con = sqlite3.connect(index_path(ws))
    try:
        return {r[0]: r[1:] for r in con.execute(
            f"SELECT name, origin, exact, signature, private, protected, rel FROM decls "
            f"WHERE {where}", args)}
    finally:
        con.close()


def test_program_ships_with_the_package():
    text = PROGRAM.read_text(encoding="utf-8")
    assert "def main" in text and "importModules" in text and '"done"' in text


def test_exact_pass_confirms_adds_and_marks(built_ws: Path):
    step = ExactPass(built_ws, FAKE_LAKE, timeout_s=60)
    rep = build_index(built_ws, step=step)
    ex = step.report
    assert ex.ran and not ex.error and ex.modules == ["Mathlib"]
    assert ex.constants > 10 and ex.confirmed > 5 and ex.added >= 3
    assert ex.unplaced == 1  # Init.Prelude's Nat.add: no file of the index holds that module
    got = rows(built_ws, "module LIKE 'Mathlib.%'")
    # scanned and confirmed: the scanner's own signature (binder names) stays
    assert got["Real.exp_le_exp"][:2] == ("source", 1)
    assert got["Real.exp_le_exp"][2].startswith("{x y : ℝ}")
    # generated names the scanner cannot see: simps lemmas, their to_additive images, parents
    for name in ("Demo.mulConst_apply", "Demo.addConst_apply", "Demo.MulHom'.toInhabited"):
        assert got[name][:2] == ("exact", 1), name
        assert got[name][5] == ".lake/packages/mathlib/Mathlib/Algebra/Hom.lean"
    assert got["Demo.MulHom'.toInhabited"][2] == ": Demo.MulHom' → Inhabited"
    # a field the scanner saw (a guessed signature) gets Lean's type
    assert got["Demo.MulHom'.toFun"][:3] == ("field", 1, ": Demo.MulHom' → M → N")
    assert got["Demo.mul_hidden"][1] == 1 and got["Demo.mul_hidden"][3] == 1  # private
    assert got["Demo.mul_guarded"][1] == 1 and got["Demo.mul_guarded"][4] == 1  # protected
    # scanned but unknown to Lean (edited after the last build): kept, not confirmed
    assert got["Demo.fake_unbuilt_lemma"][:2] == ("source", 0)
    assert rep.decls == sum(1 for _ in got) + len(rows(built_ws, "module NOT LIKE 'Mathlib.%'"))
    ix = open_index(built_ws)
    try:
        hits = ix.search("addConst_apply", 3)
        assert hits[0].name == "Demo.addConst_apply" and hits[0].exact
        assert hits[0].origin == "exact"
        assert ix.lookup("Demo.MulHom'.toInhabited")[0].exact
    finally:
        ix.close()


def test_unchanged_build_skips_lean_and_a_new_build_reruns_it(built_ws: Path, tmp_path: Path,
                                                              monkeypatch):
    log = tmp_path / "calls.log"
    monkeypatch.setenv("FAKE_LEAN_LOG", str(log))
    build_index(built_ws, step=ExactPass(built_ws, FAKE_LAKE, timeout_s=60))
    runs = lambda: sum(json.loads(ln)[:2] == ["lean", "--run"]  # noqa: E731
                       for ln in log.read_text().splitlines())
    assert runs() == 1
    step = ExactPass(built_ws, FAKE_LAKE, timeout_s=60)
    build_index(built_ws, step=step)  # nothing changed: no Lean, no new file
    assert runs() == 1
    # a source edited and rebuilt: the olean changes, the pass reruns, in an incremental build
    # (the package's pinned revision did not change, so its sources are not re-read: only Lean
    # knows the new name, and the old one stays as scanned, unconfirmed)
    hom = built_ws / ".lake/packages/mathlib/Mathlib/Algebra/Hom.lean"
    hom.write_text(HOM.replace("fake_unbuilt_lemma", "now_built_lemma"), encoding="utf-8")
    olean = built_ws / ".lake/packages/mathlib/.lake/build/lib/lean/Mathlib.olean"
    olean.write_text("olean bytes, rebuilt")
    rep = build_index(built_ws, step=(step := ExactPass(built_ws, FAKE_LAKE, timeout_s=60)))
    assert runs() == 2 and not rep.rebuilt and step.report.ran
    got = rows(built_ws, "rel LIKE '%Hom.lean'")
    assert got["Demo.now_built_lemma"][:2] == ("exact", 1)
    assert got["Demo.fake_unbuilt_lemma"][:2] == ("source", 0)
    assert sum(1 for n in got if n == "Demo.addConst_apply") == 1  # replaced, not duplicated
    ix = open_index(built_ws)  # the FTS table kept in step in the incremental build
    try:
        assert ix.search("addConst_apply", 1)[0].name == "Demo.addConst_apply"
    finally:
        ix.close()


@pytest.mark.parametrize("mode, why", [
    ("hang", "no complete answer within 3 s (killed)"),
    ("fail", "failed (exit 1): ExportDecls.lean:57:4: error: Unknown identifier"),
    ("garbage", "output line 3 is not a declaration: 'PANIC at"),
    ("cut", "ended before its `done` line"),
])
def test_failure_keeps_the_scanned_index(built_ws: Path, monkeypatch, tmp_path: Path, mode,
                                         why):
    monkeypatch.setenv("FAKE_EXPORT", mode)
    pidfile = tmp_path / "pids"
    monkeypatch.setenv("FAKE_LEAN_PIDFILE", str(pidfile))
    step = ExactPass(built_ws, FAKE_LAKE, timeout_s=3 if mode == "hang" else 60)
    rep = build_index(built_ws, step=step)
    assert not step.report.ran and why in step.report.error
    assert "\n" not in step.report.error
    assert rep.decls > 10 and not rep.problems
    got = rows(built_ws, "1")
    assert all(v[1] == 0 for v in got.values()) and "Demo.addConst_apply" not in got
    ix = open_index(built_ws)  # the scan index is complete and usable
    try:
        assert ix.search("Real.exp_le_exp", 1)[0].name == "Real.exp_le_exp"
    finally:
        ix.close()
    if mode == "hang":
        pids = [int(p) for p in pidfile.read_text().split()]
        for pid in pids:  # the whole process group is gone (a zombie is init's to reap)
            try:
                state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
            except OSError:
                continue
            assert state in ("Z", "X"), (pid, state)
        with pytest.raises(ChildProcessError):
            os.waitpid(-1, os.WNOHANG)  # no child of ours left unreaped


def test_unbuilt_module_fails_with_leans_message(built_ws: Path):
    (built_ws / ".lake/packages/mathlib/.lake/build/lib/lean/Mathlib.olean").unlink()
    write(built_ws / ".lake/packages/batteries/Batteries.lean", "import Batteries.List\n")
    step = ExactPass(built_ws, FAKE_LAKE, timeout_s=60)
    step._plan = lambda con: (["Batteries"], "k")  # as if it were built: Lean cannot find it
    build_index(built_ws, step=step)
    assert "unknown module prefix 'Batteries'" in step.report.error


def test_exact_step_modes(built_ws: Path, monkeypatch):
    monkeypatch.delenv("HARNESS_LAKE", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setenv("HOME", str(built_ws / "no-home"))
    assert exact_step(built_ws, "auto") == (None, "no Lean toolchain found")
    with pytest.raises(UsageError, match="index --exact: no Lean toolchain found"):
        exact_step(built_ws, "on")
    assert exact_step(built_ws, "off")[0] is None
    step, _ = exact_step(built_ws, "auto", lake=str(FAKE_LAKE))
    assert isinstance(step, ExactPass)
    (built_ws / ".lake/packages/mathlib/.lake/build/lib/lean/Mathlib.olean").unlink()
    assert "nothing is built" in exact_step(built_ws, "auto", lake=str(FAKE_LAKE))[1]
    with pytest.raises(UsageError, match="nothing is built"):
        exact_step(built_ws, "on", lake=str(FAKE_LAKE))


def test_cli_index_exact_and_search_json(built_ws: Path):
    r = harness("index", "--exact", "--json", "--lake", str(FAKE_LAKE), cwd=built_ws)
    assert r.returncode == 0, r.stderr
    ex = json.loads(r.stdout)["exact"]
    assert ex["ran"] and ex["added"] >= 3 and ex["modules"] == ["Mathlib"]
    r = harness("search", "Demo.addConst_apply", "--k", "1", "--json", cwd=built_ws)
    hit = json.loads(r.stdout)["hits"][0]
    assert hit["name"] == "Demo.addConst_apply" and hit["exact"] is True
    assert hit["origin"] == "exact"
    r = harness("search", "Real.exp_le_exp", "--k", "1", "--json", cwd=built_ws)
    assert json.loads(r.stdout)["hits"][0]["exact"] is True
    r = harness("index", "--lake", str(FAKE_LAKE), cwd=built_ws)  # auto: current, nothing to do
    assert r.returncode == 0 and "exact pass: unchanged" in r.stdout, r.stdout


def test_cli_exact_without_lean_is_a_usage_error(built_ws: Path):
    r = harness("index", "--exact", "--lake", str(built_ws / "no-lake"), cwd=built_ws)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    assert "index --exact:" in r.stderr and "no-lake" in r.stderr
    assert not index_path(built_ws).exists()  # found before any work


def test_cli_failure_is_one_line_and_exit_code_by_mode(built_ws: Path):
    env_fail = {"FAKE_EXPORT": "fail"}
    old = dict(os.environ)
    os.environ.update(env_fail)
    try:
        r = harness("index", "--lake", str(FAKE_LAKE), cwd=built_ws)
        assert r.returncode == 0
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("exact pass failed: ")
        assert lines[0].endswith("; the scanned index is kept")
        r = harness("index", "--lake", str(FAKE_LAKE), cwd=built_ws)  # auto: not retried
        assert r.returncode == 0 and not r.stderr.strip()
        assert "exact pass: it failed for this build before" in r.stdout
        r = harness("index", "--exact", "--rebuild", "--lake", str(FAKE_LAKE), cwd=built_ws)
        assert r.returncode == 1 and "exact pass failed" in r.stderr
    finally:
        os.environ.clear()
        os.environ.update(old)
    r = harness("search", "Real.exp_le_exp", "--k", "1", "--json", cwd=built_ws)
    assert r.returncode == 0 and json.loads(r.stdout)["hits"][0]["exact"] is False


# ---------------------------------------------------------------------------- with a real Lean
STRUCT = """\
namespace Tiny

structure Pair where
  fst : Nat
  snd : Nat

structure Triple extends Pair where
  thd : Nat

instance : Inhabited Pair := ⟨⟨0, 0⟩⟩

end Tiny
"""


@pytest.mark.lean
def test_real_lean_runs_export_decls(tmp_path: Path):
    """On CI (a real toolchain): the program elaborates, runs and its answer is merged."""
    import shutil
    import subprocess

    from tests.lean.conftest import FIXTURES
    from tests.support.fakelean import real_lake

    lake = real_lake()
    if lake is None:
        pytest.skip("no real Lean toolchain (lake) found")
    ws = tmp_path / "project"
    shutil.copytree(FIXTURES / "project", ws)
    root_pin = Path(__file__).resolve().parents[2] / "lean-toolchain"
    if root_pin.is_file():
        shutil.copy(root_pin, ws / "lean-toolchain")
    write(ws / "Tiny" / "Struct.lean", STRUCT)
    (ws / "Tiny.lean").write_text((ws / "Tiny.lean").read_text() + "import Tiny.Struct\n")
    subprocess.run([str(lake), "build"], cwd=ws, check=True, timeout=900, capture_output=True)
    step = ExactPass(ws, lake, timeout_s=900)
    build_index(ws, step=step)
    assert step.report.ran and not step.report.error, step.report.error
    assert step.report.modules == ["Tiny"]
    got = rows(ws, "module LIKE 'Tiny%'")
    assert got["Tiny.two_add_two"][:2] == ("source", 1)
    assert got["Tiny.Triple.toPair"][:2] == ("exact", 1)
    assert got["Tiny.instInhabitedPair"][:2] == ("exact", 1)
    assert got["Tiny.Pair.fst"][1] == 1


def test_merge_tells_which_rows_go_and_inserts_above_old_ids(built_ws: Path, monkeypatch):
    """For per-row indexes kept incrementally (the FTS table, posting lists): a row whose text
    changes is deleted (announced first) and inserted anew; new ids are above every old id."""
    from harness.library.exact import merge_stream
    from harness.library.exact_run import ExactDecl
    from harness.library.model import ExactReport

    build_index(built_ws)  # scan only
    con = sqlite3.connect(index_path(built_ws))
    old_max = con.execute("SELECT max(id) FROM decls").fetchone()[0]
    field_id = con.execute("SELECT id FROM decls WHERE name = 'Demo.MulHom''.toFun'").fetchone()[0]
    noted: list[int] = []

    def note(where: str, args: tuple) -> None:
        noted.extend(i for (i,) in con.execute(f"SELECT id FROM decls WHERE {where}", args))

    decls = [ExactDecl(name="Demo.MulHom'.toFun", kind="def", module="Mathlib.Algebra.Hom",
                       type="Demo.MulHom' → M → N"),
             ExactDecl(name="Real.exp_pos", kind="theorem", module="Mathlib.Analysis.Exp",
                       type="∀ (x : ℝ), 0 < Real.exp x"),
             ExactDecl(name="Demo.mulConst_apply", kind="theorem", module="Mathlib.Algebra.Hom",
                       type="∀ (x : ℕ), Demo.mulConst x = x")]
    rep = ExactReport()
    merge_stream(con, iter(decls), rep, live_fts=True, key="k", note=note)
    con.commit()
    assert (rep.confirmed, rep.typed, rep.added) == (2, 1, 1)
    assert noted == [field_id]  # the retyped field; Real.exp_pos only got its flag
    new = dict(con.execute("SELECT name, id FROM decls WHERE id > ?", (old_max,)).fetchall())
    assert set(new) == {"Demo.MulHom'.toFun", "Demo.mulConst_apply"}
    assert con.execute("SELECT exact FROM decls WHERE name = 'Real.exp_pos'").fetchone() == (1,)
    # the FTS table followed (live): the new row is found by its new signature tokens
    hit = con.execute("SELECT rowid FROM fts WHERE fts MATCH 'const AND apply'").fetchall()
    assert (new["Demo.mulConst_apply"],) in hit
    con.close()
