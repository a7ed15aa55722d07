"""`harness bench executor`: the same generated run on the local executor and on a Ray instance
on this machine with the same worker count (docs/benchmarks.md).

The attempts are synthetic (a fixed-seed lognormal duration, then an accepted body) and the gate
passes through, so the two runs differ only in where attempts run: the real scheduler, Stage 2
loop, git record and event log are the same. Reported: the makespan of each and their ratio, and
the dispatch overhead per attempt — from ``submit`` to the result being back in the head,
minus the attempt's own run time (measured inside the worker), averaged over the run.
"""

from __future__ import annotations

import hashlib
import math
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.blueprint.generate import generate_blueprint
from harness.orchestrator.executor import AttemptJob, AttemptResult, LocalExecutor, Runner
from harness.orchestrator.batchmerge import GateOutcome
from harness.orchestrator.record import Record
from harness.orchestrator.run import Session
from harness.orchestrator.runmodels import RunSettings, Services


def duration(node: str, mean_s: float) -> float:
    """A deterministic lognormal duration per node (sigma 0.5), mean ``mean_s``."""
    h = int(hashlib.sha256(node.encode()).hexdigest()[:12], 16) / 16 ** 12
    z = math.sqrt(2) * _erfinv(2 * min(max(h, 1e-6), 1 - 1e-6) - 1)
    sigma = 0.5
    return mean_s * math.exp(sigma * z - sigma ** 2 / 2)


def _erfinv(y: float) -> float:
    a = 0.147  # Winitzki's approximation: plenty for spreading durations
    ln = math.log(1 - y * y)
    t = 2 / (math.pi * a) + ln / 2
    return math.copysign(math.sqrt(math.sqrt(t * t - ln / a) - t), y)


def sleep_runner(spec: Any = None, pool: Any = None, mean_s: float | None = None) -> Runner:
    """The synthetic attempt (also the Ray workers' factory: ``spec.config["bench_mean_s"]``)."""
    mean = mean_s if mean_s is not None else float((spec.config if spec else {})
                                                    .get("bench_mean_s", 0.2))

    def run(job: AttemptJob) -> AttemptResult:
        t0 = time.monotonic()
        time.sleep(duration(job.node, mean))
        return AttemptResult(aid=job.aid, node=job.node, ok=True, body="by\n  omega",
                             role="prove", seconds=round(time.monotonic() - t0, 6))

    return run


class Timed:
    """Wraps an executor: submit-to-result time of every attempt, minus its own run time."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.t_submit: dict[str, float] = {}
        self.overheads: list[float] = []

    def submit(self, job: AttemptJob) -> None:
        self.t_submit[job.aid] = time.perf_counter()
        self.inner.submit(job)

    def poll(self, timeout: float) -> list[AttemptResult]:
        out = self.inner.poll(timeout)
        now = time.perf_counter()
        for r in out:
            self.overheads.append(now - self.t_submit.pop(r.aid) - r.seconds)
        return out

    def running(self) -> int:
        return self.inner.running()

    def shutdown(self) -> None:
        self.inner.shutdown()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _one_run(make: Any, n_nodes: int, workers: int, seed: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="hbench") as tmp:
        ws = Path(tmp)
        (ws / "lakefile.lean").write_text("import Lake\nopen Lake DSL\n\npackage bench\n")
        f = ws / "Gen.lean"
        f.write_text(generate_blueprint(n_nodes, seed=seed))
        box: dict[str, Timed] = {}

        def factory(session: Session, record: Record) -> Services:
            def make_executor(runner: Runner, n: int) -> Timed:
                box["ex"] = Timed(make(runner, n))
                return box["ex"]

            gate = lambda t, b, labels, **kw: GateOutcome(True, True, [])  # noqa: E731
            return Services(runner=sleep_runner(mean_s=0.0), make_gate=lambda: gate,
                            make_executor=make_executor)

        s = Session(f, RunSettings(stage="2", workers=workers, batch_window=0.05,
                                   batch_size=max(1, workers)), workspace=ws)
        t0 = time.perf_counter()
        res = s.run(factory)
        wall = time.perf_counter() - t0
        ov = box["ex"].overheads
        return {"makespan_s": round(wall, 3), "attempts": res.attempts,
                "proved": res.counts.get("proved", 0), "open": res.counts.get("open", 0),
                "overhead_ms_mean": round(1000 * statistics.fmean(ov), 2) if ov else None,
                "overhead_ms_p50": round(1000 * statistics.median(ov), 2) if ov else None}


def executor_benchmark(n_nodes: int = 60, workers: int = 2, mean_s: float = 0.2,
                       seed: int = 0) -> dict[str, Any]:
    from harness.cluster.setup import require_ray

    require_ray()
    import ray

    from harness.cluster.connect import connect
    from harness.cluster.executor import RayExecutor
    from harness.cluster.worker import WorkerSpec

    local = _one_run(lambda runner, n: LocalExecutor(sleep_runner(mean_s=mean_s), n),
                     n_nodes, workers, seed)
    t0 = time.perf_counter()
    started = connect(None, workers=workers)
    startup = time.perf_counter() - t0
    try:
        with tempfile.TemporaryDirectory(prefix="hbenchws") as tmp:
            (Path(tmp) / "lakefile.lean").write_text("package bench\n")
            spec = WorkerSpec(workspace=tmp, lean_memory_gb=0.05, config={"bench_mean_s": mean_s},
                              needs_lean=False,
                              factory="harness.cluster.bench:sleep_runner")

            def make_ray() -> Any:  # made before the clock starts, like a session's
                ex = RayExecutor(spec, started=False)  # preflight does (nodes checked)
                return lambda runner, n: ex

            _one_run(make_ray(), max(4, 2 * workers), workers, seed + 1)  # warm worker pool
            on_ray = _one_run(make_ray(), n_nodes, workers, seed)
    finally:
        if started:
            ray.shutdown()
    return {"benchmark": "executor", "nodes": n_nodes, "workers": workers,
            "mean_attempt_s": mean_s, "local": local, "ray": on_ray,
            "ray_startup_s": round(startup, 2),
            "added_overhead_ms": (round(on_ray["overhead_ms_mean"] - local["overhead_ms_mean"], 2)
                                  if on_ray["overhead_ms_mean"] is not None else None),
            "makespan_ratio": round(on_ray["makespan_s"] / local["makespan_s"], 3)}


def warm_lean_saving(lake: str, n_checks: int = 10, n_nodes: int = 40) -> dict[str, Any]:
    """Per goal query: a cold check (``check_node``: a fresh Lean elaborates the header and
    the file) against the node service's warm REPL (header elaborated once, then one command
    per query), on a generated blueprint. With the Lean doubles, set their cost model
    (FAKE_LEAN_IMPORT_S, FAKE_LEAN_DECL_S: tests/fakes/README.md) to give the header a cost."""
    import os

    from harness.blueprint.parse import parse_text
    from harness.lean.nodecheck import build_check_text, check_node
    from harness.lean.pool import ReplPool
    from harness.lean.toolchain import find_toolchain

    with tempfile.TemporaryDirectory(prefix="hwarm") as tmp:
        ws = Path(tmp)
        (ws / "lakefile.lean").write_text("import Lake\nopen Lake DSL\n\npackage bench\n")
        f = ws / "Gen.lean"
        f.write_text(generate_blueprint(n_nodes, seed=0))
        bp = parse_text(f.read_text(), f)
        tc = find_toolchain(ws, str(Path(lake).resolve()) if Path(lake).exists() else lake)
        labels = [d.label for d in bp.decls if d.is_node and d.kind.is_proof][:n_checks]
        header = bp.text[:bp.header_span.end]
        cold: list[float] = []
        for label in labels:
            t0 = time.perf_counter()
            check_node(tc, ws, bp, label, "by\n  sorry", timeout_s=120)
            cold.append(time.perf_counter() - t0)
        warm: list[float] = []
        with ReplPool(tc.repl(), cwd=ws, timeout_s=120) as pool:
            t0 = time.perf_counter()
            with pool.session(header):
                pass
            warmup = time.perf_counter() - t0
            for label in labels:
                check, marks = build_check_text(bp, bp.node(label), "by\n  sorry", "")
                code = check[bp.header_span.end:marks["end"]]
                t0 = time.perf_counter()
                pool.command(header, code, timeout_s=120)
                warm.append(time.perf_counter() - t0)
    c, w = statistics.median(cold), statistics.median(warm)
    model = {k: os.environ[k] for k in ("FAKE_LEAN_IMPORT_S", "FAKE_LEAN_DECL_S")
             if k in os.environ}
    return {"benchmark": "warm-lean", "checks": len(labels), "cost_model": model,
            "cold_ms_p50": round(1000 * c, 1), "warm_ms_p50": round(1000 * w, 1),
            "saving_ms_per_query": round(1000 * (c - w), 1),
            "warmup_s": round(warmup, 3), "speedup": round(c / w, 1) if w else None}
