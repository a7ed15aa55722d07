"""Racing (`[run] race = k`): when no ready node is left for an idle worker, it joins a running
node, most critical first, up to ``race`` attempts per node; the first accepted one wins. The
node's first worker is :attr:`NodeRecord.worker`, the others are its ``racers``; a racer still
out when the node leaves RUNNING is a leftover, freed when its result comes back."""

from __future__ import annotations

import heapq
from typing import Any

from harness.orchestrator.scheduler_model import Dispatch, NodeRecord, NodeState, SchedulerConfig


class Racing:
    """Part of :class:`harness.orchestrator.scheduler.Scheduler` (its state, declared here)."""

    nodes: dict[str, NodeRecord]
    free_workers: list[int]
    config: SchedulerConfig

    def _key(self, n: str) -> tuple[Any, ...]:
        raise NotImplementedError  # the scheduler's priority order

    def _dispatch_racers(self, limit: int | None) -> list[Dispatch]:
        """Idle workers join running nodes, most critical first, up to ``race`` per node."""
        out: list[Dispatch] = []
        running = sorted((n for n, st in self.nodes.items() if st.state == NodeState.RUNNING),
                         key=self._key)
        cap = self.config.max_attempts
        for n in running:
            st = self.nodes[n]
            while (self.free_workers and 1 + len(st.racers) < self.config.race
                   and (cap is None or st.attempts < cap)
                   and (limit is None or len(out) < limit)):
                st.attempts += 1
                w = heapq.heappop(self.free_workers)
                st.racers.append(w)
                out.append(Dispatch(n, w, st.attempts))
        return out

    def racing(self, n: str, worker: int | None) -> bool:
        """Is ``worker`` one of several attempts in flight on ``n``?"""
        st = self.nodes[n]
        flight = ([st.worker] if st.worker is not None else []) + st.racers
        return worker is not None and worker in flight and len(flight) > 1

    def _drop(self, st: NodeRecord, worker: int) -> None:
        """Free one in-flight worker of ``st``."""
        if st.worker == worker:
            st.worker = st.racers.pop(0) if st.racers else None
        elif worker in st.racers:
            st.racers.remove(worker)
        else:
            return
        heapq.heappush(self.free_workers, worker)

    def racer_failed(self, n: str, worker: int) -> None:
        """One of several attempts on a running node failed; the others go on."""
        st = self.nodes[n]
        self._drop(st, worker)
        st.failures += 1

    def release_racer(self, n: str, worker: int) -> None:
        """A racing attempt came back after its node left RUNNING (won, blocked, reopened)."""
        st = self.nodes[n]
        if worker in st.racers:
            st.racers.remove(worker)
            heapq.heappush(self.free_workers, worker)
