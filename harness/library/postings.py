"""Posting lists for ranked search: FTS5's BM25, scored over compact per-term arrays with numpy.

FTS5's `bm25()` scores every row a query matches through its auxiliary-function API (~1-2 µs a
row, plus a pass over each phrase's whole doclist to count its documents): at Mathlib size a
query word is in tens of thousands of declarations, so a query cost ~100 ms. Here every term
has one row `postings(term, ids, tf)`: the ids of the declarations it occurs in (ascending
int32) and its frequency in each of the three columns (uint16 x 3); the token count of every
declaration is one array. A query reads one blob per word and scores all its postings at once
(vectorised), then keeps the top k.

The score is FTS5's bm25 exactly (sqlite/sqlite ext/fts5/fts5_aux.c, `fts5Bm25Function`,
`fts5Bm25GetData`): k1 = 1.2, b = 0.75, f = sum over columns of weight x frequency,
D = the row's token count over all columns, avgdl = all tokens / all rows,
IDF = log((N - n + 0.5) / (n + 0.5)) floored at 1e-6, score = sum over the query's terms of
IDF * f (k1 + 1) / (f + k1 (1 - b + b D / avgdl)). The tokens are FTS5's `unicode61
remove_diacritics 2` tokens (ftstokens.py, after ext/fts5/fts5_tokenize.c's
`fts5UnicodeTokenize`), so the lists are the FTS5 table's own; tests compare both.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from harness.library.ftstokens import fts_tokens
from harness.library.workers import worker_init

K1, B, IDF_FLOOR = 1.2, 0.75, 1e-6
NCOLS = 3  # name_tok, sig_tok, doc (the FTS5 table's columns, in order)

SCHEMA = """
CREATE TABLE IF NOT EXISTS postings(term TEXT PRIMARY KEY, ids BLOB, tf BLOB);
CREATE TABLE IF NOT EXISTS arrays(name TEXT PRIMARY KEY, data BLOB);
"""

def doc_terms(cols: tuple[str, ...]) -> tuple[dict[str, tuple[int, int, int]], int]:
    """term -> its frequency in each column, and the row's token count (FTS5's D)."""
    c0, c1, c2 = (Counter(fts_tokens(t)) if t else Counter() for t in cols)
    n = c0.total() + c1.total() + c2.total()
    g0, g1, g2 = c0.get, c1.get, c2.get
    return {t: (g0(t, 0), g1(t, 0), g2(t, 0)) for t in c0.keys() | c1.keys() | c2.keys()}, n


# ---- building -----------------------------------------------------------------------------
CHUNK = 20_000


def _count(batch: list[tuple]) -> tuple:
    """Rows (id, kind, name_tok, sig_tok, doc) -> their postings: (terms, term index, row id,
    frequencies n x 3) and per row (id, token count, kind). Per token one dict lookup in
    Python; the counting is numpy's."""
    rid = np.fromiter((r[0] for r in batch), np.int64, len(batch))
    ix: dict[str, int] = {}
    keys, cols = [], []
    n = np.zeros(len(batch), np.int64)
    for c in range(NCOLS):
        toks = [fts_tokens(r[2 + c]) if r[2 + c] else [] for r in batch]
        counts = np.fromiter(map(len, toks), np.int64, len(toks))
        n += counts
        term = np.fromiter((ix.setdefault(t, len(ix)) for ts in toks for t in ts), np.int64,
                           int(counts.sum()))
        row = np.repeat(np.arange(len(batch), dtype=np.int64), counts)
        keys.append((term << 20) | row)  # a chunk has < 2**20 rows
        cols.append(np.full(len(term), c, np.int8))
    key, col = np.concatenate(keys), np.concatenate(cols)
    uniq, inv = np.unique(key, return_inverse=True)
    tf = np.zeros((len(uniq), NCOLS), np.int64)
    np.add.at(tf, (inv, col), 1)
    return (list(ix), (uniq >> 20).astype(np.int32), rid[uniq & 0xFFFFF].astype(np.int32),
            np.minimum(tf, 65535).astype("<u2"), rid, n, [r[1] for r in batch])


def _count_range(job: tuple[str, int, int]) -> tuple:
    """One id range of the (committed) index file, read in a worker process."""
    path, lo, hi = job
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return _count(list(_rows(con, "id >= ? AND id < ?", (lo, hi))))
    finally:
        con.close()


class _Acc:
    """Postings of many rows in compact arrays, merged a chunk at a time."""

    def __init__(self) -> None:
        self.term_ix: dict[str, int] = {}
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # term, row, tf
        self.rows: list[np.ndarray] = []
        self.lens: list[np.ndarray] = []
        self.kinds: list[str] = []

    def add_rows(self, rows: Iterable[tuple]) -> None:
        """Rows (id, kind, name_tok, sig_tok, doc), any number."""
        batch: list[tuple] = []
        for r in rows:
            batch.append(r)
            if len(batch) >= CHUNK:
                self.merge(_count(batch))
                batch = []
        if batch:
            self.merge(_count(batch))

    def merge(self, part: tuple) -> None:
        terms, t, d, tf, rid, n, kinds = part
        if not len(rid):
            return
        ix = self.term_ix
        glob = np.fromiter((ix.setdefault(x, len(ix)) for x in terms), np.int32, len(terms))
        gt = glob[t] if len(t) else t
        order = np.argsort(gt, kind="stable")  # by term; rows stay ascending within one
        self.parts.append((gt[order], d[order], tf[order]))
        self.rows.append(rid)
        self.lens.append(n)
        self.kinds.extend(kinds)

    def grouped(self) -> Iterable[tuple[str, np.ndarray, np.ndarray]]:
        """(term, ids ascending, frequencies n x 3) for every term (chunks are in id order,
        so a term's list is its slices of each chunk in turn: no global sort, no big copy)."""
        if not self.parts:
            return
        terms = list(self.term_ix)
        probe = np.arange(len(terms) + 1, dtype=np.int32)
        starts = [np.searchsorted(t, probe) for t, _, _ in self.parts]
        for k, term in enumerate(terms):
            ds, fs = [], []
            for (_, d, f), st in zip(self.parts, starts):
                lo, hi = st[k], st[k + 1]
                if hi > lo:
                    ds.append(d[lo:hi])
                    fs.append(f[lo:hi])
            if ds:
                yield term, np.concatenate(ds), np.concatenate(fs)

    def row_arrays(self) -> tuple[np.ndarray, np.ndarray, list[str]]:
        if not self.rows:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), []
        return np.concatenate(self.rows), np.concatenate(self.lens), self.kinds


def _rows(con: sqlite3.Connection, where: str, args: tuple) -> Iterable[tuple]:
    return con.execute(f"SELECT id, kind, name_tok, sig_tok, doc FROM decls WHERE {where} "
                       "ORDER BY id", args)


def build_postings(con: sqlite3.Connection, path: Path | None = None,
                   workers: int | None = None) -> None:
    """All posting lists from the `decls` table (a full build). With ``path`` (the file
    ``con`` writes, committed here) id ranges are counted in ``workers`` processes."""
    con.executescript(SCHEMA + "DELETE FROM postings; DELETE FROM arrays;")
    acc = _Acc()
    lo, hi, count = con.execute("SELECT min(id), max(id), count(*) FROM decls").fetchone()
    n = workers or min(4, os.cpu_count() or 1)
    if path is None or n == 1 or count < 2 * CHUNK:
        acc.add_rows(_rows(con, "1", ()))
    else:
        import multiprocessing as mp

        con.commit()
        step = max(1, (hi - lo + 1) * CHUNK // count)
        jobs = [(str(path), a, a + step) for a in range(lo, hi + 1, step)]
        ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        with ctx.Pool(n, initializer=worker_init) as pool:
            for part in pool.imap(_count_range, jobs):
                acc.merge(part)
    con.executemany("INSERT INTO postings VALUES (?, ?, ?)",
                    ((term, *encode(ids, f)) for term, ids, f in acc.grouped()))
    _put_rows(con, acc, np.zeros(0, "<u4"), np.zeros(0, "u1"), [], set())
    _write_vocab(con)


class Removed:
    """Rows about to be deleted by an incremental build: their ids and terms (read first)."""

    def __init__(self) -> None:
        self.ids: set[int] = set()
        self.terms: set[str] = set()

    def note(self, con: sqlite3.Connection, where: str, args: list) -> None:
        for rid, *cols in con.execute(
                f"SELECT id, name_tok, sig_tok, doc FROM decls WHERE {where}", args):
            self.ids.add(rid)
            self.terms.update(doc_terms(tuple(cols))[0])


def update_postings(con: sqlite3.Connection, removed: Removed, first_new: int) -> None:
    """Apply an incremental build: drop ``removed`` rows, add rows with id >= ``first_new``.
    Only the lists of the terms those rows contain are rewritten."""
    acc = _Acc()
    acc.add_rows(_rows(con, "id >= ?", (first_new,)))
    new = {term: (ids, f) for term, ids, f in acc.grouped()}
    gone = np.fromiter(removed.ids, np.int64) if removed.ids else None
    for term in removed.terms | set(new):
        row = con.execute("SELECT ids, tf FROM postings WHERE term = ?", (term,)).fetchone()
        ids, f = decode(*row) if row else (np.zeros(0, "<i4"), np.zeros((0, 3), "<u2"))
        if gone is not None and len(ids):
            keep = ~np.isin(ids, gone)
            ids, f = ids[keep], f[keep]
        if term in new:
            ids = np.concatenate([ids, new[term][0]])
            f = np.concatenate([f.astype("<u2"), new[term][1]])
        if len(ids):
            con.execute("INSERT OR REPLACE INTO postings VALUES (?, ?, ?)",
                        (term, *encode(ids, f)))
        else:
            con.execute("DELETE FROM postings WHERE term = ?", (term,))
    lens, kinds, names = read_arrays(con)
    _put_rows(con, acc, lens, kinds, names, removed.ids)
    _write_vocab(con)


def _put_rows(con: sqlite3.Connection, acc: _Acc, lens: np.ndarray, kinds: np.ndarray,
              names: list[str], removed: set[int]) -> None:
    """Per row: its token count (FTS5's D; 0 for a deleted row) and its kind (a code)."""
    rid, n, kind_of = acc.row_arrays()
    top = max(int(rid.max()) + 1 if len(rid) else 0, len(lens))
    lens = np.concatenate([lens, np.zeros(top - len(lens), "<u4")])
    kinds = np.concatenate([kinds, np.zeros(top - len(kinds), "u1")])
    if removed:
        gone = np.fromiter(removed, np.int64)
        lens[gone] = 0
        kinds[gone] = 0
    code = {k: i for i, k in enumerate(names)}
    for kind in dict.fromkeys(kind_of):
        if kind not in code:
            code[kind] = len(names)
            names.append(kind)
    lens[rid] = n
    kinds[rid] = np.fromiter((min(code[k], 255) for k in kind_of), np.uint8, len(kind_of))
    con.executemany("INSERT OR REPLACE INTO arrays VALUES (?, ?)",
                    [("doclen", lens.tobytes()), ("kind", kinds.tobytes()),
                     ("kinds", json.dumps(names).encode())])


def _write_vocab(con: sqlite3.Connection) -> None:
    # document frequencies (the ranker's IDF, `LibraryIndex._word_df`): one small table
    con.executescript("DROP TABLE IF EXISTS vocab; CREATE TABLE vocab(term TEXT PRIMARY KEY,"
                      " df INTEGER) WITHOUT ROWID;")
    con.create_function("n_ids", 1, lambda b: len(b) // 4, deterministic=True)
    con.execute("INSERT INTO vocab SELECT term, n_ids(ids) FROM postings")


def read_arrays(con: sqlite3.Connection) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Token count and kind code of every row id, and the kind names."""
    got = dict(con.execute("SELECT name, data FROM arrays"))
    lens = np.frombuffer(got["doclen"], "<u4").copy() if "doclen" in got else np.zeros(0, "<u4")
    kinds = np.frombuffer(got["kind"], "u1").copy() if "kind" in got else np.zeros(0, "u1")
    return lens, kinds, json.loads(got["kinds"]) if "kinds" in got else []


def encode(ids: np.ndarray, tf: np.ndarray) -> tuple[bytes, bytes]:
    """ids as int32; frequencies as one byte each when they all fit (almost always), else
    two (the reader tells them apart by the length)."""
    small = not len(tf) or int(tf.max()) < 256
    return ids.astype("<i4").tobytes(), tf.astype("u1" if small else "<u2").tobytes()


def decode(ids: bytes, tf: bytes) -> tuple[np.ndarray, np.ndarray]:
    n = len(ids) // 4
    wide = len(tf) == 2 * NCOLS * n and n > 0
    return (np.frombuffer(ids, dtype="<i4"),
            np.frombuffer(tf, dtype="<u2" if wide else "u1").reshape(-1, NCOLS))


# ---- scoring ------------------------------------------------------------------------------
class Scorer:
    """BM25 top-k over the posting lists of one index snapshot (read-only)."""

    def __init__(self, con: sqlite3.Connection, n_docs: int) -> None:
        lens, self.kinds, self.kind_names = read_arrays(con)
        self.lens = lens.astype(np.float64)
        self.n = n_docs
        self.avgdl = float(self.lens.sum()) / n_docs if n_docs else 1.0
        self._norm = K1 * (1 - B + B * self.lens / (self.avgdl or 1.0))


    def contrib(self, ids: np.ndarray, tf: np.ndarray,
                weights: tuple[float, float, float]) -> np.ndarray:
        """One term's share of the score of each row in its list (a reader caches these)."""
        if not len(ids):
            return np.zeros(0)
        f = tf @ np.asarray(weights, dtype=np.float64)
        df = len(ids)
        idf = max(math.log((self.n - df + 0.5) / (df + 0.5)), IDF_FLOOR)
        return idf * ((f * (K1 + 1.0)) / (f + self._norm[ids]))

    def top(self, lists: list[tuple[np.ndarray, np.ndarray]],
            weights: tuple[float, float, float], limit: int,
            allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """(row id, FTS5-style bm25 = minus the score) of the best ``limit`` rows, best first;
        ties by id. ``lists``: each query term's (ids, frequencies); ``allowed``: a row mask."""
        return self.top_of([(ids, self.contrib(ids, tf, weights)) for ids, tf in lists],
                           limit, allowed)

    def top_of(self, parts: list[tuple[np.ndarray, np.ndarray]], limit: int,
               allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """:meth:`top` from each term's (ids, :meth:`contrib`)."""
        parts = [(i, c) for i, c in parts if len(i)]
        ids_parts = [i for i, _ in parts]
        s_parts = [c for _, c in parts]
        if not ids_parts:
            return []
        if len(ids_parts) == 1:
            cand, score = ids_parts[0].astype(np.int64), s_parts[0]
        else:
            acc = np.bincount(np.concatenate(ids_parts), np.concatenate(s_parts),
                              minlength=len(self.lens))  # sums in list order, as FTS5 does
            cand = np.flatnonzero(acc)
            score = acc[cand]
        keep = score > 0
        if allowed is not None:
            keep &= allowed[cand]
        cand, score = cand[keep], score[keep]
        if len(cand) > limit:
            kth = np.partition(score, len(score) - limit)[len(score) - limit]
            above = score > kth
            tied = np.flatnonzero(score == kth)
            tied = tied[np.argsort(cand[tied], kind="stable")][:limit - int(above.sum())]
            sel = np.concatenate([np.flatnonzero(above), tied])
            cand, score = cand[sel], score[sel]
        order = np.lexsort((cand, -score))
        return [(int(cand[i]), -float(score[i])) for i in order]

    def kind_mask(self, kind: str) -> np.ndarray:
        code = self.kind_names.index(kind) if kind in self.kind_names else -1
        return self.kinds == code
