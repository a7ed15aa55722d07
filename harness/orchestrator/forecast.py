"""`status`: the spend so far and what finishing would cost, from this run's own attempts.

Each node merged so far took some number of attempts; the remaining open nodes are assumed to
be like them. The forecast resamples those counts (bootstrap, fixed seed) for the remaining
nodes and reports the median and an 80% interval of attempts, cost (mean cost per attempt) and
wall time (mean attempt time / workers). Below MIN_SAMPLES merged nodes it says so instead of
guessing. Pure: events in, numbers out.
"""

from __future__ import annotations

import random
from typing import Any

MIN_SAMPLES = 3
DRAWS = 1000


def forecast(events: list[dict[str, Any]], open_nodes: int, workers: int = 1) -> dict[str, Any]:
    attempts: dict[str, int] = {}
    costs: list[float] = []
    secs: list[float] = []
    merged: set[str] = set()
    spent = 0.0
    for ev in events:
        k = ev.get("kind")
        if k == "attempt":
            attempts[ev["node"]] = attempts.get(ev["node"], 0) + 1
            costs.append(float(ev.get("cost") or 0.0))
            secs.append(float(ev.get("seconds") or 0.0))
        elif k == "merged":
            merged.update(ev.get("nodes", []))
        spent += float(ev.get("cost") or 0.0) if k not in ("attempt",) else 0.0
    spent += sum(costs)
    out: dict[str, Any] = {"spent_usd": round(spent, 4), "open_nodes": open_nodes,
                           "samples": sum(1 for n in merged if n in attempts)}
    per_node = [attempts[n] for n in merged if n in attempts]
    if open_nodes <= 0:
        out.update(basis="nothing left to prove", attempts=(0, 0, 0), cost_usd=(0.0, 0.0, 0.0),
                   hours=(0.0, 0.0, 0.0))
        return out
    if len(per_node) < MIN_SAMPLES or not costs:
        out["basis"] = (f"not enough data: {len(per_node)} node(s) merged so far "
                        f"(a forecast needs {MIN_SAMPLES})")
        return out
    rng = random.Random(0)
    totals = sorted(sum(rng.choice(per_node) for _ in range(open_nodes)) for _ in range(DRAWS))
    lo, mid, hi = (totals[int(q * (DRAWS - 1))] for q in (0.1, 0.5, 0.9))
    c, s = sum(costs) / len(costs), sum(secs) / len(secs)
    out.update(basis=f"{len(per_node)} merged nodes of this run, {len(costs)} attempts",
               attempts=(lo, mid, hi),
               cost_usd=tuple(round(x * c, 2) for x in (lo, mid, hi)),
               hours=tuple(round(x * s / max(workers, 1) / 3600, 2) for x in (lo, mid, hi)))
    return out


def render(f: dict[str, Any]) -> str:
    head = f"spent ${f['spent_usd']:.2f}; {f['open_nodes']} node(s) left"
    if "cost_usd" not in f:
        return f"{head}; forecast: {f['basis']}"
    lo, mid, hi = f["cost_usd"]
    hl, hm, hh = f["hours"]
    return (f"{head}; to finish: ${mid:.2f} (80%: ${lo:.2f}–${hi:.2f}), "
            f"{hm:.1f} h (80%: {hl:.1f}–{hh:.1f} h) — from {f['basis']}")
