"""The ranked search's machinery under :class:`harness.library.query.LibraryIndex`: FTS5's BM25
from the posting lists (postings.py), document frequencies, the place's row mask, and the
per-row arrays read once per reader (refs.py's centrality, usage.py's proof-usage table).
"""

from __future__ import annotations

import sqlite3
import threading

from harness.library.names import name_tokens
from harness.library.postings import Scorer, decode
from harness.library.rank import QueryContext

_COLS = ("id, name, kind, package, module, rel, line, signature, doc, attrs, private, protected, "
         "origin, exact, consts, namespace")
_KEYS = [c.strip() for c in _COLS.split(",")]
MAX_FTS_WORDS = 8
DF_BUDGET = 6_000


class _Damaged(Exception):
    """SQLite found the file damaged while answering (never seen outside this module)."""

    def __init__(self, why: str, ino: int | None = None) -> None:
        super().__init__(why)
        self.ino = ino  # the inode of the file that failed


def _damaged(err: sqlite3.DatabaseError) -> bool:
    """The file itself is damaged (SQLITE_CORRUPT and its extended codes, SQLITE_NOTADB). An SQL
    error of ours, a full disk, a busy or locked database are not: a rebuild would not help."""
    name = getattr(err, "sqlite_errorname", None) or ""  # Python >= 3.11
    return name.startswith("SQLITE_CORRUPT") or name == "SQLITE_NOTADB"


class Retrieval:
    """Mixed into LibraryIndex: everything here reads through ``_fetch`` under ``_lock``."""

    con: sqlite3.Connection
    n_docs: int
    _lock: threading.RLock
    _ino: int | None
    _df: dict[str, int]
    _sc: Scorer | None
    _post: dict
    _post_size: dict
    _post_bytes: int
    cache_bytes: int
    _use: object
    _used_key: object
    _used_vis: object
    _refs: object
    _file_of: object
    _vis_key: object
    _vis_mask: object
    _voters: object

    def _fetch(self, sql: str, args, one: bool = False):  # LibraryIndex
        raise NotImplementedError

    def rows(self, sql: str, args: tuple = ()) -> list[tuple]:  # LibraryIndex
        raise NotImplementedError

    def _all(self, sql: str, args: tuple | list = ()) -> list[tuple]:
        return self._fetch(sql, args)

    def _informative(self, words: list[str]) -> list[str]:
        """The query words FTS5 ranks by (both rankers get the same): the rarest words of the
        query, at most MAX_FTS_WORDS, while their posting lists together stay within
        DF_BUDGET documents or a quarter of the index (the rarest one always). BM25 must score
        every document an OR-query matches; common words add many documents but little weight."""
        df = self._word_df(words)
        have = sorted((w for w in words if df[w] > 0), key=lambda w: (df[w], w))
        out: list[str] = []
        total = 0
        for w in have[:MAX_FTS_WORDS]:
            if out and total + df[w] > max(DF_BUDGET, self.n_docs // 4):
                break
            out.append(w)
            total += df[w]
        return out

    def _fts(self, words: list[str], limit: int, kind: str | None,
             weights: tuple[float, float, float],
             ctx: QueryContext | None = None) -> list[dict]:
        """FTS5's bm25 top ``limit`` for an OR of ``words``, from the posting lists (with a
        ``ctx`` that has ``visible`` modules: only rows visible there compete)."""
        if not words:
            return []
        sc = self._scorer()
        mask = sc.kind_mask(kind) if kind else None
        if ctx is not None and ctx.visible is not None:
            vis = self._visible_mask(ctx)
            mask = vis if mask is None else mask & vis
        top = sc.top_of([self._contrib(w, weights) for w in words], limit, mask)
        if not top:
            return []
        rows = {r[0]: r for r in self._all(
            f"SELECT {_COLS} FROM decls WHERE id IN ({','.join('?' * len(top))})",
            [i for i, _ in top])}
        return [dict(zip(_KEYS, rows[i])) | {"bm25": s} for i, s in top if i in rows]

    def _refs_array(self):
        if self._refs is None:
            from harness.library.refs import read_refs

            self._refs = read_refs(self.rows)
        return self._refs

    def _visible_mask(self, ctx: QueryContext):
        """Rows visible from ``ctx`` (visible.row_mask), cached for the last place."""
        from harness.library.visible import file_of_rows, row_mask

        key = (ctx.visible, ctx.module, ctx.line)
        if self._vis_key != key or self._vis_mask is None:
            if self._file_of is None:
                self._file_of = file_of_rows(self.rows, len(self._scorer().lens))
            self._vis_key, self._vis_mask = key, row_mask(self.rows, self._file_of, ctx)
        return self._vis_mask

    def _scorer(self) -> Scorer:
        if self._sc is None:
            try:
                with self._lock:
                    self._sc = Scorer(self.con, self.n_docs)
            except sqlite3.DatabaseError as err:
                if not _damaged(err):
                    raise
                raise _Damaged(str(err), self._ino) from err
        return self._sc

    def _contrib(self, term: str, weights: tuple[float, float, float]):
        """(ids, this term's score share per id) under ``weights``, cached beside its list."""
        key = (term, weights)
        got = self._post.get(key)
        if got is None:
            ids, tf = self._postings(term)
            got = (ids, self._scorer().contrib(ids, tf, weights))
            self._remember(key, got, len(ids) * 12)
        return got

    def _remember(self, key, value, size: int) -> None:
        while self._post and self._post_bytes + size > self.cache_bytes:
            old = next(iter(self._post))
            self._post_bytes -= self._post_size.pop(old)
            del self._post[old]
        if size <= self.cache_bytes:
            self._post[key] = value
            self._post_size[key] = size
            self._post_bytes += size

    def _postings(self, term: str):
        got = self._post.get(term)
        if got is None:
            row = self._fetch("SELECT ids, tf FROM postings WHERE term = ?", (term,), one=True)
            got = decode(*row) if row else decode(b"", b"")
            self._remember(term, got, len(got[0]) * 7)
        return got

    def _word_df(self, words: list[str]) -> dict[str, int]:
        missing = [w for w in words if w not in self._df]
        if missing:
            q = ",".join("?" * len(missing))
            got = dict(self._all(f"SELECT term, df FROM vocab WHERE term IN ({q})", missing))
            for w in missing:
                self._df[w] = int(got.get(w, 0))
        return {w: self._df[w] for w in words}

    def _const_df(self, idents: list[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for i in idents:
            toks = list(name_tokens(i))
            dfs = self._word_df(toks)
            for key in (i, i.rsplit(".", 1)[-1]):
                out[key] = min((dfs[t] for t in name_tokens(key)), default=1) or 1
        return out

    # ---- the proof-usage table (usage.py): k-NN votes and usage centrality
    def _usage(self):
        if self._use is None:
            from harness.library.usage import Usage

            self._use = Usage(self.rows)
        return self._use

    def _voter_mask(self):
        """Per row id (the scorer's length): rows whose proof uses something."""
        import numpy as np

        n = len(self._scorer().lens)
        if self._voters is None or len(self._voters) != n:
            hp = self._usage().has_proof()
            out = np.zeros(n, dtype=bool)
            out[:min(n, len(hp))] = hp[:n]
            self._voters = out
        return self._voters

    def neighbours(self, words: list[str], ctx: QueryContext, k: int,
                   weights: tuple[float, float, float],
                   qconsts: dict[str, float] | None = None) -> list[tuple[int, float]]:
        """(row id, similarity in (0, 1]) of the ``k`` declarations with a proof whose text is
        nearest ``words`` (BM25) and whose proof may vote from ``ctx``: never one named in
        ``ctx.exclude`` (the query's own theorem); from a place, only proofs visible there
        (imported modules with ``ctx.visible``, and the place's own module above its line).
        ``qconsts`` (the query's constant keys -> IDF) with ``rank.KNN_CONST``: the nearest of a
        larger BM25 pool by BM25 plus the IDF-weighted share of the query's constants the
        neighbour's statement names (MaSh compares statements by their constants)."""
        from harness.library import rank

        if not words:
            return []
        mask = self._voter_mask()
        if ctx.visible is not None:
            mask = mask & self._visible_mask(ctx)
        mix = bool(rank.KNN_CONST and qconsts)
        pool = max(2 * k, rank.KNN_POOL if mix else 0) + len(ctx.exclude)
        top = self._scorer().top_of([self._contrib(w, weights) for w in words], pool, mask)
        if not top:
            return []
        info = {i: (name, module, line, consts) for i, name, module, line, consts in self._all(
            "SELECT id, name, module, line, consts FROM decls WHERE id IN "
            f"({','.join('?' * len(top))})", [i for i, _ in top])}
        out: list[tuple[int, float]] = []
        for i, s in top:
            got = info.get(i)
            if got is None or got[0] in ctx.exclude:
                continue
            if ctx.module and got[1] == ctx.module and (ctx.line is None or got[2] >= ctx.line):
                continue  # not yet elaborated at the place (Lean reads a file top to bottom)
            out.append((i, -s))
            if len(out) == k and not mix:
                break
        best = out[0][1] if out else 1.0
        out = [(i, s / best) for i, s in out]
        if mix and qconsts:
            total = sum(qconsts.values()) or 1.0
            scored = []
            for i, s in out:
                shared = rank.const_keys(info[i][3].split()) & qconsts.keys() if info[i][3] \
                    else set()
                scored.append((i, s + rank.KNN_CONST * sum(qconsts[c] for c in shared) / total))
            scored.sort(key=lambda t: (-t[1], t[0]))
            top_s = scored[0][1] if scored else 1.0
            out = [(i, s / top_s) for i, s in scored[:k]]
        return out

    def votes(self, neighbours: list[tuple[int, float]]) -> dict[int, float]:
        """Row id -> the summed similarity of the neighbours whose proofs use it."""
        use = self._usage()
        out: dict[int, float] = {}
        for i, sim in neighbours:
            for u in use.of(i).tolist():
                out[u] = out.get(u, 0.0) + sim
        return out

    def centrality_of(self, ctx: QueryContext):
        """Usage counts as the query may know them (usage.Centrality): only proofs that may vote
        count — never the query's own theorem's; from a place, only proofs visible there (with
        ``visible``: the place's row mask; else: not its module's proofs at or below its line)."""
        import numpy as np

        from harness.library.usage import Centrality

        use = self._usage()
        counts = use.used
        if not len(counts):
            return Centrality(counts)
        mask = None
        if ctx.visible is not None:
            mask = self._visible_mask(ctx)
            if self._used_key != self._vis_key:
                src = use.sources()
                keep = np.zeros(len(src), dtype=bool)
                ok = src < len(mask)
                keep[ok] = mask[src[ok]]
                self._used_vis = np.bincount(use.ids[keep], minlength=len(counts))
                self._used_key = self._vis_key
            counts = self._used_vis
        drop = [i for (i,) in self._all(
            f"SELECT id FROM decls WHERE name IN ({','.join('?' * len(ctx.exclude))})",
            sorted(ctx.exclude))] if ctx.exclude else []
        if mask is not None:
            drop = [i for i in drop if i < len(mask) and mask[i]]  # counted at all?
        elif ctx.module and ctx.line is not None:
            drop += [i for (i,) in self._all("SELECT id FROM decls WHERE module = ? AND line >= ?",
                                             (ctx.module, ctx.line))]
        if drop:
            counts = counts.astype(np.int64)  # a copy: the cached counts stay whole
            for i in set(drop):
                np.subtract.at(counts, use.of(i).astype(np.int64), 1)
        return Centrality(counts)
