"""Orchestrator benchmarks: the scheduling comparison (simulated time) and the per-merge overhead
of the record (git + bookkeeping, the gate excluded) on a large generated blueprint."""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.blueprint.dag import analyse
from harness.blueprint.generate import generate_blueprint
from harness.blueprint.parse import parse_text
from harness.orchestrator.events import EventLog
from harness.orchestrator.batchmerge import Candidate, GateOutcome
from harness.orchestrator.record import Record
from harness.orchestrator.scheduler_model import Policy
from harness.orchestrator.simulate import generate_dag, simulate
from harness.orchestrator.workgraph import work_graph


def scheduling(n: int = 258, seeds: tuple[int, ...] = (0, 1, 2, 3, 4),
               workers: tuple[int, ...] = (4, 8, 16, 32), failure_rate: float = 0.0,
               gate_latency: float = 0.0) -> list[dict[str, Any]]:
    rows = []
    for p in workers:
        for seed in seeds:
            dag = generate_dag(n, seed)
            pipe = simulate(dag, p, Policy.PIPELINED, failure_rate=failure_rate, seed=seed,
                            gate_latency=gate_latency)
            bar = simulate(dag, p, Policy.BARRIER, failure_rate=failure_rate, seed=seed,
                           gate_latency=gate_latency, barrier_batch=16)
            rows.append({"workers": p, "seed": seed, "lower_bound": pipe.lower_bound,
                         "pipelined": pipe.makespan, "barrier": bar.makespan,
                         "pipelined_ratio": pipe.ratio, "barrier_ratio": bar.ratio,
                         "speedup": bar.makespan / pipe.makespan})
    return rows


def merge_overhead(n_nodes: int = 1000, merges: int = 30, batch: int = 1, seed: int = 0
                   ) -> dict[str, float]:
    """Milliseconds per proof merge: apply on the head text (span index) + commit (git, working
    file, index entry) + the event-log entries (fsync'd) — everything a merge costs except the
    gate itself (a pass-through gate here; the real gate's cost is Lean's). ``reanalyse_ms``:
    the full re-parse + DAG recomputation that only a repair split needs."""
    text = generate_blueprint(n_nodes, seed)
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp)
        f = ws / "Big.lean"
        f.write_text(text)
        rec = Record(ws, f)
        rec.run_id = "bench"
        rec.ensure_committed("start\n")
        log = EventLog(ws / "events.jsonl")
        a = analyse(parse_text(text, f))
        _, work, _, _ = work_graph(a)
        gate = lambda t, b, labels, **kw: GateOutcome(True, True, [])  # noqa: E731
        times: list[float] = []
        parts: dict[str, list[float]] = {"merge": [], "analyse": []}
        for i in range(merges):
            nodes = work[i * batch:(i + 1) * batch]
            cands = [Candidate(f"{n}#1", n, "by\n  omega") for n in nodes]
            t0 = time.perf_counter()
            ev = log.append("merge_intent", nodes=nodes, aids=[c.aid for c in cands])
            out = rec.merge_batch(cands, gate, run_id="bench", batch_id=f"b{ev['seq']}")
            log.append("gate", batch=f"b{ev['seq']}", merged=[c.aid for c in out.merged],
                       rejected={})
            log.append("merged", batch=f"b{ev['seq']}", commit=out.commit, nodes=nodes)
            t1 = time.perf_counter()
            if i % 10 == 0:  # what a split merge adds: the full DAG recomputation
                work_graph(analyse(parse_text(rec.head_text(), f)))
                parts["analyse"].append(time.perf_counter() - t1)
            parts["merge"].append(t1 - t0)
            times.append(t1 - t0)
        log.close()
    return {"nodes": n_nodes, "merges": merges, "batch": batch,
            "median_ms": statistics.median(times) * 1000,
            "p90_ms": sorted(times)[int(0.9 * len(times))] * 1000,
            "reanalyse_ms": statistics.median(parts["analyse"]) * 1000,
            "full_parses": rec.index.parses}


if __name__ == "__main__":  # python -m harness.orchestrator.benchmark
    import json

    print(json.dumps(merge_overhead(), indent=2))
