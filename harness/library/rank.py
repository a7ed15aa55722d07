"""Ranking: the plain BM25 baseline and the premise ranker built on top of it (pure functions).

The baseline is FTS5's BM25 over name tokens, signature tokens and docstring, every query word
OR-ed, equal column weights. The premise ranker takes the baseline's (column-weighted) top
candidates plus every declaration the query names outright, and re-scores them with:

- name-token overlap (IDF-weighted): a premise's name says what it is about;
- signature-constant overlap (IDF-weighted): a premise for `Real.exp x ≤ …` mentions `Real.exp`;
- namespace proximity: declared in (a prefix of) the query's namespace, or in a namespace it opens;
- module proximity: same module, then the same directory, then a shared module prefix;
- recency: within the query's own module, the declarations just before the query's line (a
  proof uses the lemmas proved for it right above: on real Mathlib files half of the premises a
  proof mentions are among the 10 declarations before it, docs/benchmarks.md).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from harness.library.names import STOPWORDS, identifiers, last, name_tokens, text_tokens

CANDIDATES = 120
W_BM25, W_NAME, W_CONST, W_NS, W_MODULE, W_NAMED = 1.0, 1.2, 1.6, 0.6, 0.8, 1.5
W_REFS, REFS_SCALE = 0.0, 200.0  # centrality: log(1 + signatures referring to it), full
# weight from REFS_SCALE referring signatures on (a fixed scale: in a tiny index one reference
# must not count as much as the most-used constant of Mathlib)
W_RECENT, RECENT_TAU = 2.0, 1.0  # recency: W_RECENT / (1 + r / RECENT_TAU), r = 0 just above
# k-NN (MaSh-style): the KNN_K theorems nearest the query by statement vote, weighted by
# similarity, for the rows their proofs use; the KNN_CANDIDATES most voted join the candidates.
# Only for a statement (statement_like): a few keywords name what is wanted (`sub-Gaussian tail
# bound`), and the lemmas its neighbours' proofs share (`le_refl`) are not it
W_KNN, KNN_K, KNN_CANDIDATES, KNN_MIN_WORDS = 2.0, 20, 40, 5
# fourth round (docs/benchmarks.md): the neighbours are the KNN_K nearest of a KNN_POOL BM25
# pool by BM25 plus KNN_CONST times the IDF-weighted share of the query's constants their
# statements name (MaSh compares statements by their constants); a vote is similarity ** KNN_POW
# (the nearest neighbours count most)
KNN_CONST, KNN_POOL, KNN_POW = 1.0, 80, 3.0  # frozen 19:43 UTC on development projects only
W_BLUEPRINT = 1.0  # a node's blueprint dependencies (`uses`); half that for what their proofs use
# usage centrality (usage.py): log(1 + proofs using it), full weight from USED_SCALE proofs on
W_USED, USED_SCALE = 2.0, 50.0


@dataclass
class QueryContext:
    """Where the query comes from (a node's file): namespace, opens, module."""
    namespace: str = ""
    opens: tuple[str, ...] = ()
    module: str = ""
    exclude: frozenset[str] = frozenset()  # names never returned (the theorem itself)
    line: int | None = None  # the query's line in ``module``: later declarations there are not
    # accessible yet (Lean elaborates a file top to bottom), so they are never premises
    visible: frozenset[str] | None = None  # modules the query's file imports (transitively);
    # None: every module (a bare search)
    near: tuple[str, ...] = ()  # a blueprint node's dependencies (`uses`), as Lean names


@dataclass
class Query:
    text: str
    words: list[str]  # search tokens, stopwords dropped, order kept, unique
    idents: list[str]  # identifiers written in the query
    ctx: QueryContext = field(default_factory=QueryContext)


_BINDERS = re.compile(r"[({\[⦃]\s*((?:[^\W\d][\w'!?₀-₉]*\s+)*[^\W\d][\w'!?₀-₉]*)\s*:")
MAX_WORDS = 24


def binder_names(text: str) -> set[str]:
    """Names bound by the binders of a signature: `(x y : ℝ) {h : p}` -> {x, y, h}."""
    return {b for g in _BINDERS.findall(text) for b in g.split()}


def parse_query(text: str, ctx: QueryContext | None = None) -> Query:
    """Search words (stopwords, one-letter tokens, numbers and bound variable names dropped)
    and the identifiers the query names. Both rankers get the same words."""
    bound = binder_names(text)
    idents = [i for i in dict.fromkeys(identifiers(re.sub(r"[^\w.'\s]", " ", text)))
              if len(i) > 1 and i not in bound]
    words = [w for w in dict.fromkeys(text_tokens(" ".join(
        t for t in re.split(r"\s+", text) if t not in bound)))
        if w not in STOPWORDS and len(w) > 1 and not w.isdigit()]
    return Query(text, words[:MAX_WORDS], idents, ctx or QueryContext())


def fts_expr(words: list[str]) -> str:
    """An FTS5 OR query over quoted tokens (a token never becomes FTS syntax)."""
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in words)


def idf(df: int, n: int) -> float:
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def namespace_score(decl_ns: str, ctx: QueryContext) -> float:
    if not decl_ns:
        return 0.3  # root namespace: always in reach
    if ctx.namespace and (ctx.namespace == decl_ns or ctx.namespace.startswith(decl_ns + ".")):
        return 1.0
    if decl_ns in ctx.opens:
        return 0.8
    if ctx.namespace and decl_ns.startswith(ctx.namespace + "."):
        return 0.5
    return 0.0


def module_score(module: str, ctx: QueryContext) -> float:
    if not ctx.module or not module:
        return 0.0
    if module == ctx.module:
        return 1.0
    a, b = module.split("."), ctx.module.split(".")
    if a[:-1] == b[:-1]:
        return 0.7
    common = 0
    for x, y in zip(a, b):
        if x != y:
            break
        common += 1
    return 0.5 * common / max(len(a), len(b))


def const_keys(consts: list[str]) -> set[str]:
    """Constants compared by full name and by last component (`Real.exp` ~ `exp` under open)."""
    out: set[str] = set()
    for c in consts:
        if len(c) > 1 and c[0] != "_":
            out.add(c)
            out.add(last(c))
    return out


def recency_ranks(cands: list[dict], ctx: QueryContext) -> dict[int, int]:
    """Position (0 = nearest) of each candidate declared above the query in its module."""
    if not ctx.module or ctx.line is None:
        return {}
    above = [c for c in cands if c["module"] == ctx.module and c["line"] < ctx.line]
    above.sort(key=lambda c: -c["line"])
    return {id(c): r for r, c in enumerate(above)}


def rerank(q: Query, cands: list[dict], word_df: dict[str, int], const_df: dict[str, int],
           n_docs: int, named: set[str], refs=None, bonus: dict[int, float] | None = None,
           usage=None) -> list[tuple[float, dict]]:
    """Score candidates (rows with id, name, namespace, module, line, consts, bm25) for ``q``;
    ``refs``: per row id, how many signatures refer to it (refs.py); ``bonus``: per row id, a
    score from the proof-usage table (k-NN votes, blueprint proximity); ``usage``:
    usage.Centrality (what the query may know of it)."""
    top_refs = math.log1p(REFS_SCALE) if refs is not None and len(refs) else 0.0
    bonus = bonus or {}
    recent = recency_ranks(cands, q.ctx) if W_RECENT else {}
    qwords = set(q.words)
    qconsts = const_keys(q.idents)
    w_idf = {t: idf(word_df.get(t, 1), n_docs) for t in qwords}
    c_idf = {k: idf(const_df.get(k, 1), n_docs) for k in qconsts}
    best_bm25 = max((-c["bm25"] for c in cands if c.get("bm25") is not None), default=1.0) or 1.0
    scored: list[tuple[float, dict]] = []
    for c in cands:
        ntoks = set(name_tokens(c["name"]))
        name_w = sum(w_idf[t] for t in ntoks & qwords)
        name_all = name_w + 2.0 * len(ntoks - qwords) or 1.0  # unmatched name words dilute
        shared = const_keys(c["consts"].split()) & qconsts if c["consts"] else set()
        const_w = sum(c_idf[k] for k in shared)
        bm = -c["bm25"] / best_bm25 if c.get("bm25") is not None else 0.0
        s = (W_BM25 * bm + W_NAME * name_w / name_all + W_CONST * min(1.0, const_w / 12.0)
             + W_NS * namespace_score(c["namespace"], q.ctx)
             + W_MODULE * module_score(c["module"], q.ctx)
             + (W_RECENT / (1 + recent[id(c)] / RECENT_TAU) if id(c) in recent else 0.0)
             + (W_NAMED if c["name"] in named and len(q.words) <= 4 else 0.0)
             + (W_REFS * min(1.0, math.log1p(float(refs[c["id"]])) / top_refs)
                if top_refs and c["id"] < len(refs) else 0.0)
             + bonus.get(c["id"], 0.0) + centrality(c["id"], usage))
        scored.append((s, c))
    scored.sort(key=lambda t: (-t[0], t[1]["name"]))
    return scored


def statement_like(q: Query) -> bool:
    """A query that states something to prove (a type ascription, or many words), not a few
    keywords naming a declaration."""
    return " : " in q.text or len(q.words) >= KNN_MIN_WORDS


def centrality(row: int, usage) -> float:
    """The usage-centrality term (W_USED) of one row; 0 without the table."""
    if not W_USED or usage is None or row >= len(usage.used):
        return 0.0
    return W_USED * min(1.0, math.log1p(float(usage.used[row])) / math.log1p(USED_SCALE))
