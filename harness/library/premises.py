"""Premise recall: how often the index ranks the lemmas a proof actually uses in its top k.

For each proved theorem T of a corpus (a proof with no `sorry`): the query is T's statement and
docstring, from T's own namespace, opens and module; the gold set is the corpus declarations
T's proof mentions (:mod:`harness.library.mentions`: locals, case tags and named arguments are
not mentions; names resolved as Lean would from T's scope, `c.f` mentions the constant `c`), T
itself excluded and never returned. recall@k = |gold ∩ top k| / |gold|, averaged over the
theorems. The plain BM25 baseline (:meth:`LibraryIndex.baseline`) runs on the same index, same queries, same run.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from harness.library.mentions import mentions, resolve
from harness.library.query import LibraryIndex, QueryContext
from harness.library.rank import binder_names
from harness.library.scanner import Scanned, scan_file_text
from harness.library.sources import lean_files
from harness.library.store import build_index, check_index

PROOF_KINDS = ("theorem", "lemma")


def corpus_cases(root: Path, declared: bool = False
                 ) -> tuple[list[tuple[Scanned, str, set[str]]], int]:
    """(theorem, module, gold names) for every proved theorem with a non-empty gold set
    (``declared``: also blueprint nodes whose body is `sorry_using [names]`, gold = the list)."""
    per_file: list[tuple[str, list[Scanned]]] = []
    for f in lean_files(root, root):
        try:
            text = f.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        decls, _ = scan_file_text(text, f.rel, uses=True)
        per_file.append((f.module, decls))
    names = {d.name for _, ds in per_file for d in ds}
    protected = {d.name for _, ds in per_file for d in ds if d.protected}
    cases = []
    for module, decls in per_file:
        for d in decls:
            if d.kind not in PROOF_KINDS or d.origin != "source" or not d.uses:
                continue
            if d.has_sorry and not (declared and "sorry_using" in d.uses):
                continue
            gold = {g for u in mentions(d.body, binder_names(d.signature))
                    if (g := resolve(u, d.namespace, d.opens, names, protected))}
            gold.discard(d.name)
            if gold:
                cases.append((d, module, gold))
    return cases, len(names)


def recall_benchmark(corpus: Path, *, sample: int | None = 500, k: int = 10,
                     workers: int | None = None, declared: bool = False) -> dict:
    """Recall@1 / @k and ms per query of the ranker and the baseline on one corpus."""
    cases, n_names = corpus_cases(corpus, declared)
    if sample is not None and len(cases) > sample:
        step = len(cases) / sample
        cases = [cases[int(i * step)] for i in range(sample)]
    with tempfile.TemporaryDirectory(prefix="harness-premises-") as tmp:
        idx = Path(tmp) / "premises.sqlite"
        build_index(corpus, path=idx, workers=workers, corpus=True)
        ix = LibraryIndex(check_index(idx), idx)
        try:
            ours = _run(ix, cases, k, ranked=True)
            base = _run(ix, cases, k, ranked=False)
            # the baseline given the same accessibility filter (what the filter alone buys)
            base_acc = _run(ix, cases, k, ranked=False, accessible=True)
        finally:
            ix.close()
    ratio = ours["recall@10"] / base["recall@10"] if base["recall@10"] else None
    return {"corpus": str(corpus), "declarations": n_names, "theorems": len(cases), "k": k,
            "ranker": ours, "baseline_bm25": base, "baseline_bm25_accessible": base_acc,
            "recall@10_ratio": round(ratio, 3) if ratio is not None else None}


def _run(ix: LibraryIndex, cases: list, k: int, *, ranked: bool,
         accessible: bool = False) -> dict:
    r1: list[float] = []
    rk: list[float] = []
    ms: list[float] = []
    for d, module, gold in cases:
        text = f"{d.signature} {d.doc}"
        t0 = time.perf_counter()
        ctx = QueryContext(namespace=d.namespace, opens=d.opens, module=module,
                           exclude=frozenset({d.name}), line=d.line)
        if ranked:
            hits = ix.search(text, k, ctx=ctx)
        elif accessible:
            hits = ix.baseline(text, k, exclude=frozenset({d.name}), ctx=ctx)
        else:
            hits = ix.baseline(text, k, exclude=frozenset({d.name}))
        ms.append((time.perf_counter() - t0) * 1000)
        names = [h.name for h in hits]
        r1.append(len(gold & set(names[:1])) / min(1, len(gold)))
        rk.append(len(gold & set(names[:k])) / len(gold))
    return {"recall@1": round(statistics.fmean(r1), 4) if r1 else 0.0,
            f"recall@{k}": round(statistics.fmean(rk), 4) if rk else 0.0,
            "recall@10": round(statistics.fmean(rk), 4) if rk else 0.0,
            "ms_per_query": round(statistics.fmean(ms), 2) if ms else 0.0,
            "ms_p95": round(sorted(ms)[int(0.95 * (len(ms) - 1))], 2) if ms else 0.0}
