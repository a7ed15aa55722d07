"""Stage 2's attempts: out to the executor (within the budget) and back. A result is logged with
its cost, then decides the node: accepted (awaits the gate), failed (feedback, memory, maybe
blocked), escalated to a person, or a racer's loss while another attempt on the node goes on.
Stopping early drains every attempt still out: each was paid for."""

from __future__ import annotations

import time

from harness.orchestrator.batchmerge import Candidate
from harness.orchestrator.executor import AttemptJob, AttemptResult
from harness.orchestrator.record import Record
from harness.orchestrator.scheduler_model import NodeState
from harness.orchestrator.stage2_base import MAX_FEEDBACK, Stage2Base


class AttemptHandling(Stage2Base):
    def _affordable(self) -> int | None:
        """How many more attempts may start: with a budget, only while the spent money plus
        one cap per attempt in flight stays below it — so the run ends at most one attempt's
        cap over the budget (attempts report their cost when they finish)."""
        cap = self.cfg.attempt_cap()
        if self.cfg.budget is None or not cap:
            return None
        assert self.sched is not None
        running = self.sched.busy  # until its result is processed, an attempt may still spend
        k = 0
        while self.spent + (running + k) * cap < self.cfg.budget and k < self.cfg.workers:
            k += 1
        return k

    def _submit(self, node: str, worker: int, attempt: int) -> None:
        s = self.sched
        assert s is not None
        kind = "repair" if s.needs_repair(node) else "prove"
        aid = f"{node}#{attempt}"
        rec = self._record_of(node)  # a project run: the node's own file
        commit, text = self._job_text(rec)
        job = AttemptJob(run_id=self.run_id, aid=aid, node=node, attempt=attempt, kind=kind,
                         workspace=str(rec.repo.working_tree_dir),
                         file=str(rec.file), commit=commit, text=text,
                         feedback=self.feedback.get(node, [])[-MAX_FEEDBACK:], worker=worker,
                         budget_usd=self.cfg.attempt_cap(), memory=self.memory.summary(node),
                         model=self.memory.model_for(self.memory.failures(node)))
        self._aid_worker[aid] = worker
        self.log.append("dispatch", aid=aid, node=node, attempt=attempt, worker=worker,
                        job=kind, commit=job.commit)
        self.notify("dispatch", {"node": node, "worker": worker, "attempt": attempt,
                                 "kind": kind})
        self.executor.submit(job)

    def _job_text(self, rec: Record) -> tuple[str | None, str]:
        """The commit and text a job carries: the head's (a project run holds back a merge
        whose importers are being checked, project_importers.py)."""
        commit = rec.head()
        text = rec.text_at(commit) if commit is not None else None
        return commit, text if text is not None else rec.head_text()

    def _on_result(self, r: AttemptResult, now: float) -> None:
        s = self.sched
        assert s is not None
        self.spent += r.cost
        if r.fatal and self._fatal is None:
            self._fatal = r.fatal
        ok = r.ok and not (r.kind == "repair" and r.repair == "blocker")
        role = "repair" if r.kind == "repair" else r.role
        self.log.append("attempt", aid=r.aid, node=r.node, job=r.kind, ok=ok, role=role,
                        repair=r.repair, body=r.body if ok else "",
                        helpers=r.helpers if ok else "", reason=r.reason, tokens=r.tokens,
                        cost=r.cost, seconds=r.seconds, **r.placement())
        self.notify("attempt", {"node": r.node, "ok": ok, "reason": r.reason, "kind": r.kind,
                                "worker": self._worker_of(r.node), "cost": r.cost,
                                "tokens": r.tokens, **r.placement()})
        worker = self._aid_worker.pop(r.aid, None)
        if not r.ok and not r.escalation and r.reason:
            self.memory.failed(r)  # the node's memory, kept with the record across runs
        if r.node not in s.nodes or s.state(r.node) != NodeState.RUNNING:
            if r.node in s.nodes and worker is not None:
                s.release_racer(r.node, worker)  # a race was already won: free its worker
            return  # the node changed under the attempt (e.g. split away): drop it
        if s.racing(r.node, worker) and not r.ok and not r.escalation:
            s.racer_failed(r.node, worker)  # another attempt on the node is still running
            self._remember(r.node, r.reason)
            return
        if r.escalation is not None:  # the agent handed the node to a person
            s.finish(r.node, False, now, worker=worker)
            why = self.memory.escalated(r)
            self.log.append("escalated", node=r.node, aid=r.aid, blocker=r.escalation.kind,
                            explanation=r.escalation.explanation)
            self._block(r.node, why)
            return
        if r.kind == "repair" and r.ok and r.repair == "blocker":
            s.finish(r.node, False, now, worker=worker)
            self._block(r.node, f"repair: {r.reason}")
            return
        s.finish(r.node, ok, now, worker=worker, reason=r.reason)
        if ok:
            role = "repair" if r.kind == "repair" else (r.role or "prove")
            self.pending[r.node] = Candidate(r.aid, r.node, r.body, r.helpers, role)
        else:
            self._remember(r.node, r.reason)
            if s.state(r.node) == NodeState.BLOCKED:
                self._block(r.node, s.nodes[r.node].reason)

    def _worker_of(self, node: str) -> int | None:
        st = self.sched.nodes.get(node) if self.sched else None
        return st.worker if st else None

    def _executor_events(self) -> None:
        """What a distributed executor reports besides results: re-dispatched (``lost``)
        attempts go to the event log, cluster load to the view."""
        events = getattr(self.executor, "events", None)
        for kind, data in events() if events is not None else ():
            if kind in ("lost", "placed", "note"):
                self.log.append(kind, **data)
            self.spent += float(data.get("cost", 0.0) or 0.0) if kind == "lost" else 0.0
            self.notify(kind, data)

    def _drain(self) -> None:
        """Stopping early: wait for every attempt the executor still runs and log it (its cost,
        and any accepted proof, which the next session gates). The executor's count, not the
        nodes' states: a racer left over on a node that already won is no longer RUNNING but
        was paid for. Each attempt is bounded by its own request and Lean timeouts."""
        while self.executor.running() > 0:
            for res in self.executor.poll(self.cfg.poll_s):
                self._on_result(res, time.monotonic())
            self._executor_events()
        for res in self.executor.poll(0):  # finished between the last poll and the count
            self._on_result(res, time.monotonic())
