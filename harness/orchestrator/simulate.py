"""`harness simulate`: the real :class:`Scheduler` against simulated time.

Attempts take the node's duration; an attempt fails with probability ``failure_rate``, decided
by a hash of (seed, node, attempt number) so that every policy sees exactly the same failures
(and the lower bound can be computed from the realised work). The gate takes ``gate_latency``
per batch and checks one batch at a time.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import math
import random
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx
from pydantic import BaseModel, Field, ValidationError

from harness.errors import InputError
from harness.orchestrator.scheduler import Scheduler
from harness.orchestrator.scheduler_model import Policy, SchedulerConfig


class SimNode(BaseModel):
    id: str
    duration: float = Field(ge=0, allow_inf_nan=False)  # seconds, finite
    group: str | None = None  # its file, in a project-shaped DAG (simproject.py)


class SimDag(BaseModel):
    nodes: list[SimNode]
    edges: list[tuple[str, str]] = []

    def graph(self) -> nx.DiGraph:
        g = nx.DiGraph()
        g.add_nodes_from(n.id for n in self.nodes)
        g.add_edges_from(self.edges)
        return g


def load_dag(path: Path) -> SimDag:
    """Read and validate DAG.json; every problem is one `FILE:LINE:COL: …` line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(path, 1, 0, f"cannot read: {err.strerror or err}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(path, err.lineno, err.colno - 1, f"invalid JSON: {err.msg}") from None
    if _is_graph_json(raw):
        raw = from_graph_json(raw)
    try:
        dag = SimDag.model_validate(raw)
    except ValidationError as err:
        e = err.errors()[0]
        where = ".".join(str(x) for x in e["loc"])
        line, col = _locate(text, e["loc"], raw)
        raise InputError(path, line, col, f"{where}: {e['msg']}") from None
    ids = [n.id for n in dag.nodes]
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            raise InputError(path, 1, 0, f"duplicate node id {i!r}")
        seen.add(i)
    for a, b in dag.edges:
        for x in (a, b):
            if x not in seen:
                raise InputError(path, 1, 0, f"edge [{a!r}, {b!r}] names unknown node {x!r}")
    g = dag.graph()
    if not nx.is_directed_acyclic_graph(g):
        cyc = " -> ".join(a for a, _ in nx.find_cycle(g))
        raise InputError(path, 1, 0, f"the graph has a cycle: {cyc}")
    return dag


# the duration of a node still to prove when the graph says nothing of time (the median of
# :func:`generate_dag`'s attempts); proved nodes and those with a complete body take none
DEFAULT_DURATION_S = 600.0


def _is_graph_json(raw: object) -> bool:
    """The JSON `harness graph -o x.json` writes: nodes keyed by `key`, edges source/target."""
    return (isinstance(raw, dict) and isinstance(raw.get("nodes"), list)
            and any(isinstance(n, dict) and "key" in n and "id" not in n for n in raw["nodes"]))


def from_graph_json(raw: dict) -> dict:
    """`harness graph`'s JSON as a DAG.json: every node its `key`; a node to prove (state ready
    or open, or a body with `sorry`) takes ``duration`` if given, else DEFAULT_DURATION_S."""
    nodes, edges = [], []
    for n in raw["nodes"]:
        if not isinstance(n, dict) or "key" not in n:
            continue
        todo = n.get("state") in ("ready", "open", "blocked") or n.get("body") in (
            "sorry", "sorry_using", "admit", "no_body")
        done = n.get("state") in ("proved", "informal")
        dur = n.get("duration", DEFAULT_DURATION_S if todo and not done else 0.0)
        nodes.append({"id": n["key"], "duration": dur})
    for e in raw.get("edges") or []:
        if isinstance(e, dict) and "source" in e and "target" in e:
            edges.append((e["source"], e["target"]))
        elif isinstance(e, (list, tuple)) and len(e) >= 2:
            edges.append((e[0], e[1]))
    return {"nodes": nodes, "edges": edges}


def _locate(text: str, loc: tuple, raw: object) -> tuple[int, int]:
    """Best-effort position of a validation error: the offending node's `"id"` in the text."""
    if len(loc) >= 2 and loc[0] == "nodes" and isinstance(loc[1], int) and isinstance(raw, dict):
        nodes = raw.get("nodes")
        if isinstance(nodes, list) and loc[1] < len(nodes) and isinstance(nodes[loc[1]], dict):
            ident = nodes[loc[1]].get("id")
            if isinstance(ident, str):
                i = text.find(json.dumps(ident))
                if i != -1:
                    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1)
    return 1, 0


def generate_dag(n: int = 258, seed: int = 0, *, median: float = 600.0, sigma: float = 1.3,
                 depth: int | None = None, max_deps: int = 3) -> SimDag:
    """A blueprint-shaped DAG: ``depth`` sections (default ~n/10) in file order; a node uses
    1..max_deps nodes of earlier sections, mostly the previous one or two, sometimes far back;
    ~10% are roots. Durations are lognormal (heavy-tailed: the slowest nodes take 20-50x the
    median). File order is a topological order, as in a blueprint file."""
    rng = random.Random(seed)
    depth = depth or max(1, round(n / 10))
    section = sorted(min(depth - 1, int(rng.random() * depth)) for _ in range(n))
    nodes = [SimNode(id=f"n{i:03d}", duration=round(median * math.exp(rng.gauss(0, sigma)), 1))
             for i in range(n)]
    by_section: dict[int, list[int]] = {}
    for i, s in enumerate(section):
        by_section.setdefault(s, []).append(i)
    edges: list[tuple[str, str]] = []
    for i, s in enumerate(section):
        if s == 0 or rng.random() < 0.1:
            continue
        deps: set[int] = set()
        for _ in range(rng.randint(1, max_deps)):
            back = 1 + int(rng.expovariate(1.0)) if rng.random() < 0.8 else rng.randint(1, s)
            pool = by_section.get(max(0, s - back)) or by_section[0]
            deps.add(rng.choice(pool))
        edges.extend((nodes[d].id, nodes[i].id) for d in sorted(deps))
    return SimDag(nodes=nodes, edges=edges)


def attempt_fails(seed: int, node: str, attempt: int, rate: float) -> bool:
    if rate <= 0:
        return False
    h = hashlib.blake2b(f"{seed}:{node}:{attempt}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") / 2**64 < rate


def attempts_needed(seed: int, node: str, rate: float, cap: int) -> int:
    a = 1
    while a < cap and attempt_fails(seed, node, a, rate):
        a += 1
    return a


@dataclass
class Attempt:
    node: str
    worker: int
    attempt: int
    start: float
    end: float
    ok: bool


@dataclass
class SimResult:
    policy: str
    workers: int
    makespan: float
    critical_path: float
    total_work: float
    lower_bound: float
    gate_batches: int
    attempts: list[Attempt] = field(default_factory=list)
    merged_at: dict[str, float] = field(default_factory=dict)
    blocked: dict[str, str] = field(default_factory=dict)

    @property
    def ratio(self) -> float:
        return self.makespan / self.lower_bound if self.lower_bound else 1.0

    def to_json(self) -> dict:
        last = {a.node: a for a in self.attempts if a.ok}
        return {
            "policy": self.policy, "workers": self.workers, "makespan": self.makespan,
            "lower_bound": self.lower_bound, "critical_path": self.critical_path,
            "total_work": self.total_work, "ratio_to_lower_bound": round(self.ratio, 4),
            "gate_batches": self.gate_batches,
            "nodes": {n: {"worker": a.worker, "start": a.start, "end": a.end,
                          "merged": self.merged_at.get(n), "attempts": a.attempt}
                      for n, a in sorted(last.items())},
            "attempts": [a.__dict__ for a in self.attempts],
            "blocked": self.blocked,
        }


MAX_ATTEMPTS = 50


def lower_bound(dag: SimDag, workers: int, *, failure_rate: float = 0.0, seed: int = 0
                ) -> tuple[float, float, float]:
    """(critical path, total work, max(cp, work / P)) over the realised work per node."""
    g = dag.graph()
    work = {n.id: n.duration * attempts_needed(seed, n.id, failure_rate, MAX_ATTEMPTS)
            for n in dag.nodes}
    finish: dict[str, float] = {}
    for v in nx.topological_sort(g):
        finish[v] = work[v] + max((finish[u] for u in g.predecessors(v)), default=0.0)
    cp = max(finish.values(), default=0.0)
    total = sum(work.values())
    return cp, total, max(cp, total / max(workers, 1))


def simulate(dag: SimDag, workers: int, policy: Policy = Policy.PIPELINED, *,
             failure_rate: float = 0.0, seed: int = 0, gate_latency: float = 0.0,
             batch_size: int = 8, batch_window: float = 0.0, barrier_batch: int = 16
             ) -> SimResult:
    g = dag.graph()
    dur = {n.id: n.duration for n in dag.nodes}
    order = [n.id for n in dag.nodes]
    cfg = SchedulerConfig(workers=workers, policy=policy, batch_size=batch_size,
                          batch_window=batch_window, barrier_batch=barrier_batch,
                          max_attempts=MAX_ATTEMPTS)
    sched = Scheduler(g, order, cfg, order=order)
    events: list[tuple[float, int, str, object]] = []  # (time, seq, kind, payload)
    seq = 0
    now = 0.0
    attempts: list[Attempt] = []
    merged_at: dict[str, float] = {}
    batches = 0

    def push(t: float, kind: str, payload: object) -> None:
        nonlocal seq
        seq += 1
        heapq.heappush(events, (t, seq, kind, payload))

    while True:
        for d in sched.dispatch(now):
            ok = not attempt_fails(seed, d.node, d.attempt, failure_rate)
            a = Attempt(d.node, d.worker, d.attempt, now, now + dur[d.node], ok)
            attempts.append(a)
            push(a.end, "attempt", a)
        batch = sched.take_gate_batch(now)
        if batch:
            batches += 1
            push(now + gate_latency, "gate", batch)
        if not events:
            wake = sched.next_wakeup()
            if wake is None or sched.finished():
                break
            push(max(wake, now), "wake", None)
        now, _, kind, payload = heapq.heappop(events)
        if kind == "attempt":
            a = payload  # type: ignore[assignment]
            sched.finish(a.node, a.ok, now)  # type: ignore[union-attr]
        elif kind == "gate":
            for n in payload:  # type: ignore[union-attr]
                merged_at[n] = now
            sched.gate_done(payload, {}, now)  # type: ignore[arg-type]
    cp, total, lb = lower_bound(dag, workers, failure_rate=failure_rate, seed=seed)
    return SimResult(policy.value, workers, now, cp, total, lb, batches, attempts, merged_at,
                     sched.blocked())
