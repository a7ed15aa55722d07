"""The posting lists behind ranked search: the same tokens and the same BM25 as FTS5's own
table, kept in step by incremental builds; the index file's stamp and damage found by a query.
Real SQLite, real files."""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

import pytest

import harness.library.integrity as store
from harness.library.generate import generate_tree
from harness.library.ftstokens import fts_tokens
from harness.library.postings import decode
from harness.library.query import LibraryIndex, open_index
from harness.library.store import build_index, check_index, index_path
from tests.library.conftest import update_mathlib, write

TRICKY = ["Hello, World_x y2", "ℝ≥0∞ α β ∑ i ∈ s, f i ≤ ‖x‖", "café Éclair naïve",
          "e\u0301t \u0301abc x\u0301\u0302y", "日本語 テキスト", "x⁻¹ * y₁ ≠ 0 😀",
          "Ωmega ǅx ﬁne", "a\u200bb c\u00a0d", "`HasSubgaussianMGF.measure_ge_le` (c : ℝ≥0)",
          "\u0301\u0301", "ÀÉÎÕÜ ØÆŒ ßẞ ı İ", ""]


def _fts5_tokens(con: sqlite3.Connection, text: str) -> list[str]:
    con.execute("DELETE FROM p")
    con.execute("INSERT INTO p(rowid, t) VALUES (1, ?)", (text,))
    return [r[0] for r in con.execute("SELECT term FROM v ORDER BY offset")]


def test_tokens_are_fts5s_own():
    con = sqlite3.connect(":memory:")
    con.executescript(
        "CREATE VIRTUAL TABLE p USING fts5(t, tokenize='unicode61 remove_diacritics 2');"
        "CREATE VIRTUAL TABLE v USING fts5vocab(p, 'instance');")
    for text in TRICKY:
        assert fts_tokens(text) == _fts5_tokens(con, text), text


def _fts5_top(con, words, weights, limit):
    expr = " OR ".join(f'"{w}"' for w in words)
    return con.execute("SELECT rowid, bm25(fts, ?, ?, ?) AS s FROM fts WHERE fts MATCH ? "
                       "ORDER BY s, rowid LIMIT ?", (*weights, expr, limit)).fetchall()


@pytest.mark.parametrize("weights", [(1.0, 1.0, 1.0), (3.0, 1.0, 0.7)])
def test_posting_bm25_is_fts5_bm25(tmp_path: Path, weights):
    tree = tmp_path / "corpus"
    generate_tree(tree, n_files=40, decls_per_file=8, seed=5)
    write(tree / "Extra.lean", '/-- Sub-Gaussian tail bound: café ℝ≥0∞, naïve `x⁻¹`. -/\n'
          "theorem extra_tail_bound (x : ℝ) : x ≤ x := le_refl x\n")
    path = tmp_path / "ix.sqlite"
    build_index(tree, path=path, corpus=True, workers=1)
    ix = LibraryIndex(check_index(path), path)
    try:
        vocab = [r[0] for r in ix._all("SELECT term FROM vocab ORDER BY df DESC")]
        queries = [vocab[:1], vocab[3:6], vocab[10:18], ["tail", "bound", "cafe"],
                   ["naive", "subgaussian"], vocab[-3:]]
        for words in queries:
            ours = ix._scorer().top([ix._postings(w) for w in words], weights, 25)
            ref = _fts5_top(ix.con, words, weights, 25)
            assert len(ours) == len(ref) > 0
            assert [i for i, _ in ours] == [i for i, _ in ref], words
            assert all(abs(a - b) < 1e-9 for (_, a), (_, b) in zip(ours, ref))
    finally:
        ix.close()


def _postings_by_name(path: Path) -> dict[str, list[tuple[str, tuple[int, ...]]]]:
    with sqlite3.connect(path) as con:
        name = dict(con.execute("SELECT id, name || ':' || line FROM decls"))
        out = {}
        for term, ids, tf in con.execute("SELECT term, ids, tf FROM postings"):
            i, f = decode(ids, tf)
            out[term] = sorted((name[int(a)], tuple(int(x) for x in b)) for a, b in zip(i, f))
        return out


def test_an_incremental_build_gives_the_postings_of_a_full_one(lib_ws: Path, tmp_path: Path):
    build_index(lib_ws)
    update_mathlib(lib_ws, "ffff")
    up = build_index(lib_ws)
    assert not up.rebuilt and up.scanned == 2
    full = tmp_path / "full.sqlite"
    build_index(lib_ws, rebuild=True, path=full)
    assert _postings_by_name(index_path(lib_ws)) == _postings_by_name(full)
    with sqlite3.connect(index_path(lib_ws)) as a, sqlite3.connect(full) as b:
        q = "SELECT term, df FROM vocab ORDER BY term"
        assert a.execute(q).fetchall() == b.execute(q).fetchall()
    ix = open_index(lib_ws)
    try:
        assert ix.search("brand new lemma", 1)[0].name == "brand_new_lemma"
        assert all(h.name != "Real.exp_pos" for h in ix.search("exp pos", 10))
    finally:
        ix.close()


def test_an_unchanged_file_is_not_rehashed_a_changed_one_is(lib_ws: Path, monkeypatch):
    build_index(lib_ws)
    path = index_path(lib_ws)
    calls: list[Path] = []
    real = store._digest

    def counting(p: Path) -> str:
        calls.append(p)
        return real(p)

    monkeypatch.setattr(store, "_digest", counting)
    open_index(lib_ws, build=False).close()
    assert build_index(lib_ws).scanned == 0
    assert calls == []  # the build's stamp (size, mtime, inode) still matches: no hashing
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1000))
    open_index(lib_ws, build=False).close()  # touched, same bytes: re-hashed, still trusted
    assert calls == [path]
    assert store.verify_checksum(path, deep=True)


def test_damage_a_query_finds_rebuilds_the_index(lib_ws: Path, caplog):
    build_index(lib_ws)
    path = index_path(lib_ws)
    with sqlite3.connect(path) as con:
        try:
            pages = [r[0] for r in con.execute(
                "SELECT pageno FROM dbstat WHERE name = 'decls' AND pagetype = 'leaf'")]
        except sqlite3.OperationalError:
            pytest.skip("this SQLite has no dbstat table")
        size = con.execute("PRAGMA page_size").fetchone()[0]
    ix = open_index(lib_ws)
    st = path.stat()
    with open(path, "r+b") as fh:  # damaged in place, its stamp restored: a stat cannot tell
        for p in pages:
            fh.seek((p - 1) * size)
            fh.write(b"\xee" * size)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert store.verify_checksum(path) and not store.verify_checksum(path, deep=True)
    with caplog.at_level(logging.WARNING, logger="harness.library.query"):
        hits = ix.search("exponential monotone", 3)
    try:
        assert hits and hits[0].name == "Real.exp_le_exp"
        assert "damaged" in caplog.text and "rebuilding" in caplog.text
        assert store.verify_checksum(path, deep=True)  # a new, complete file
    finally:
        ix.close()
    # without a workspace to rebuild from, the damage is an error, never an answer
    st = path.stat()
    with open(path, "r+b") as fh:
        for p in pages:
            fh.seek((p - 1) * size)
            fh.write(b"\xee" * size)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    bare = LibraryIndex(check_index(path), path)
    try:
        with pytest.raises(store.CorruptIndex):
            bare.by_name("Real.exp_pos")
    finally:
        bare.close()


def test_posting_lists_counted_in_workers_equal_those_counted_in_process(tmp_path: Path,
                                                                        monkeypatch):
    import harness.library.postings as postings

    tree = tmp_path / "corpus"
    generate_tree(tree, n_files=30, decls_per_file=6, seed=7)
    monkeypatch.setattr(postings, "CHUNK", 40)  # many id ranges, counted in 2 processes
    build_index(tree, path=tmp_path / "one.sqlite", corpus=True, workers=1)
    build_index(tree, path=tmp_path / "two.sqlite", corpus=True, workers=2)
    a, b = _postings_by_name(tmp_path / "one.sqlite"), _postings_by_name(tmp_path / "two.sqlite")
    assert a == b and len(a) > 50
    q = "SELECT name, data FROM arrays ORDER BY name"
    with sqlite3.connect(tmp_path / "one.sqlite") as x:
        with sqlite3.connect(tmp_path / "two.sqlite") as y:
            assert x.execute(q).fetchall() == y.execute(q).fetchall()
