"""The barrier policy, LeanMarathon's loop, kept for comparison (`simulate --policy barrier`):
each round snapshots the ready nodes in file order and runs them in batches of
``barrier_batch``; a batch is gated only once all of it finished, and only the next round sees
nodes whose dependencies merged meanwhile."""

from __future__ import annotations

from harness.orchestrator.scheduler_model import Dispatch, NodeRecord, NodeState, SchedulerConfig

LIVE = (NodeState.RUNNING, NodeState.PENDING, NodeState.GATING)


class BarrierRounds:
    """Part of :class:`harness.orchestrator.scheduler.Scheduler` (its state, declared here)."""

    nodes: dict[str, NodeRecord]
    free_workers: list[int]
    config: SchedulerConfig
    round: int
    _round_queue: list[str]  # the rest of this round, file order
    _batch: set[str]  # the nodes of the current barrier batch
    _index: dict[str, int]

    def _is_ready(self, n: str) -> bool:
        raise NotImplementedError

    def _start(self, n: str) -> Dispatch:
        raise NotImplementedError

    def _dispatch_barrier(self, limit: int | None = None) -> list[Dispatch]:
        out: list[Dispatch] = []
        self._batch = {n for n in self._batch
                       if self._is_ready(n) or self.nodes[n].state in LIVE}
        if not self._batch:
            if not self._round_queue:
                self._round_queue = sorted((n for n in self.nodes if self._is_ready(n)),
                                           key=lambda n: self._index.get(n, 0))
                if self._round_queue:
                    self.round += 1
            k = self.config.barrier_batch
            self._batch = set(self._round_queue[:k])
            self._round_queue = self._round_queue[k:]
        for n in sorted(self._batch, key=lambda n: self._index.get(n, 0)):
            if not self.free_workers or (limit is not None and len(out) >= limit):
                break
            if self._is_ready(n):
                out.append(self._start(n))
        return out

    def _barrier_gate_due(self) -> bool:
        """A barrier batch is gated only when none of it is still running."""
        return not any(self.nodes[n].state == NodeState.RUNNING for n in self._batch)

    def _barrier_after_gate(self) -> None:
        self._batch = {n for n in self._batch
                       if self.nodes[n].state in (NodeState.RUNNING, NodeState.PENDING)}
