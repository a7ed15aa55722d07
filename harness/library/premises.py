"""Premise recall: how often the index ranks the lemmas a proof actually uses in its top k.

For each proved theorem T of a corpus (a proof with no `sorry`): the query is T's statement and
docstring, from T's own namespace, opens and module; the gold set is the corpus declarations
T's proof mentions (:mod:`harness.library.mentions`: locals, case tags and named arguments are
not mentions; names resolved as Lean would from T's scope, `c.f` mentions the constant `c`), T
itself excluded and never returned. recall@k = |gold ∩ top k| / |gold|, averaged over the
theorems; MRR = the mean of 1/rank of the first gold hit (0 when none is in the top k). The plain
BM25 baseline (:meth:`LibraryIndex.baseline`) runs on the same index, same queries, same run.

Runs: `ranker` (the place's namespace, opens, module and line, with no imports known; only
modules that do not import the place's module are visible, so no later proof votes or counts),
`search` (plain `harness search`: no context at all), `search_for` (what `search --for/--at`
and the prover's tool get: the place plus the modules the file imports, transitively) and BM25
with the same filters (`baseline_bm25_accessible`, `baseline_bm25_visible`), to show what a
filter alone buys.
With a leanblueprint LaTeX blueprint, `blueprint`: `search_for` without and with the nodes'
`\\uses` (:func:`blueprint_runs`).
"""

from __future__ import annotations

import hashlib
import os
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
from harness.library.visible import imported_modules

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


def split_of(module: str) -> str:
    """The half a theorem's file falls in: `tune` or `held_out`, by a hash of its module name
    (stable across runs and machines; a file's theorems never straddle the halves)."""
    return "tune" if hashlib.sha1(module.encode()).digest()[0] % 2 == 0 else "held_out"


def recall_benchmark(corpus: Path, *, sample: int | None = 500, k: int = 10,
                     workers: int | None = None, declared: bool = False,
                     tex_blueprint: Path | None = None) -> dict:
    """Recall@1 / @k and ms per query of the ranker and the baselines on one corpus, overall
    and per half of the corpus's files (`split`: ranker changes are tuned on `tune` only and
    judged on `held_out`; the index always holds the whole corpus). ``tex_blueprint``: a
    leanblueprint `src` directory; adds `blueprint` (:func:`blueprint_runs`)."""
    cases, n_names = corpus_cases(corpus, declared)
    n_all = len(cases)
    every = cases
    if sample is not None and len(cases) > sample:
        step = len(cases) / sample
        cases = [cases[int(i * step)] for i in range(sample)]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="harness-premises-") as tmp:
        idx = Path(tmp) / "premises.sqlite"
        build_index(corpus, path=idx, workers=workers, corpus=True)
        ix = LibraryIndex(check_index(idx), idx)
        deps = None
        if tex_blueprint is not None:
            from harness.library.texblueprint import dependencies, read_blueprint

            deps = dependencies(read_blueprint(tex_blueprint))
        bp_cases = [c for c in every if deps is not None and c[0].name in deps]
        vis = _visible(ix, corpus, {m for _, m, _ in cases + bp_cases})
        try:
            if deps is not None:
                blueprint = blueprint_runs(ix, bp_cases, deps, vis, k)
            runs = {"ranker": _run(ix, cases, k, ranked=True,
                                   visible=_not_downstream(ix, corpus, {m for _, m, _ in cases})),
                    "search": _run(ix, cases, k, ranked=True, place=False),
                    "search_for": _run(ix, cases, k, ranked=True, visible=vis),
                    "baseline_bm25_visible": _run(ix, cases, k, ranked=False, accessible=True,
                                                  visible=vis),
                    "baseline_bm25": _run(ix, cases, k, ranked=False),
                    # the baseline given the same accessibility filter (what the filter buys)
                    "baseline_bm25_accessible": _run(ix, cases, k, ranked=False,
                                                     accessible=True)}
        finally:
            ix.close()
    halves = [split_of(module) for _, module, _ in cases]
    out: dict = {"corpus": str(corpus), "declarations": n_names, "theorems": len(cases),
                 "theorems_with_gold": n_all, "k": k,
                 "gold_mean": round(statistics.fmean(len(g) for *_, g in cases), 2)
                 if cases else 0.0}
    out.update({name: _summary(r, k) for name, r in runs.items()})
    out["recall@10_ratio"] = _ratio(out)
    out["recall@10_ratios"] = _ratios(out)
    out["split"] = {}
    for half in ("tune", "held_out"):
        keep = [i for i, h in enumerate(halves) if h == half]
        part: dict = {"theorems": len(keep),
                      "files": len({cases[i][1] for i in keep})}
        part.update({name: _summary([r[i] for i in keep], k) for name, r in runs.items()})
        part["recall@10_ratio"] = _ratio(part)
        part["recall@10_ratios"] = _ratios(part)
        out["split"][half] = part
    if deps is not None:
        out["blueprint"] = blueprint
    out["wall_s"] = round(time.perf_counter() - wall0, 2)
    out["cpu_s"] = round(time.process_time() - cpu0, 2)
    out["load_avg_1m"] = round(os.getloadavg()[0], 2)
    return out


def blueprint_runs(ix: LibraryIndex, cases: list, deps: dict, vis: dict, k: int) -> dict:
    """The theorems with a blueprint node (``deps``: texblueprint.dependencies), from their place
    with their file's imports (`search --for`), without and with the node's dependencies as
    ``QueryContext.near`` (the path `--for` and `search_library` take): the statement's `\\uses`
    only, and the statement's and the proof's; BM25 in the same run. ``named``: the share of
    gold premises the dependencies name outright (the proof's overlap the gold by design)."""
    stmt = {d.name: deps[d.name].statement for d, _, _ in cases}
    both = {d.name: tuple(dict.fromkeys(deps[d.name].statement + deps[d.name].proof))
            for d, _, _ in cases}
    runs = {"baseline_bm25": _run(ix, cases, k, ranked=False),
            "search_for": _run(ix, cases, k, ranked=True, visible=vis),
            "search_for_statement_uses": _run(ix, cases, k, ranked=True, visible=vis,
                                              near=stmt),
            "search_for_all_uses": _run(ix, cases, k, ranked=True, visible=vis, near=both)}
    out: dict = {"theorems_with_node": len(cases),
                 "with_statement_uses": sum(bool(v) for v in stmt.values()),
                 "with_any_uses": sum(bool(v) for v in both.values())}
    for key, near in (("statement_uses", stmt), ("all_uses", both)):
        named = [len(g & set(near[d.name])) / len(g) for d, _, g in cases]
        out[f"gold_named_by_{key}"] = round(statistics.fmean(named), 4) if named else 0.0
    out.update({name: _summary(r, k) for name, r in runs.items()})
    b = out["baseline_bm25"]["recall@10"]
    out["recall@10_ratios"] = {n: round(out[n]["recall@10"] / b, 3) if b else None
                               for n in runs if n != "baseline_bm25"}
    return out


def _visible(ix: LibraryIndex, corpus: Path, modules: set[str]) -> dict[str, frozenset[str]]:
    """Each queried module's transitive imports within the corpus."""
    out: dict[str, frozenset[str]] = {}
    for module, rel in ix.rows("SELECT module, rel FROM files", ()):
        if module in modules and module not in out:
            try:
                text = (corpus / rel).read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            out[module] = imported_modules(ix.rows, corpus, text) - {module}
    return out


def _not_downstream(ix: LibraryIndex, corpus: Path, modules: set[str]
                    ) -> dict[str, frozenset[str]]:
    """Per queried module M: every corpus module except M and those importing M (directly or
    not) — the `ranker` run's place knows no imports, but a proof that imports M is written
    after it and may not vote or count for it (k-NN, usage centrality)."""
    from collections import deque

    from harness.library.visible import header_imports

    files = dict(ix.rows("SELECT module, rel FROM files", ()))
    importers: dict[str, set[str]] = {}
    for module, rel in files.items():
        try:
            with (corpus / rel).open(encoding="utf-8", errors="replace") as fh:
                head = fh.read(64 << 10)
        except OSError:
            continue
        for imp in header_imports(head)[0]:
            # a root with no file stands for the modules under it (as visible.py reads it)
            for target in [imp] if imp in files else [x for x in files
                                                      if x.startswith(imp + ".")]:
                importers.setdefault(target, set()).add(module)
    out: dict[str, frozenset[str]] = {}
    for m in modules:
        down, todo = {m}, deque([m])
        while todo:
            for x in importers.get(todo.popleft(), ()):
                if x not in down:
                    down.add(x)
                    todo.append(x)
        out[m] = frozenset(files) - down
    return out


def _ratio(r: dict, run: str = "ranker") -> float | None:
    b = r["baseline_bm25"]["recall@10"]
    return round(r[run]["recall@10"] / b, 3) if b else None


def _ratios(r: dict) -> dict:
    return {run: _ratio(r, run) for run in ("ranker", "search", "search_for")}


def _summary(rows: list[tuple[float, float, float, float]], k: int) -> dict:
    """Mean recall@1, recall@k, MRR and latency over (r1, rk, ms, rr) rows."""
    if not rows:
        return {"recall@1": 0.0, f"recall@{k}": 0.0, "recall@10": 0.0, "mrr": 0.0,
                "ms_per_query": 0.0, "ms_p95": 0.0}
    r1, rk, ms, rr = (list(c) for c in zip(*rows))
    return {"recall@1": round(statistics.fmean(r1), 4), f"recall@{k}": round(statistics.fmean(rk), 4),
            "recall@10": round(statistics.fmean(rk), 4), "mrr": round(statistics.fmean(rr), 4),
            "ms_per_query": round(statistics.fmean(ms), 2),
            "ms_p95": round(sorted(ms)[int(0.95 * (len(ms) - 1))], 2)}


def _run(ix: LibraryIndex, cases: list, k: int, *, ranked: bool, accessible: bool = False,
         place: bool = True, visible: dict[str, frozenset[str]] | None = None,
         near: dict[str, tuple[str, ...]] | None = None
         ) -> list[tuple[float, float, float, float]]:
    """(recall@1, recall@k, ms, reciprocal rank) per case. ``place``: the query knows where it
    is (namespace, opens, module, line); ``visible``: and what its file imports; ``near``: per
    theorem, its blueprint dependencies (Lean names)."""
    rows: list[tuple[float, float, float, float]] = []
    for d, module, gold in cases:
        text = f"{d.signature} {d.doc}"
        t0 = time.perf_counter()
        if place:
            ctx = QueryContext(namespace=d.namespace, opens=d.opens, module=module,
                               exclude=frozenset({d.name}), line=d.line,
                               visible=None if visible is None else visible.get(module),
                               near=near.get(d.name, ()) if near else ())
        else:
            ctx = QueryContext(exclude=frozenset({d.name}))
        if ranked:
            hits = ix.search(text, k, ctx=ctx)
        elif accessible:
            hits = ix.baseline(text, k, exclude=frozenset({d.name}), ctx=ctx)
        else:
            hits = ix.baseline(text, k, exclude=frozenset({d.name}))
        ms = (time.perf_counter() - t0) * 1000
        names = [h.name for h in hits]
        first = next((i for i, n in enumerate(names[:k]) if n in gold), None)
        rows.append((len(gold & set(names[:1])) / min(1, len(gold)),
                     len(gold & set(names[:k])) / len(gold), ms,
                     0.0 if first is None else 1.0 / (first + 1)))
    return rows
