"""The index on disk: real SQLite, real files, a generated `.lake/packages` tree."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from harness.library.generate import generate_tree
from harness.library.query import open_index
from harness.library.store import build_index, index_path
from tests.library.conftest import set_rev, update_mathlib, write


def _pkg(report, name):
    return next(p for p in report.packages if p.name == name)


def test_build_search_and_lookup(lib_ws: Path):
    r = build_index(lib_ws)
    assert r.rebuilt and not r.problems
    assert {p.name for p in r.packages} == {"workspace", "lean4", "mathlib", "batteries"}
    ix = open_index(lib_ws, build=False)
    try:
        hits = ix.search("sub-Gaussian tail bound", 3)
        assert hits[0].name == "ProbabilityTheory.HasSubgaussianMGF.measure_ge_le"
        assert hits[0].file == ".lake/packages/mathlib/Mathlib/Probability/Subgaussian.lean"
        assert hits[0].module == "Mathlib.Probability.Subgaussian" and hits[0].line == 17
        assert ix.search("measure_ge_le", 1)[0].name.endswith("HasSubgaussianMGF.measure_ge_le")
        assert ix.search("Real.exp_le", 1)[0].name == "Real.exp_le_exp"
        assert ix.search("sum empty set zero", 1)[0].name == "Finset.sum_empty"
        assert [h.name for h in ix.search("exp", 10, kind="theorem")
                if h.kind != "theorem"] == []
        assert "ignored_build" not in {h.name for h in ix.search("ignored build", 5)}
        # private declarations are found only from their own module
        assert "Real.exp_secret" not in {h.name for h in ix.search("exp secret", 5)}
        assert ix.lookup("exp_pos")[0].name == "Real.exp_pos"
        assert ix.suggest("Real.exp_le_exp'")[0] == "Real.exp_le_exp"
        assert "Real.exp_secret" not in ix.suggest("Real.exp_secrets")
        assert ix.resolve("le_succ", "Nat")[0]["name"] == "Nat.le_succ"
        assert ix.resolve("le_succ", "", ("Nat",))[0]["name"] == "Nat.le_succ"
        assert ix.resolve("add_comm", "", ("Nat",)) == []  # protected: not through `open`
        assert ix.resolve("Nat.add_comm")[0]["protected"] == 1
        # nor from inside its own namespace by its last component (Lean: resolveQualifiedName)
        assert ix.resolve("add_comm", "Nat") == []
        assert ix.resolve("Nat.add_comm", "Nat")[0]["name"] == "Nat.add_comm"
        assert ix.has_core
    finally:
        ix.close()


def test_unchanged_packages_are_reused_and_a_package_update_rescans_only_it(lib_ws: Path):
    build_index(lib_ws)
    again = build_index(lib_ws)
    assert not again.rebuilt and again.scanned == 0
    assert _pkg(again, "mathlib").reused and _pkg(again, "lean4").reused
    update_mathlib(lib_ws, "cccc333")
    up = build_index(lib_ws)
    assert not up.rebuilt and _pkg(up, "mathlib").scanned == 2 and up.scanned == 2
    assert _pkg(up, "batteries").reused and _pkg(up, "mathlib").rev == "cccc333"
    ix = open_index(lib_ws)
    try:
        assert ix.by_name("Real.exp_pos") == [] and ix.by_name("Real.exp_pos'")
        assert ix.search("brand new lemma", 1)[0].name == "brand_new_lemma"
        # the FTS table followed the rows: the old name's words find nothing stale
        assert all(h.name != "Real.exp_pos" for h in ix.search("exp pos", 10))
    finally:
        ix.close()
    import shutil

    shutil.rmtree(lib_ws / ".lake/packages/batteries")  # a package dropped from the workspace
    gone = build_index(lib_ws)
    ix = open_index(lib_ws)
    try:
        assert "batteries" not in {p.name for p in gone.packages}
        assert ix.by_name("List.length_append'") == [] and ix.by_name("Real.exp_le_exp")
    finally:
        ix.close()


def test_workspace_edits_are_picked_up_without_a_revision(lib_ws: Path):
    build_index(lib_ws)
    write(lib_ws / "Local.lean", "theorem own_lemma_two : 2 = 2 := rfl\n")
    r = build_index(lib_ws)
    assert _pkg(r, "workspace").scanned == 1 and r.scanned == 1
    ix = open_index(lib_ws)
    try:
        assert ix.by_name("own_lemma_two") and not ix.by_name("Local.own_lemma")
    finally:
        ix.close()


def test_corrupt_index_is_rebuilt_never_trusted(lib_ws: Path):
    build_index(lib_ws)
    path = index_path(lib_ws)
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2: len(raw) // 2 + 64] = b"\xff" * 64  # damage a page in the middle
    path.write_bytes(bytes(raw))
    r = build_index(lib_ws)
    assert r.rebuilt and "unusable" in r.reason
    with sqlite3.connect(path) as con:  # valid SQLite, but not what the last build wrote
        con.execute("UPDATE decls SET name = 'Real.forged' WHERE name = 'Real.exp_pos'")
    r = build_index(lib_ws)
    assert r.rebuilt and "checksum" in r.reason
    ix = open_index(lib_ws)
    try:
        assert ix.by_name("Real.forged") == [] and ix.by_name("Real.exp_pos")
    finally:
        ix.close()
    path.write_bytes(b"not a database at all" * 100)
    ix = open_index(lib_ws)  # a reader rebuilds it too
    try:
        assert ix.by_name("Real.exp_pos")
    finally:
        ix.close()
    with sqlite3.connect(path) as con:  # a valid SQLite file of another schema
        con.execute("UPDATE meta SET value='0' WHERE key='schema'")
    assert "schema" in build_index(lib_ws).reason


def test_unreadable_file_is_reported_and_the_rest_indexed(lib_ws: Path):
    bad = lib_ws / ".lake/packages/mathlib/Mathlib/Bad.lean"
    bad.write_bytes(b"theorem x : True := trivial\n\xff\xfe\n")
    write(lib_ws / ".lake/packages/mathlib/Mathlib/Open.lean", "/- never closed\n")
    set_rev(lib_ws, "mathlib", "dddd")
    r = build_index(lib_ws)
    assert sorted(r.problems) == [
        ".lake/packages/mathlib/Mathlib/Bad.lean:1:0: cannot read: 'utf-8' codec can't decode "
        "byte 0xff in position 28: invalid start byte",
        ".lake/packages/mathlib/Mathlib/Open.lean:1:0: unterminated comment (missing `-/`)"]
    assert _pkg(r, "mathlib").decls > 5


def test_concurrent_readers_during_a_rebuild(lib_ws: Path):
    build_index(lib_ws)
    reader = open_index(lib_ws)
    before = [h.name for h in reader.search("exponential monotone", 3)]
    write(lib_ws / ".lake/packages/mathlib/Mathlib/Analysis/Exp.lean", "theorem other : True := "
          "trivial\n")
    set_rev(lib_ws, "mathlib", "eeee")
    errors: list[BaseException] = []
    answers: list[list[str]] = []
    done = threading.Event()

    def rebuild() -> None:
        try:
            build_index(lib_ws, rebuild=True)
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)
        finally:
            done.set()

    t = threading.Thread(target=rebuild)
    t.start()
    while not done.is_set() or len(answers) < 3:
        answers.append([h.name for h in reader.search("exponential monotone", 3)])
    t.join()
    assert not errors
    assert all(a == before for a in answers)  # the open reader kept its complete snapshot
    reader.close()
    fresh = open_index(lib_ws)
    try:
        assert fresh.by_name("Real.exp_le_exp") == [] and fresh.by_name("other")
    finally:
        fresh.close()


def test_worker_processes_give_the_same_index(tmp_path: Path):
    tree = tmp_path / "corpus"
    generate_tree(tree, n_files=70, decls_per_file=5, seed=3)
    one = build_index(tree, path=tmp_path / "a.sqlite", corpus=True, workers=1)
    two = build_index(tree, path=tmp_path / "b.sqlite", corpus=True, workers=2)
    assert one.decls == two.decls > 70 * 5

    def names(p: Path) -> list[str]:
        with sqlite3.connect(p) as con:
            return [r[0] for r in con.execute("SELECT name FROM decls ORDER BY name, line")]

    assert names(tmp_path / "a.sqlite") == names(tmp_path / "b.sqlite")


def test_only_damage_counts_as_damage(tmp_path: Path) -> None:
    """An SQL error of ours is not a damaged file (no rebuild); bytes that are not SQLite are."""
    import sqlite3

    from harness.library.retrieval import _damaged

    con = sqlite3.connect(tmp_path / "ok.sqlite")
    con.execute("CREATE TABLE t (a)")
    for bad in ("SELECT nope FROM t", "SELEC 1"):
        try:
            con.execute(bad)
        except sqlite3.DatabaseError as err:
            assert not _damaged(err), err
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"not a database at all" * 100)
    try:
        sqlite3.connect(junk).execute("SELECT * FROM sqlite_master").fetchall()
    except sqlite3.DatabaseError as err:
        assert _damaged(err), err
    else:
        raise AssertionError("SQLite read junk")


def test_an_index_whose_ids_grew_sparse_is_rebuilt(lib_ws: Path) -> None:
    import sqlite3

    from harness.library.integrity import _sum_line
    from harness.library.store import index_path

    build_index(lib_ws)
    path = index_path(lib_ws)
    con = sqlite3.connect(path)
    con.execute("UPDATE decls SET id = id + 50000 WHERE id = (SELECT max(id) FROM decls)")
    con.commit()
    con.close()
    (path.with_name(path.name + ".sum")).write_text(_sum_line(path))  # a sound, complete file
    again = build_index(lib_ws)
    assert again.rebuilt and "sparse" in again.reason
    assert not build_index(lib_ws).rebuilt  # the rebuilt file is dense again
