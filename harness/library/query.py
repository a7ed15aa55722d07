"""Reading the index: ranked search, name lookup, "does this constant exist", "did you mean".

:func:`open_index` builds the index on first need and rebuilds a corrupt one; a reader holds its
own read-only connection, so a rebuild swapping in a new file never disturbs it.
"""

from __future__ import annotations

import difflib
import functools
import json
import logging
import sqlite3
import threading
from pathlib import Path

from harness.library.integrity import CorruptIndex, check_index, file_inode, verify_checksum
from harness.library.model import Hit
from harness.library.names import name_tokens
from harness.library import rank
from harness.library.rank import CANDIDATES, Query, QueryContext, fts_expr, parse_query, rerank
from harness.library.retrieval import _COLS, _KEYS, Retrieval, _damaged, _Damaged
from harness.library.store import Progress, build_index, index_path

log = logging.getLogger(__name__)
NS_CANDIDATES = 80
FTS_WEIGHTS = (3.0, 1.0, 0.7)  # the ranker's candidates and k-NN neighbours: name, sig, doc
POSTINGS_CACHE = 64 << 20  # bytes of decoded posting lists a reader keeps


def _row(r: tuple) -> dict:
    return dict(zip(_KEYS, r))


def to_hit(d: dict, score: float = 0.0) -> Hit:
    return Hit(name=d["name"], kind=d["kind"], package=d["package"], module=d["module"],
               file=d["rel"], line=d["line"], signature=d["signature"] or "", doc=d["doc"] or "",
               attrs=json.loads(d["attrs"]) if d["attrs"] else [], private=bool(d["private"]),
               protected=bool(d["protected"]), origin=d["origin"], exact=bool(d["exact"]),
               consts=d["consts"].split() if d["consts"] else [], namespace=d["namespace"] or "",
               score=round(score, 4))


def _recovering(method):
    """A public query: when SQLite reports the file damaged, the index is rebuilt (or, without
    a workspace to rebuild from, CorruptIndex is raised) and the query answered once more."""
    @functools.wraps(method)
    def run(self, *args, **kwargs):
        depth = getattr(self._depth, "n", 0)
        if depth:
            return method(self, *args, **kwargs)
        self._depth.n = depth + 1
        try:
            try:
                return method(self, *args, **kwargs)
            except _Damaged as err:
                self._recover(str(err.__cause__ or err), err.ino)
            return method(self, *args, **kwargs)
        except _Damaged as err:
            raise CorruptIndex(f"{self.path}: {err.__cause__ or err}") from None
        finally:
            self._depth.n -= 1
    return run


class LibraryIndex(Retrieval):
    """A read-only view of one index file (thread-safe: one connection, one lock).

    With ``workspace``, a file SQLite reports damaged during a query is rebuilt from it (one
    warning line) and the query answered from the new file."""

    def __init__(self, con: sqlite3.Connection, path: Path,
                 workspace: Path | None = None) -> None:
        self.path, self.workspace = path, workspace
        self.cache_bytes = POSTINGS_CACHE
        self._lock = threading.RLock()  # re-entered by a recovery's re-attach
        self._depth = threading.local()  # nesting of public calls (only the outer recovers)
        self._attach(con)

    def _attach(self, con: sqlite3.Connection) -> None:
        self.con = con
        self._ino = file_inode(self.path)
        self._df: dict[str, int] = {}
        self._sc = None
        self._refs = None  # per row id: signatures referring to it (refs.py), read once
        self._file_of = None  # row id -> file id (numpy), read on the first `visible` query
        self._use = None  # the proof-usage table (usage.py), read on first need
        self._voters = None  # per row id: has a proof that may vote (k-NN)
        self._used_key: object = None  # usage counts from the proofs visible at a place
        self._used_vis = None
        self._vis_key: object = None
        self._vis_mask = None
        # term -> its decoded posting list, (term, weights) -> its score shares (FIFO-bounded)
        self._post: dict[object, tuple] = {}
        self._post_size: dict[object, int] = {}
        self._post_bytes = 0
        self.n_docs = self._one("SELECT count(*) FROM decls") or 1
        pk = {r[0] for r in self._all("SELECT name FROM packages")}
        # Lean's core library is indexed: a constant found nowhere really is unknown
        self.has_core = "lean4" in pk

    def _recover(self, why: str, ino: int | None) -> None:
        if self.workspace is None:
            raise _Damaged(why)
        with self._lock:
            if ino != self._ino:
                return  # another thread of this reader has already recovered
            log.warning("%s: the library index is damaged (%s); rebuilding it", self.path, why)
            self.con.close()
            build_index(self.workspace, corrupt=(why, ino or -1))
            self._attach(check_index(self.path))

    def close(self) -> None:
        self.con.close()

    def _one(self, sql: str, args: tuple = ()) -> object:
        r = self._fetch(sql, args, one=True)
        return r[0] if r else None

    def _all(self, sql: str, args: tuple | list = ()) -> list[tuple]:
        return self._fetch(sql, args)

    def _fetch(self, sql: str, args: tuple | list, one: bool = False):
        try:
            with self._lock:
                cur = self.con.execute(sql, args)
                return cur.fetchone() if one else cur.fetchall()
        except sqlite3.DatabaseError as err:
            if not _damaged(err):
                raise
            raise _Damaged(str(err), self._ino) from err

    # ---- ranked search
    @_recovering
    def baseline(self, text: str, k: int = 10, kind: str | None = None,
                 exclude: frozenset[str] = frozenset(),
                 ctx: QueryContext | None = None) -> list[Hit]:
        """Plain BM25 over name tokens, signature and docstring (the benchmark's baseline);
        with ``ctx``, only what is accessible from there (as the ranker filters)."""
        q = parse_query(text)
        limit = k + len(exclude) if ctx is None else CANDIDATES
        rows = self._fts(self._informative(q.words), limit, kind, weights=(1.0, 1.0, 1.0),
                         ctx=ctx)
        rows = [r for r in rows if r["name"] not in exclude
                and (ctx is None or self._accessible(r, ctx))]
        return [to_hit(r, -r["bm25"]) for r in rows][:k]

    @_recovering
    def search(self, text: str, k: int = 10, kind: str | None = None,
               ctx: QueryContext | None = None) -> list[Hit]:
        q = parse_query(text, ctx)
        words = self._informative(q.words)
        cands = self._fts(words, CANDIDATES, kind, weights=FTS_WEIGHTS, ctx=q.ctx)
        seen = {c["id"] for c in cands}
        named = set()
        spaces: list[str] = []
        for ident in q.idents:
            for r in self.resolve(ident, q.ctx.namespace, q.ctx.opens, kind=kind):
                named.add(r["name"])
                spaces.extend([r["name"], r["namespace"]])
                if r["id"] not in seen:
                    seen.add(r["id"])
                    cands.append(r | {"bm25": None})

        def extra(rows: list[tuple]) -> None:
            for r in map(_row, rows):
                if r["id"] not in seen and (kind is None or r["kind"] == kind):
                    seen.add(r["id"])
                    cands.append(r | {"bm25": None})

        # lemmas live beside what they are about (`Real.exp_le_exp` for `Real.exp`): the
        # namespaces of the constants the query names, and the query's own module
        for ns in list(dict.fromkeys(x for x in spaces if x))[:6]:
            extra(self._all(f"SELECT {_COLS} FROM decls WHERE namespace = ? LIMIT ?",
                            (ns, NS_CANDIDATES)))
        # a query from a position in a file (premises, a node's context): the declarations just
        # above it are candidates (rank.py: recency); a bare search keeps BM25's candidates
        if q.ctx.module and (q.ctx.line is not None or len(q.words) > 4):
            extra(self._all(f"SELECT {_COLS} FROM decls WHERE module = ? AND line < ? "
                            "ORDER BY line DESC LIMIT ?",
                            (q.ctx.module, q.ctx.line or 1 << 30, NS_CANDIDATES)))
        bonus = self._usage_bonus(q, words, extra)
        cands = [c for c in cands if self._accessible(c, q.ctx)]
        if not cands:
            return []
        scored = rerank(q, cands, self._word_df(q.words), self._const_df(q.idents), self.n_docs,
                        named, self._refs_array(), bonus, self.centrality_of(q.ctx))
        return [to_hit(c, s) for s, c in scored[:k]]

    def _usage_bonus(self, q: Query, words: list[str], extra) -> dict[int, float]:
        """Row id -> score from the proof-usage table: the k-NN votes (theorems nearest the
        query vote for what their proofs used) and, for a blueprint node, its dependencies
        and what their proofs use. Voted rows not yet candidates join them (via ``extra``)."""
        out: dict[int, float] = {}
        if rank.W_KNN and rank.KNN_K and rank.statement_like(q):
            qc = None
            if rank.KNN_CONST:
                keys = rank.const_keys(q.idents)
                df = self._const_df(q.idents)
                qc = {c: rank.idf(df.get(c, 1), self.n_docs) for c in keys}
            near = self.neighbours(words, q.ctx, rank.KNN_K, FTS_WEIGHTS, qc)
            if rank.KNN_POW != 1.0:
                near = [(i, s ** rank.KNN_POW) for i, s in near]
            got = self.votes(near)
            top = sorted(got.items(), key=lambda t: (-t[1], t[0]))[:rank.KNN_CANDIDATES]
            best = top[0][1] if top else 1.0
            for i, v in top:
                out[i] = rank.W_KNN * v / best
        if q.ctx.near and rank.W_BLUEPRINT:
            rows = [r for n in q.ctx.near
                    for r in self.resolve(n, q.ctx.namespace, q.ctx.opens)]
            deps = [r["id"] for r in rows]
            for r in rows:  # only a proof the place can see says what to use
                if self._accessible(r, q.ctx):
                    for u in self._usage().of(r["id"]).tolist():
                        out[u] = out.get(u, 0.0) + 0.5 * rank.W_BLUEPRINT
            for i in deps:
                out[i] = out.get(i, 0.0) + rank.W_BLUEPRINT
        if out:
            ids = sorted(out)
            extra(self._all(f"SELECT {_COLS} FROM decls WHERE id IN ({','.join('?' * len(ids))})",
                            ids))
        return out

    @staticmethod
    def _accessible(c: dict, ctx: QueryContext) -> bool:
        if c["name"] in ctx.exclude:
            return False
        if c["module"] != ctx.module:
            if ctx.visible is not None and c["module"] not in ctx.visible:
                return False  # not imported there
            return not c["private"]  # a private name is usable only in its own module
        return ctx.line is None or c["line"] < ctx.line

    @_recovering
    def rows(self, sql: str, args: tuple = ()) -> list[tuple]:
        """A read-only SQL query on the index (visible.py reads `files` through it)."""
        return self._all(sql, args)

    # ---- names
    @_recovering
    def by_name(self, name: str) -> list[dict]:
        return [_row(r) for r in self._all(f"SELECT {_COLS} FROM decls WHERE name = ?",
                                           (name,))]

    @_recovering
    def resolve(self, ident: str, namespace: str = "", opens: tuple[str, ...] = (),
                kind: str | None = None) -> list[dict]:
        """Declarations ``ident`` can denote from ``namespace`` with ``opens``, as Lean resolves
        it: the enclosing namespaces innermost first, then the root, then opened namespaces
        (where a `protected` declaration is not found by its last component alone)."""
        ident = ident.removeprefix("@")
        if ident.startswith("_root_."):
            cands = [ident.removeprefix("_root_.")]
        else:
            parts = namespace.split(".") if namespace else []
            cands = [".".join([*parts[:i], ident]) for i in range(len(parts), 0, -1)]
            cands.append(ident)
        rows: list[dict] = []
        atomic = "." not in ident
        for i, c in enumerate(cands):
            rows = self.by_name(c)
            if atomic and i < len(cands) - 1 and not ident.startswith("_root_."):
                # inside `namespace N`, an atomic `x` never means a protected `N.x`
                # (leanprover/lean4 src/Lean/ResolveName.lean, resolveQualifiedName:
                # `!id.isAtomic || !isProtected env resolvedId`)
                rows = [r for r in rows if not r["protected"]]
            if rows:
                break
        if not rows:
            for o in opens:
                got = self.by_name(f"{o}.{ident}")
                rows.extend(r for r in got if not (r["protected"] and "." not in ident))
        if kind:
            rows = [r for r in rows if r["kind"] == kind]
        return rows

    @_recovering
    def exists(self, ident: str, namespace: str = "", opens: tuple[str, ...] = ()) -> bool:
        if self.resolve(ident, namespace, opens):
            return True
        # `h.trans`-style generalized field notation: the head is a local, not a constant
        return False

    @_recovering
    def lookup(self, name: str, k: int = 5) -> list[Hit]:
        """Exact name first, then declarations whose name ends with `.name`."""
        rows = self.by_name(name)
        if not rows:
            short = name.rsplit(".", 1)[-1]
            rows = [r for r in (_row(x) for x in self._all(
                f"SELECT {_COLS} FROM decls WHERE short = ? LIMIT 200", (short,)))
                if r["name"].endswith("." + name) or r["name"] == name]
        rows.sort(key=lambda r: (r["name"] != name, len(r["name"]), r["name"]))
        return [to_hit(r, 1.0) for r in rows[:k]]

    @_recovering
    def suggest(self, name: str, k: int = 3) -> list[str]:
        """Close existing names for a name that does not exist (for "did you mean")."""
        short = name.rsplit(".", 1)[-1]
        pool: set[str] = set()
        for variant in {short, short.rstrip("'"), short.rstrip("'") + "'"}:
            pool.update(r[0] for r in self._all(
                "SELECT name FROM decls WHERE short = ? LIMIT 50", (variant,)))
        toks = list(name_tokens(name))
        if toks:
            pool.update(r[0] for r in self._all(
                "SELECT d.name FROM fts JOIN decls d ON d.id = fts.rowid WHERE fts MATCH ? "
                "ORDER BY bm25(fts, 5.0, 0.0, 0.0) LIMIT 60",
                ("name_tok : (" + fts_expr(toks) + ")",)))
        pool.discard(name)
        private = {r[0] for r in self._all(
            f"SELECT name FROM decls WHERE private = 1 AND name IN ({','.join('?' * len(pool))})",
            sorted(pool))} if pool else set()
        return difflib.get_close_matches(name, sorted(pool - private), n=k, cutoff=0.75)

    @_recovering
    def stats(self) -> dict:
        return {"path": str(self.path), "decls": self.n_docs,
                "packages": [dict(zip(("name", "rev"), r))
                             for r in self._all("SELECT name, rev FROM packages ORDER BY name")]}


def open_index(workspace: Path, *, build: bool = True,
               progress: Progress | None = None) -> LibraryIndex:
    """The workspace's index, built (or rebuilt, when corrupt) on first need."""
    path = index_path(workspace)
    try:
        con = check_index(path)
        if not verify_checksum(path):
            con.close()
            raise CorruptIndex("its checksum does not match the last build")
        return LibraryIndex(con, path, workspace if build else None)
    except CorruptIndex:
        if not build:
            raise
    except _Damaged as err:  # the file opened, but its first pages read back damaged
        if not build:
            raise CorruptIndex(str(err)) from None
        build_index(workspace, progress=progress, corrupt=(str(err), file_inode(path) or -1))
        return LibraryIndex(check_index(path), path, workspace)
    build_index(workspace, progress=progress)
    return LibraryIndex(check_index(path), path, workspace)


__all__ = ["LibraryIndex", "Query", "QueryContext", "open_index", "to_hit"]
