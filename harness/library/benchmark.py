"""`harness bench index`: the index at Mathlib size, on a generated tree (docs/benchmarks.md).

Measures, in one process: the full build (wall, CPU of this process and its scanner workers,
peak memory), the index size, query latency (the ranker and the plain BM25 baseline, same
queries; wall and CPU time per query; a reader's posting-list cache warm, then off), a one-shot
`harness search` (open the index, verify it, answer one query), and incremental rebuilds:
nothing changed; one small package updated (new revision, one file edited); one workspace file
edited. The machine's load average is recorded beside (wall figures depend on it).
"""

from __future__ import annotations

import json
import os
import random
import resource
import statistics
import tempfile
import time
from pathlib import Path

from harness.library import where
from harness.library.generate import generate_tree
from harness.library.query import open_index
from harness.library.store import build_index


def _cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def _timed(fn):
    w0, c0 = time.perf_counter(), _cpu()
    out = fn()
    return out, round(time.perf_counter() - w0, 2), round(_cpu() - c0, 2)


def _stats(ms: list[float], cpu: list[float]) -> dict:
    ms, cpu = sorted(ms), sorted(cpu)
    return {"mean_ms": round(statistics.fmean(ms), 2), "p50_ms": round(ms[len(ms) // 2], 2),
            "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 2),
            "cpu_mean_ms": round(statistics.fmean(cpu), 2),
            "cpu_p95_ms": round(cpu[int(0.95 * (len(cpu) - 1))], 2)}


def _latency(ix, queries: list[str], ranked: bool, ctx=None) -> dict:
    ms, cpu = [], []
    for q in queries:
        t0, c0 = time.perf_counter(), time.process_time()
        ix.search(q, 10, ctx=ctx) if ranked else ix.baseline(q, 10)
        ms.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return _stats(ms, cpu)


def _statements(ix, n: int) -> dict:
    """Premise-style queries (a proved theorem's signature and docstring, the theorem itself
    excluded): what the k-NN votes run on (rank.statement_like); ranked and BM25."""
    from harness.library.rank import QueryContext

    rows = ix._all("SELECT name, signature, doc FROM decls WHERE kind = 'theorem' AND uses != ''")
    step = max(1, len(rows) // max(1, n))
    picked = rows[::step][:n]
    out = {}
    for label, ranked in (("ranked", True), ("bm25", False)):
        ms, cpu = [], []
        for name, sig, doc in picked:
            ex = frozenset({name})
            t0, c0 = time.perf_counter(), time.process_time()
            if ranked:
                ix.search(f"{sig} {doc or ''}", 10, ctx=QueryContext(exclude=ex))
            else:
                ix.baseline(f"{sig} {doc or ''}", 10, exclude=ex)
            ms.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        out[label] = _stats(ms, cpu) if ms else {}
    return out


def _one_shot(ws: Path, queries: list[str]) -> dict:
    """What `harness search QUERY` pays: open + verify the index, one ranked query, close."""
    ms, cpu = [], []
    for q in queries:
        t0, c0 = time.perf_counter(), time.process_time()
        ix = open_index(ws, build=False)
        ix.search(q, 10)
        ix.close()
        ms.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return _stats(ms, cpu)


def index_benchmark(n_files: int = 7_000, n_queries: int = 200, seed: int = 0,
                    workers: int | None = None, keep: Path | None = None) -> dict:
    load0 = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="harness-index-bench-") as tmp:
        ws = keep or Path(tmp) / "ws"
        ws.mkdir(parents=True, exist_ok=True)
        (ws / "lakefile.lean").write_text("import Lake\nopen Lake DSL\npackage bench\n")
        pk = ws / ".lake" / "packages"
        gen, gen_s, _ = _timed(lambda: generate_tree(pk / "mathlib", n_files, seed=seed))
        generate_tree(pk / "batteries", max(10, n_files // 70), seed=seed + 1, prefix="Batteries")
        generate_tree(ws, 20, seed=seed + 2, prefix="Bench")
        manifest = {"version": 7, "packages": [{"name": "mathlib", "rev": "r1"},
                                               {"name": "batteries", "rev": "r1"}]}
        (ws / "lake-manifest.json").write_text(json.dumps(manifest))
        full, full_s, full_cpu = _timed(lambda: build_index(ws, rebuild=True, workers=workers))
        peak_mb = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
        ix = open_index(ws, build=False)
        rng = random.Random(seed)
        names = [r[0] for r in ix._all("SELECT name FROM decls WHERE kind='theorem' "
                                       "ORDER BY id LIMIT 20000")]
        queries = []
        for i in range(n_queries):
            n = rng.choice(names)
            short = n.rsplit(".", 1)[-1]
            queries.append([n, short, "_".join(short.split("_")[:2]),
                            " ".join(short.split("_")[:2]) + " bounded estimate"][i % 4])
        for q in queries[:20]:  # warm SQLite's page cache and the name caches, untimed
            ix.search(q, 10)
        ranked, base = _latency(ix, queries, True), _latency(ix, queries, False)
        # from a place (`search --at`, the prover's tool): a deep file's imports, its line
        deep = max(pk.joinpath("mathlib").rglob("*.lean"), key=lambda p: (len(p.parts), p))
        at_ctx = where.at(ix.rows, ws, f"{deep}:{deep.read_text().count(chr(10))}").ctx
        t0 = time.perf_counter()
        where.at(ix.rows, ws, f"{deep}:1")
        place_ms = round((time.perf_counter() - t0) * 1000, 1)
        ranked_at = _latency(ix, queries, True, at_ctx)
        stmt = _statements(ix, n_queries)
        ix.cache_bytes = 0  # every posting list read from the file again
        ranked_cold, base_cold = _latency(ix, queries, True), _latency(ix, queries, False)
        ix.close()
        one_shot = _one_shot(ws, queries[:40])
        noop, noop_s, _ = _timed(lambda: build_index(ws, workers=workers))
        f = sorted((pk / "batteries").rglob("*.lean"))[0]
        f.write_text(f.read_text() + "\ntheorem bench_changed_lemma : True := trivial\n")
        manifest["packages"][1]["rev"] = "r2"
        (ws / "lake-manifest.json").write_text(json.dumps(manifest))
        pkg, pkg_s, _ = _timed(lambda: build_index(ws, workers=workers))
        w = sorted(ws.glob("Bench/**/*.lean"))[0]
        w.write_text(w.read_text() + "\ntheorem bench_ws_lemma : True := trivial\n")
        wsr, ws_s, _ = _timed(lambda: build_index(ws, workers=workers))
    return {"files": gen["files"], "decls": full.decls, "source_mb": round(gen["bytes"] / 1e6, 1),
            "generate_s": gen_s, "full_build_s": full_s, "full_build_cpu_s": full_cpu,
            "peak_rss_mb": round(peak_mb), "index_mb": round(full.bytes / 1e6, 1),
            "query_ranked": ranked, "query_bm25": base, "queries": n_queries,
            "query_ranked_at": ranked_at, "visible_modules_at": len(at_ctx.visible or ()),
            "query_statement": stmt,
            "place_resolve_ms": place_ms,
            "query_ranked_uncached": ranked_cold, "query_bm25_uncached": base_cold,
            "search_one_shot": one_shot, "load_avg_start": load0,
            "load_avg_end": [round(x, 2) for x in os.getloadavg()],
            "noop_refresh_s": noop_s, "package_update_s": pkg_s,
            "package_update_scanned": pkg.scanned, "workspace_edit_s": ws_s,
            "workspace_edit_scanned": wsr.scanned, "noop_scanned": noop.scanned}


def context_effect(files: list[Path], workspace: Path) -> dict:
    """`bench context --blueprint FILE`: what the library adds to each proof node's context —
    names the informal proofs mention, how many resolve (blueprint / index), premises shown,
    tokens without and with the library sections, nodes where the cap dropped entries."""
    from harness.agents.context import build_context
    from harness.blueprint import parse_file
    from harness.blueprint.dag import analyse
    from harness.library.agent import mentioned_names, module_of

    ix = open_index(workspace)
    rows = {"nodes": 0, "mentioned": 0, "in_blueprint": 0, "resolved_library": 0,
            "unresolved": 0, "premises": 0, "library_omitted_nodes": 0}
    without: list[int] = []
    with_lib: list[int] = []
    try:
        for f in files:
            bp = parse_file(f)
            graph = analyse(bp).graph
            module = module_of(bp.path, workspace)
            for d in bp.nodes:
                if not (d.kind.is_proof and d.blueprint):
                    continue
                a = build_context(bp, d.blueprint.label, graph)
                b = build_context(bp, d.blueprint.label, graph, library=ix, module=module)
                informal = " ".join(x for x in (d.blueprint.statement, d.blueprint.proof) if x)
                m = mentioned_names(informal)
                rows["nodes"] += 1
                rows["mentioned"] += len(m)
                rows["resolved_library"] += len(b.named)
                rows["unresolved"] += len(b.unresolved)
                rows["in_blueprint"] += len(m) - len(b.named) - len(b.unresolved)
                rows["premises"] += len(b.premises)
                rows["library_omitted_nodes"] += bool(b.library_omitted)
                without.append(a.tokens)
                with_lib.append(b.tokens)
    finally:
        ix.close()
    return {**rows, "index_decls": ix.n_docs,
            "tokens_mean_without": round(statistics.fmean(without)) if without else 0,
            "tokens_mean_with": round(statistics.fmean(with_lib)) if with_lib else 0,
            "tokens_max_with": max(with_lib, default=0)}
