"""The stage-2 scheduler: a pure, event-driven state machine over the proof DAG.

It never sleeps, spawns or reads the clock: callers pass ``now`` in. ``harness run`` drives it
with wall-clock time and real attempts; ``harness simulate`` drives the very same object with
simulated time. That is what makes the scheduling benchmark honest.

Node life cycle: OPEN -> RUNNING (an attempt holds a worker) -> PENDING (accepted candidate
waiting for the gate) -> GATING (in the batch the gate is checking) -> DONE (merged);
a failed attempt or a gate rejection puts the node back to OPEN; BLOCKED is terminal.

Two policies:
- ``pipelined``: a free worker takes the highest-priority ready node at once; a node becomes
  ready the moment its last open dependency merges. Gate batches close on size, on a time
  window, or as soon as workers are starving (idle with nothing ready).
- ``barrier``: LeanMarathon's loop, for comparison: each round snapshots the ready nodes in
  file order, runs them in batches of ``barrier_batch``, waits for the whole batch, gates it,
  and only the next round sees nodes whose dependencies merged meanwhile.

Its parts: the data (``scheduler_model``), racing (``scheduler_race``), the barrier policy's
rounds (``scheduler_barrier``).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Iterable

import networkx as nx

from harness.orchestrator.scheduler_barrier import BarrierRounds
from harness.orchestrator.scheduler_model import (Dispatch, NodeRecord, NodeState, Policy,
                                                  SchedulerConfig)
from harness.orchestrator.scheduler_race import Racing


@dataclass
class Scheduler(Racing, BarrierRounds):
    """Ready queue by critical-path priority over ``graph`` (edges dep -> user).

    ``open_nodes`` are the nodes that need work; every other vertex is already complete.
    ``order`` is file order (tie-breaker, and the barrier policy's order).
    """

    graph: nx.DiGraph
    open_nodes: Iterable[str]
    config: SchedulerConfig = field(default_factory=SchedulerConfig)
    order: list[str] | None = None

    def __post_init__(self) -> None:
        self.nodes: dict[str, NodeRecord] = {}
        self.free_workers: list[int] = list(range(self.config.workers))
        heapq.heapify(self.free_workers)
        self.gating: list[str] = []
        self.round = 0
        self._round_queue: list[str] = []  # barrier: rest of this round, file order
        self._batch: set[str] = set()  # barrier: nodes of the current barrier batch
        self._heap: list[tuple[tuple, str]] = []
        self.sync(self.graph, self.open_nodes, self.order)

    # ---- graph (re)computation -------------------------------------------------------------
    def sync(self, graph: nx.DiGraph, open_nodes: Iterable[str], order: list[str] | None = None
             ) -> None:
        """Adopt a recomputed DAG (after a merge or a repair split); keeps per-node history.

        Nodes that are no longer open and not in flight become DONE; in-flight nodes keep
        their state; new open nodes start OPEN.
        """
        self.graph = graph
        self.order = list(order) if order is not None else list(nx.topological_sort(graph))
        self._index = {n: i for i, n in enumerate(self.order)}
        want = set(open_nodes)
        for n in want:
            self.nodes.setdefault(n, NodeRecord())
        for n, st in self.nodes.items():
            if n not in want and st.state in (NodeState.OPEN, NodeState.BLOCKED):
                st.state = NodeState.DONE  # completed outside the scheduler, or split away
        self._priority = self._priorities()
        for n, st in self.nodes.items():
            st.waiting = sum(1 for p in graph.predecessors(n)
                             if p in self.nodes and self.nodes[p].state != NodeState.DONE) \
                if n in graph else 0
        self._heap = []
        for n, st in self.nodes.items():
            if st.state == NodeState.OPEN and st.waiting == 0:
                self._push(n)

    def _priorities(self) -> dict[str, tuple[int, int]]:
        """(longest chain of open nodes starting here, open successors): higher runs first."""
        open_ = {n for n, st in self.nodes.items()
                 if st.state not in (NodeState.DONE,) and n in self.graph}
        chain: dict[str, int] = {}
        desc: dict[str, int] = {}
        for n in reversed(list(nx.topological_sort(self.graph))):
            succ = [s for s in self.graph.successors(n) if s in open_]
            chain[n] = (1 if n in open_ else 0) + max((chain[s] for s in succ), default=0)
            desc[n] = len(succ)
        return {n: (chain.get(n, 1), desc.get(n, 0)) for n in self.nodes}

    def _key(self, n: str) -> tuple:
        c, d = self._priority.get(n, (1, 0))
        return (-c, -d, self._index.get(n, len(self._index)), n)

    def _push(self, n: str) -> None:
        heapq.heappush(self._heap, (self._key(n), n))

    # ---- queries -------------------------------------------------------------------------------
    def state(self, n: str) -> NodeState:
        return self.nodes[n].state

    def attempts(self, n: str) -> int:
        return self.nodes[n].attempts

    def priority(self, n: str) -> int:
        return self._priority.get(n, (1, 0))[0]

    def ready(self) -> list[str]:
        """Ready nodes, best first (not consuming them)."""
        return list(dict.fromkeys(n for _, n in sorted(self._heap) if self._is_ready(n)))

    def _is_ready(self, n: str) -> bool:
        st = self.nodes[n]
        return st.state == NodeState.OPEN and st.waiting == 0

    def count(self, state: NodeState) -> int:
        return sum(1 for st in self.nodes.values() if st.state == state)

    @property
    def busy(self) -> int:
        return self.config.workers - len(self.free_workers)

    def in_flight(self) -> bool:
        return any(st.state in (NodeState.RUNNING, NodeState.PENDING, NodeState.GATING)
                   for st in self.nodes.values())

    def finished(self) -> bool:
        """Nothing runs, nothing awaits the gate and nothing can be dispatched."""
        return not self.in_flight() and not any(self._is_ready(n) for n in self.nodes)

    def needs_repair(self, n: str) -> bool:
        k = self.config.attempts_before_repair
        return k is not None and self.nodes[n].failures >= k

    def blocked(self) -> dict[str, str]:
        out = {n: st.reason for n, st in self.nodes.items() if st.state == NodeState.BLOCKED}
        for n, st in self.nodes.items():  # open nodes that can never become ready
            if st.state == NodeState.OPEN and n not in out:
                bad = [a for a in nx.ancestors(self.graph, n)
                       if a in out or (a in self.nodes and self.nodes[a].state == NodeState.BLOCKED)]
                if bad:
                    out[n] = f"depends on blocked {', '.join(sorted(bad))}"
        return out

    # ---- transitions ---------------------------------------------------------------------------
    def dispatch(self, now: float, limit: int | None = None) -> list[Dispatch]:
        """Start as many attempts as policy and free workers allow (at most ``limit``)."""
        if self.config.policy == Policy.BARRIER:
            return self._dispatch_barrier(limit)
        out: list[Dispatch] = []
        while self.free_workers and self._heap and (limit is None or len(out) < limit):
            _, n = heapq.heappop(self._heap)
            if self._is_ready(n):
                out.append(self._start(n))
        if self.config.race > 1 and not any(self._is_ready(m) for _, m in self._heap):
            out += self._dispatch_racers(limit if limit is None else limit - len(out))
        return out

    def _start(self, n: str) -> Dispatch:
        st = self.nodes[n]
        st.state = NodeState.RUNNING
        st.attempts += 1
        st.worker = heapq.heappop(self.free_workers)
        return Dispatch(n, st.worker, st.attempts)

    def _release(self, st: NodeRecord) -> None:
        if st.worker is not None:
            heapq.heappush(self.free_workers, st.worker)
            st.worker = None

    def finish(self, n: str, ok: bool, now: float, worker: int | None = None,
               reason: str = "") -> None:
        """An attempt ended: an accepted candidate waits for the gate; a failure reopens.
        ``worker``: which attempt (racing); the node's other racers keep their workers until
        their results come back (:meth:`release_racer`)."""
        st = self.nodes[n]
        assert st.state == NodeState.RUNNING, (n, st.state)
        if worker is not None and (worker == st.worker or worker in st.racers):
            self._drop(st, worker)
        else:
            self._release(st)
        if st.worker is not None:  # racers still out: they become leftovers of this node
            st.racers.insert(0, st.worker)
            st.worker = None
        if ok:
            st.state = NodeState.PENDING
            st.pending_since = now
        else:
            self._fail(n, " ".join(reason.split())[:300] or "attempt failed")

    def _fail(self, n: str, reason: str) -> None:
        st = self.nodes[n]
        st.failures += 1
        st.state = NodeState.OPEN
        cap = self.config.max_attempts
        if cap is not None and st.attempts >= cap:
            self.block(n, f"{st.attempts} attempts failed (last: {reason})")
        elif self.config.policy == Policy.PIPELINED:
            self._push(n)
        else:
            self._batch.discard(n)  # barrier: retried in a later round

    def take_gate_batch(self, now: float) -> list[str]:
        """Close a gate batch if one is due and the gate is idle; [] otherwise."""
        if self.gating:
            return []
        pending = [n for n, st in self.nodes.items() if st.state == NodeState.PENDING]
        if not pending:
            return []
        if self.config.policy == Policy.BARRIER:
            due = self._barrier_gate_due()
        else:
            oldest = min(self.nodes[n].pending_since for n in pending)
            starving = bool(self.free_workers) and not any(self._is_ready(m)
                                                          for _, m in self._heap)
            due = (len(pending) >= self.config.batch_size
                   or now - oldest >= self.config.batch_window
                   or starving or self.busy == 0)
        if not due:
            return []
        pending.sort(key=lambda n: (self.nodes[n].pending_since, self._index.get(n, 0)))
        batch = pending[: max(self.config.batch_size, 1)] \
            if self.config.policy == Policy.PIPELINED else pending
        for n in batch:
            self.nodes[n].state = NodeState.GATING
        self.gating = batch
        return list(batch)

    def next_wakeup(self) -> float | None:
        """When the oldest pending candidate's window expires (for timers), else None."""
        pend = [st.pending_since for st in self.nodes.values() if st.state == NodeState.PENDING]
        if not pend or self.gating:
            return None
        return min(pend) + self.config.batch_window

    def gate_done(self, merged: Iterable[str], rejected: dict[str, str] | Iterable[str],
                  now: float) -> list[str]:
        """Apply the gate's decision; returns the nodes that just became ready."""
        merged = list(merged)
        rejected = dict(rejected) if isinstance(rejected, dict) else {r: "gate" for r in rejected}
        newly: list[str] = []
        for n in merged:
            st = self.nodes[n]
            st.state = NodeState.DONE
            st.failures = 0
            for s in self.graph.successors(n) if n in self.graph else ():
                if s in self.nodes:
                    ss = self.nodes[s]
                    ss.waiting = max(0, ss.waiting - 1)
                    if ss.waiting == 0 and ss.state == NodeState.OPEN:
                        self._push(s)
                        newly.append(s)
        for n, why in rejected.items():
            self._fail(n, why or "gate rejected")
        for n in self.gating:
            if self.nodes[n].state == NodeState.GATING:  # neither merged nor rejected: requeue
                self.nodes[n].state = NodeState.PENDING
        self.gating = []
        if self.config.policy == Policy.BARRIER:
            self._barrier_after_gate()
        return newly

    def block(self, n: str, reason: str) -> None:
        st = self.nodes[n]
        self._release(st)
        st.state = NodeState.BLOCKED
        st.reason = reason
        self._batch.discard(n)

    def reset_failures(self, n: str) -> None:
        """After a repair that kept the node (e.g. it was split): give it fresh attempts."""
        self.nodes[n].failures = 0

    def abandon(self, n: str) -> None:
        """An in-flight attempt was lost (worker died): back to OPEN without counting a failure."""
        st = self.nodes[n]
        if st.state == NodeState.RUNNING:
            self._release(st)
            st.state = NodeState.OPEN
            st.attempts = max(0, st.attempts - 1)
            if self.config.policy == Policy.PIPELINED:
                self._push(n)

    def reopen(self, n: str) -> None:
        """A merge changed the node without proving it (a repair split): open again, fresh."""
        st = self.nodes[n]
        self._release(st)
        st.state = NodeState.OPEN
        st.failures = 0
        if st.waiting == 0:
            self._push(n)

    def restore(self, n: str, *, attempts: int = 0, failures: int = 0,
                pending_since: float | None = None) -> None:
        """Resume: re-apply history from the event log (attempt counts; accepted candidates)."""
        st = self.nodes.get(n)
        if st is None or st.state == NodeState.DONE:
            return
        st.attempts, st.failures = attempts, failures
        if pending_since is not None and st.state == NodeState.OPEN:
            st.state = NodeState.PENDING
            st.pending_since = pending_since
