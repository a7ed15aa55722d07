"""`harness simulate --project F`: one pipelined run over a whole project against per-file
runs in import order (issue 22), the real scheduler against simulated time.

A project-shaped DAG: F files (the groups) in import order, each importing 1–3 of the few files
before it; a node uses earlier nodes of its own file and, often, a node of a file it imports.
*One run*: one scheduler over every node (a node starts when its dependencies are proved,
whatever file they are in). *Per file*: the way a user scripts `run FILE` file after file — each
file's nodes get the workers only after the previous file's run ended, so workers idle at every
file boundary (the slowest node of each file is a barrier).
"""

from __future__ import annotations

import math
import random

from harness.orchestrator.scheduler_model import Policy
from harness.orchestrator.simulate import SimDag, SimNode, lower_bound, simulate


def generate_project_dag(files: int = 10, per_file: int = 25, seed: int = 0, *,
                         median: float = 600.0, sigma: float = 1.3) -> SimDag:
    """Nodes `f03.n07` grouped by file `f03`; files listed in import order."""
    rng = random.Random(seed)
    nodes: list[SimNode] = []
    edges: list[tuple[str, str]] = []
    by_file: list[list[str]] = []
    for f in range(files):
        imports = sorted({max(0, f - 1 - int(rng.expovariate(1.0)))
                          for _ in range(rng.randint(1, 3))}) if f else []
        mine: list[str] = []
        for j in range(per_file):
            nid = f"f{f:02d}.n{j:02d}"
            dur = round(median * math.exp(rng.gauss(0, sigma)), 1)
            nodes.append(SimNode(id=nid, duration=dur, group=f"f{f:02d}"))
            deps: set[str] = set()
            if mine and rng.random() < 0.75:  # earlier nodes of its own file, mostly the last few
                for _ in range(rng.randint(1, 2)):
                    deps.add(mine[max(0, len(mine) - 1 - int(rng.expovariate(0.5)))])
            if imports and rng.random() < 0.5:  # a node of a file it imports
                deps.add(rng.choice(by_file[rng.choice(imports)]))
            edges.extend((d, nid) for d in sorted(deps))
            mine.append(nid)
        by_file.append(mine)
    return SimDag(nodes=nodes, edges=edges)


def per_file_makespan(dag: SimDag, workers: int, **kw) -> float:
    """Each file's own run, one after another in import order (its imports are then proved)."""
    groups: dict[str | None, list[SimNode]] = {}
    for n in dag.nodes:
        groups.setdefault(n.group, []).append(n)
    total = 0.0
    for members in groups.values():
        ids = {n.id for n in members}
        sub = SimDag(nodes=members, edges=[(a, b) for a, b in dag.edges if a in ids and b in ids])
        total += simulate(sub, workers, Policy.PIPELINED, **kw).makespan
    return total


def compare_project(dag: SimDag, workers: int, *, failure_rate: float = 0.0, seed: int = 0,
                    gate_latency: float = 0.0) -> dict[str, float]:
    kw = {"failure_rate": failure_rate, "seed": seed, "gate_latency": gate_latency}
    one = simulate(dag, workers, Policy.PIPELINED, **kw).makespan
    files = per_file_makespan(dag, workers, **kw)
    cp, total, lb = lower_bound(dag, workers, failure_rate=failure_rate, seed=seed)
    return {"workers": workers, "lower_bound": lb, "critical_path": cp, "total_work": total,
            "one_run": one, "per_file": files, "one_run_ratio": round(one / lb, 4),
            "per_file_ratio": round(files / lb, 4), "gain": round(files / one, 3)}
