"""The proof-usage table: for each row, the rows its proof mentions (MaSh-style premise
selection and usage centrality read it).

The scanner keeps, per declaration, what its proof mentions as written (`decls.uses`, locals,
case tags and named arguments already dropped by :mod:`harness.library.mentions`) and the
`open`s in force (`decls.opens`). Names resolve only once every file is known, so after every
build, full or incremental, :func:`write_usage` resolves them all again as Lean would from the
declaration's scope (:func:`harness.library.mentions.resolve`: enclosing namespaces innermost
first, the root, the opens, then the `c.f` projection fallback) and writes, into the `arrays`
table (one blob each, indexed by row id like postings.py):

- `use_ptr` (uint32, max id + 2 entries) and `use_ids` (uint32): row ``i``'s proof uses rows
  ``use_ids[use_ptr[i]:use_ptr[i + 1]]`` (CSR); a changed file's rows are new rows, so their
  old entries are simply gone;
- `used` (uint32 per row): how many proofs use the row (usage centrality);
- `use_rank` (float32 per row): PageRank over "proof uses" edges, as LeanExplore ranks by
  PageRank over dependencies, scaled so that the mean row is 1.
"""

from __future__ import annotations

import sqlite3

import numpy as np

from harness.library.mentions import resolve

PAGERANK_ITERATIONS, DAMPING = 30, 0.85


def write_usage(con: sqlite3.Connection) -> None:
    n = (con.execute("SELECT max(id) FROM decls").fetchone()[0] or 0) + 1
    ids_of: dict[str, list[int]] = {}
    protected: set[str] = set()
    for i, name, prot in con.execute("SELECT id, name, protected FROM decls"):
        ids_of.setdefault(name, []).append(i)
        if prot:
            protected.add(name)
    names = set(ids_of)
    users: list[int] = []
    used: list[int] = []
    scopes: dict[tuple[str, str], dict[str, int | None]] = {}
    for i, ns, opens, uses in con.execute(
            "SELECT id, namespace, opens, uses FROM decls WHERE uses != ''"):
        memo = scopes.setdefault((ns or "", opens or ""), {})
        op = tuple(opens.split()) if opens else ()
        mine: set[int] = set()
        for u in uses.split():
            got = memo.get(u, -1)
            if got == -1:
                full = resolve(u, ns or "", op, names, protected)
                got = memo[u] = ids_of[full][0] if full else None
            if got is not None and got != i:
                mine.add(got)
        users.extend([i] * len(mine))
        used.extend(sorted(mine))
    src = np.asarray(users, dtype=np.int64)
    dst = np.asarray(used, dtype=np.int64)
    ptr = np.zeros(n + 1, dtype="<u4")
    np.cumsum(np.bincount(src, minlength=n), out=ptr[1:])
    counts = np.bincount(dst, minlength=n).astype("<u4")
    con.executemany("INSERT OR REPLACE INTO arrays(name, data) VALUES (?, ?)",
                    [("use_ptr", ptr.tobytes()), ("use_ids", dst.astype("<u4").tobytes()),
                     ("used", counts.tobytes()),
                     ("use_rank", pagerank(src, dst, n).astype("<f4").tobytes())])


def pagerank(src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray:
    """PageRank of the "``src`` proof uses ``dst``" graph (a row with no uses spreads its
    weight evenly), scaled to mean 1."""
    if n == 0:
        return np.zeros(0)
    out_deg = np.bincount(src, minlength=n).astype(np.float64)
    pr = np.full(n, 1.0 / n)
    w = np.zeros(len(src))
    for _ in range(PAGERANK_ITERATIONS):
        share = np.divide(pr, out_deg, out=np.zeros(n), where=out_deg > 0)
        np.take(share, src, out=w)
        dangling = pr[out_deg == 0].sum()
        pr = (1 - DAMPING) / n + DAMPING * (np.bincount(dst, weights=w, minlength=n)
                                            + dangling / n)
    return pr * n


class Usage:
    """The arrays :func:`write_usage` wrote, read once per reader (empty when absent)."""

    def __init__(self, rows) -> None:
        got = dict(rows("SELECT name, data FROM arrays WHERE name IN "
                        "('use_ptr', 'use_ids', 'used', 'use_rank')", ()))
        self.ptr = np.frombuffer(got.get("use_ptr", b""), "<u4")
        self.ids = np.frombuffer(got.get("use_ids", b""), "<u4")
        self.used = np.frombuffer(got.get("used", b""), "<u4")
        self.rank = np.frombuffer(got.get("use_rank", b""), "<f4")

    def of(self, row: int) -> np.ndarray:
        """The rows ``row``'s proof uses."""
        if row + 1 >= len(self.ptr):
            return self.ids[:0]
        return self.ids[self.ptr[row]:self.ptr[row + 1]]

    def has_proof(self) -> np.ndarray:
        """Per row id: does its proof use anything (a possible k-NN voter)?"""
        return np.diff(self.ptr) > 0 if len(self.ptr) else np.zeros(0, bool)
