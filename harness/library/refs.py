"""How often each declaration is referred to by the signatures of the others (a centrality
prior for the ranker: a lemma about a constant many statements mention is more often a premise
than one about a constant nothing mentions; LeanExplore ranks by PageRank over dependencies for
the same reason). Computed after every build, full or incremental, into the `arrays` table
(`refs`: one uint32 per row id) while its weight is not 0; an index without it reads as all
zeros.

A signature's constants are written as the source wrote them (short under `open`/`namespace`):
one that is a full declaration name counts for that declaration; otherwise it counts for the
declarations whose last component it is, when at most ``MAX_SHORT`` share that last component
(a common short name such as `le_refl` is too ambiguous to credit anyone).
"""

from __future__ import annotations

import sqlite3

import numpy as np

MAX_SHORT = 3


def write_refs(con: sqlite3.Connection) -> None:
    """Count and write `refs` — only while the ranker weighs it (`rank.W_REFS`, 0 since the
    second round, docs/benchmarks.md: ≈ 4 s of a Mathlib-size build for nothing); at weight 0
    any older array is deleted, so a reader sees zeros rather than stale counts."""
    from harness.library import rank

    if not rank.W_REFS:
        con.execute("DELETE FROM arrays WHERE name = 'refs'")
        return
    n = (con.execute("SELECT max(id) FROM decls").fetchone()[0] or 0) + 1
    by_name: dict[str, list[int]] = {}
    by_short: dict[str, list[int]] = {}
    rows = con.execute("SELECT id, name, consts FROM decls").fetchall()
    for i, name, _ in rows:
        by_name.setdefault(name, []).append(i)
        by_short.setdefault(name.rsplit(".", 1)[-1], []).append(i)
    hit: list[int] = []
    for _, name, consts in rows:
        if not consts:
            continue
        for c in set(consts.split()):
            if c == name:
                continue
            ids = by_name.get(c)
            if ids is None:
                ids = by_short.get(c.rsplit(".", 1)[-1], ())
                if len(ids) > MAX_SHORT:
                    continue
            hit.extend(ids)
    counts = np.bincount(np.asarray(hit, dtype=np.int64), minlength=n).astype("<u4")
    con.execute("INSERT OR REPLACE INTO arrays(name, data) VALUES ('refs', ?)",
                (counts.tobytes(),))


def read_refs(rows) -> np.ndarray:
    """The `refs` array; ``rows``: an SQL query callable (LibraryIndex.rows, or a
    connection's execute + fetchall)."""
    got = rows("SELECT data FROM arrays WHERE name = 'refs'", ())
    return np.frombuffer(got[0][0], "<u4").copy() if got else np.zeros(0, "<u4")
