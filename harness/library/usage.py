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
  old entries are simply gone; an incremental build resolves again only the proofs the change
  can touch (:func:`_stale`), and is tested equal to a full build;
- `used` (uint32 per row): how many proofs use the row (usage centrality).

(PageRank over these edges was written here until the fourth round; at weight 0 and counting
every proof, the query's own included, it was deleted: docs/benchmarks.md.)
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass

import numpy as np

from harness.library.mentions import resolve


def write_usage(con: sqlite3.Connection, first_new: int | None = None) -> None:
    """Resolve and write the table. ``first_new``: an incremental build whose new rows start
    there — only the proofs a change can touch are resolved again (see :func:`_stale`)."""
    n = (con.execute("SELECT max(id) FROM decls").fetchone()[0] or 0) + 1
    ids_of: dict[str, list[int]] = {}
    protected: set[str] = set()
    for i, name, prot in con.execute("SELECT id, name, protected FROM decls"):
        ids_of.setdefault(name, []).append(i)
        if prot:
            protected.add(name)
    old = _stale(con, n, ids_of, first_new) if first_new is not None else None
    if old is None:
        src0 = dst0 = np.zeros(0, dtype=np.int64)
        todo = con.execute("SELECT id, namespace, opens, uses FROM decls WHERE uses != ''")
    else:
        src0, dst0, redo = old
        todo = (r for k in range(0, len(redo), 500) for r in con.execute(
            "SELECT id, namespace, opens, uses FROM decls WHERE uses != '' AND id IN "
            f"({','.join('?' * len(redo[k:k + 500]))})", redo[k:k + 500]))
    src1, dst1 = _resolve_rows(todo, ids_of, protected)
    src = np.concatenate([src0, src1])
    dst = np.concatenate([dst0, dst1])
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    ptr = np.zeros(n + 1, dtype="<u4")
    np.cumsum(np.bincount(src, minlength=n), out=ptr[1:])
    counts = np.bincount(dst, minlength=n).astype("<u4")
    con.executemany("INSERT OR REPLACE INTO arrays(name, data) VALUES (?, ?)",
                    [("use_ptr", ptr.tobytes()), ("use_ids", dst.astype("<u4").tobytes()),
                     ("used", counts.tobytes())])


def _resolve_rows(rows, ids_of: dict[str, list[int]], protected: set[str]
                  ) -> tuple[np.ndarray, np.ndarray]:
    names = ids_of.keys()
    users: list[int] = []
    used: list[int] = []
    scopes: dict[tuple[str, str], dict[str, int | None]] = {}
    for i, ns, opens, uses in rows:
        memo = scopes.setdefault((ns or "", opens or ""), {})
        op = tuple(opens.split()) if opens else ()
        mine: set[int] = set()
        for u in uses.split():
            got = memo.get(u, -1)
            if got == -1:
                full = resolve(u, ns or "", op, names, protected)  # type: ignore[arg-type]
                got = memo[u] = ids_of[full][0] if full else None
            if got is not None and got != i:
                mine.add(got)
        users.extend([i] * len(mine))
        used.extend(sorted(mine))
    return np.asarray(users, dtype=np.int64), np.asarray(used, dtype=np.int64)


_COMPONENTS = re.compile(r"[\s.@]+")
MAX_NEW_SHORT = 400  # more new names than this: resolve every proof again (one full pass)


def _stale(con: sqlite3.Connection, n: int, ids_of: dict[str, list[int]], first_new: int
           ) -> tuple[np.ndarray, np.ndarray, list[int]] | None:
    """(kept edges src, dst, rows to resolve again) after an incremental build, or None for a
    full pass. A proof's resolution changes only when (a) it is new, (b) a row it used is gone,
    or (c) a new name could now win for one of its mentions: a new name's last component is a
    component of the mention (`x.c.y` may now mean `N.x.c` under the projection fallback) —
    one pass over the stored mentions."""
    got = dict(con.execute("SELECT name, data FROM arrays WHERE name IN ('use_ptr', 'use_ids')"))
    if "use_ptr" not in got:
        return None
    ptr = np.frombuffer(got["use_ptr"], "<u4").astype(np.int64)
    dst = np.frombuffer(got["use_ids"], "<u4").astype(np.int64)
    src = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
    live = np.zeros(max(n, int(dst.max(initial=0)) + 1, len(ptr)), dtype=bool)
    live[[i for ids in ids_of.values() for i in ids]] = True
    shorts = {nm.rsplit(".", 1)[-1] for nm, ids in ids_of.items() if max(ids) >= first_new}
    if len(shorts) > MAX_NEW_SHORT:
        return None
    redo = set(np.unique(src[live[src] & ~live[dst]]).tolist())  # (b)
    redo.update(i for (i,) in con.execute("SELECT id FROM decls WHERE id >= ? AND uses != ''",
                                          (first_new,)))  # (a)
    for i, uses in con.execute("SELECT id, uses FROM decls WHERE id < ? AND uses != ''",
                               (first_new,)):  # (c): one pass, set operations in C
        if not shorts.isdisjoint(_COMPONENTS.split(uses)):
            redo.add(i)
    keep = live[src] & live[dst] & ~np.isin(src, np.fromiter(redo, np.int64, len(redo)))
    return src[keep], dst[keep], sorted(redo)


@dataclass(frozen=True)
class Centrality:
    """Per row id: proofs using it (as the query may know them)."""
    used: np.ndarray


class Usage:
    """The arrays :func:`write_usage` wrote, read once per reader (empty when absent)."""

    def __init__(self, rows) -> None:
        got = dict(rows("SELECT name, data FROM arrays WHERE name IN "
                        "('use_ptr', 'use_ids', 'used')", ()))
        self.ptr = np.frombuffer(got.get("use_ptr", b""), "<u4")
        self.ids = np.frombuffer(got.get("use_ids", b""), "<u4")
        self.used = np.frombuffer(got.get("used", b""), "<u4")
        self._src: np.ndarray | None = None

    def of(self, row: int) -> np.ndarray:
        """The rows ``row``'s proof uses."""
        if row + 1 >= len(self.ptr):
            return self.ids[:0]
        return self.ids[self.ptr[row]:self.ptr[row + 1]]

    def sources(self) -> np.ndarray:
        """Per entry of ``ids``: the row whose proof it is."""
        if self._src is None:
            self._src = np.repeat(np.arange(max(0, len(self.ptr) - 1)), np.diff(self.ptr))
        return self._src

    def has_proof(self) -> np.ndarray:
        """Per row id: does its proof use anything (a possible k-NN voter)?"""
        return np.diff(self.ptr) > 0 if len(self.ptr) else np.zeros(0, bool)
