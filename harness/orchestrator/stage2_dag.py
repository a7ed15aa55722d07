"""Stage 2's DAG, always recomputed from the record's head: the analysis (with the imported
blueprints, Lean-confirmed edges and Lean's clean reports), the scheduler's graph, a resumed
session's history."""

from __future__ import annotations

from typing import Any

import networkx as nx

from harness.blueprint import confirmed
from harness.blueprint.dag import Analysis, analyse
from harness.blueprint.imports import load_imports
from harness.blueprint.views import lean_proved
from harness.orchestrator.batchmerge import Candidate
from harness.orchestrator.certify import apply_lean_view, reopened_events
from harness.orchestrator.leanview import clean_at
from harness.orchestrator.record import Record
from harness.orchestrator.scheduler import Scheduler
from harness.orchestrator.scheduler_model import NodeState, SchedulerConfig
from harness.orchestrator.stage2_base import Stage2Base
from harness.orchestrator.workgraph import work_graph
from harness.workspace import find_workspace


class DagSync(Stage2Base):
    def _analysis(self) -> Analysis:
        """The DAG of the record's head, with the workspace blueprints it imports (read once
        per session: their nodes resolve references and count for *proved*)."""
        bp = self.record.parsed(self.record.head_text())
        ws = find_workspace(self.record.file)
        if self._imports is None:
            self._imports = load_imports(bp, ws)
        found = confirmed.edges(ws, [*self._imports, bp])  # what Lean said they use
        a = analyse(bp, self._imports, adjust=confirmed.adjuster(found, self.cfg.adjust))
        confirmed.mark(a, found)
        apply_lean_view(a, reopened_events(self.log.events))  # Lean's word over the text's
        # certified clean at this head: proved, on a text cycle or not
        lean_proved(a, clean_at(self.log.events, self.record.head()))
        return a

    def _sync(self) -> None:
        a = self._analysis()
        h, work, order, blocked = self._work_graph(a)
        self.memory.refresh(a, getattr(self, "_files", None))
        for n, b in self.memory.needs_person().items():  # escalated earlier: a person decides
            if n in work:
                blocked.setdefault(n, f"needs a person ({b.kind}): {b.explanation}")
        for n, why in blocked.items():
            if n not in self.blocked:
                self.blocked[n] = why
                self.log.append("blocked", node=n, reason=why)
        # blocked nodes stay in the scheduler (as BLOCKED) so that their dependents keep waiting
        if self.sched is None:
            cfg = SchedulerConfig(workers=self.cfg.workers, batch_size=self.cfg.batch_size,
                                  batch_window=self.cfg.batch_window,
                                  attempts_before_repair=self.cfg.attempts_before_repair,
                                  max_attempts=self.cfg.max_attempts,
                                  race=max(1, self.cfg.race))
            self.sched = Scheduler(h, work, cfg, order=order)
        else:
            self.sched.sync(h, work, order)
        for n, why in self.blocked.items():
            if n in self.sched.nodes and self.sched.state(n) == NodeState.OPEN:
                self.sched.block(n, why)
        proofs = [d.key for k in a.proved for d in a.parts(k)  # parts: the scheduler's units
                  if d.is_node and d.kind.is_proof]
        self._proved0 = len(proofs) - self.sched.count(NodeState.DONE)
        self.notify("dag", {"proved": len(proofs), "open": len(work),
                            "blocked": len(self.blocked), "commit": self.record.head()})

    def _restore(self, now: float) -> None:
        s = self.sched
        assert s is not None
        for n, k in self.state.attempts.items():
            if n in s.nodes:
                s.restore(n, attempts=k, failures=self.state.failures.get(n, 0))
        for aid, ev in sorted(self.state.accepted.items(), key=lambda kv: kv[1]["seq"]):
            n = ev["node"]
            if n in s.nodes and s.state(n) == NodeState.OPEN and n not in self.pending:
                self.pending[n] = _candidate(ev)
                s.restore(n, attempts=self.state.attempts.get(n, 0),
                          failures=self.state.failures.get(n, 0), pending_since=now)

    # ---- what a project run (project_stage2.py) replaces: one file here --------------------
    def _work_graph(self, a: Analysis) -> tuple[nx.DiGraph, list[str], list[str],
                                                dict[str, str]]:
        return work_graph(a)

    def _record_of(self, node: str) -> Record:
        return self.record


def _candidate(ev: dict[str, Any]) -> Candidate:
    return Candidate(ev["aid"], ev["node"], ev.get("body", ""), ev.get("helpers", ""),
                     ev.get("role") or ev.get("job", "prove"))
