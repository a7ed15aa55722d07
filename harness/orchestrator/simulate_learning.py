"""`harness simulate --learning`: what per-node memory, model tiers and racing buy, against
today's policy, with the real :class:`Scheduler` in simulated time (issue 23).

The model (assumptions, not measurements; docs/benchmarks.md says so):

* node ``v`` has a hardness ``h_v`` (lognormal); an attempt by a model of base success ``p``
  succeeds with probability ``min(0.95, p / h_v)``;
* memory: each earlier failure on ``v`` multiplies the odds of success by ``1 + memory_gain``;
* tiers: the cheap model until ``tier_after`` failures, then the strong one (slower, dearer);
* racing: up to ``race`` attempts at once on a running node when a worker would idle; the first
  success wins, the others run to their end and cost what they cost.

Every policy sees the same random draws: a draw is a hash of (seed, node, attempt number).
"""

from __future__ import annotations

import hashlib
import heapq
import math
import random
from dataclasses import dataclass

from harness.orchestrator.scheduler import Scheduler
from harness.orchestrator.scheduler_model import SchedulerConfig
from harness.orchestrator.simulate import SimDag

MAX_ATTEMPTS = 40


@dataclass(frozen=True)
class Model:
    name: str
    success: float  # base probability that an attempt on a node of hardness 1 succeeds
    usd: float  # cost of an attempt of median duration
    slowdown: float = 1.0  # attempt duration relative to the node's


@dataclass(frozen=True)
class LearningPolicy:
    name: str
    memory_gain: float = 0.0
    tiers: tuple[tuple[int, Model], ...] = ()  # (after N failures, model), ascending
    race: int = 1

    def model(self, failures: int, default: Model) -> Model:
        m = default
        for after, tier in self.tiers:
            if failures >= after:
                m = tier
        return m


@dataclass
class LearningResult:
    policy: str
    makespan: float
    cost_usd: float
    attempts: int
    proved: int
    blocked: int

    def to_json(self) -> dict:
        return {"policy": self.policy, "makespan": round(self.makespan, 1),
                "cost_usd": round(self.cost_usd, 2), "attempts": self.attempts,
                "proved": self.proved, "blocked": self.blocked}


def _draw(seed: int, node: str, attempt: int) -> float:
    h = hashlib.blake2b(f"L{seed}:{node}:{attempt}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") / 2**64


def hardness(dag: SimDag, seed: int, sigma: float = 0.8) -> dict[str, float]:
    rng = random.Random(f"hard{seed}")
    return {n.id: math.exp(rng.gauss(0, sigma)) for n in dag.nodes}


def simulate_learning(dag: SimDag, workers: int, policy: LearningPolicy, *, cheap: Model,
                      seed: int = 0, median: float = 600.0) -> LearningResult:
    g = dag.graph()
    dur = {n.id: n.duration for n in dag.nodes}
    hard = hardness(dag, seed)
    order = [n.id for n in dag.nodes]
    sched = Scheduler(g, order, SchedulerConfig(workers=workers, batch_size=1,
                                                max_attempts=MAX_ATTEMPTS, race=policy.race),
                      order=order)
    fails: dict[str, int] = {}
    events: list[tuple[float, int, tuple]] = []
    seq, now, cost, n_attempts = 0, 0.0, 0.0, 0

    def success(node: str, attempt: int, model: Model) -> bool:
        p = min(0.95, model.success / hard[node])
        k = fails.get(node, 0)
        if policy.memory_gain and k:
            odds = p / (1 - p) * (1 + policy.memory_gain) ** k
            p = min(0.95, odds / (1 + odds))
        return _draw(seed, node, attempt) < p

    while True:
        for d in sched.dispatch(now):
            m = policy.model(fails.get(d.node, 0), cheap)
            ok = success(d.node, d.attempt, m)
            t = dur[d.node] * m.slowdown
            cost += m.usd * dur[d.node] / median
            n_attempts += 1
            seq += 1
            heapq.heappush(events, (now + t, seq, ("attempt", d.node, d.worker, ok)))
        batch = sched.take_gate_batch(now)
        if batch:
            seq += 1
            heapq.heappush(events, (now, seq, ("gate", tuple(batch), 0, True)))
        if not events:
            break
        now, _, (kind, node, worker, ok) = heapq.heappop(events)
        if kind == "gate":
            sched.gate_done(list(node), {}, now)
            continue
        st = sched.nodes[node]
        if st.state.value != "running":
            sched.release_racer(node, worker)  # lost the race: its cost is already counted
        elif sched.racing(node, worker) and not ok:
            fails[node] = fails.get(node, 0) + 1
            sched.racer_failed(node, worker)
        else:
            if not ok:
                fails[node] = fails.get(node, 0) + 1
            sched.finish(node, ok, now, worker=worker)
    done = sum(1 for s in sched.nodes.values() if s.state.value == "done")
    return LearningResult(policy.name, now, cost, n_attempts, done, len(sched.blocked()))


def standard_policies(cheap: Model, strong: Model, tier_after: int = 2
                      ) -> list[LearningPolicy]:
    tiers = ((0, cheap), (tier_after, strong))
    return [
        LearningPolicy("today (cheap model, no memory)"),
        LearningPolicy("memory", memory_gain=0.5),
        LearningPolicy("memory + tiers", memory_gain=0.5, tiers=tiers),
        LearningPolicy("memory + tiers + race 2", memory_gain=0.5, tiers=tiers, race=2),
        LearningPolicy("memory + tiers + race 3", memory_gain=0.5, tiers=tiers, race=3),
        LearningPolicy("strong model only", tiers=((0, strong),)),
    ]


CHEAP = Model("cheap", success=0.35, usd=0.05)
STRONG = Model("strong", success=0.7, usd=0.60, slowdown=1.5)
