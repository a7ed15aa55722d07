"""Stage 2: discharge the DAG — pipelined attempts, one gate queue, merges into the record.

The loop owns the scheduler and the event log; attempts run in an :class:`Executor`, the gated
merge runs on its own thread (the gate queue) so that workers keep being fed while a batch is
checked. The DAG is recomputed from the record after every merge.
"""

from __future__ import annotations

import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

import networkx as nx

from harness.blueprint import confirmed
from harness.blueprint.dag import Analysis, analyse
from harness.blueprint.views import lean_proved
from harness.blueprint.imports import load_imports
from harness.blueprint.model import Blueprint, BodyStatus
from harness.errors import CannotCertify
from harness.orchestrator import procs
from harness.orchestrator.certify import (Certifier, apply_lean_view, contradictions, reopen,
                                          reopened_events)
from harness.orchestrator.events import EventLog
from harness.orchestrator.executor import AttemptJob, AttemptResult, Executor
from harness.orchestrator.leanview import clean_at
from harness.orchestrator.nodememory import RunMemory
from harness.orchestrator.record import CannotDecide, Candidate, Gate, MergeOutcome, Record
from harness.orchestrator.scheduler import NodeState, Scheduler, SchedulerConfig
from harness.orchestrator.state import RunState
from harness.workspace import find_workspace

OPEN_STATUSES = (BodyStatus.SORRY, BodyStatus.SORRY_USING, BodyStatus.ADMIT)
MAX_FEEDBACK = 4
# a gate failure line: "FILE:LINE:COL: [check] KEY: message" (harness.gate.verify.Failure)
_FAILURE = re.compile(r":\d+:\d+: \[(\w+)\](?: (\S+):)? ")
# (messages) -> (repaired, reason): the record was broken outside any batch (services.py)
RepairRecord = Callable[[list[str]], tuple[bool, str]]


def outside_batch(messages: list[str], nodes: set[str]) -> list[str]:
    """The gate failures that are not about a candidate: a check other than scope whose
    declaration is not in the batch (or that names none: an import, the environment)."""
    out = []
    for m in messages:
        f = _FAILURE.search(m)
        if f and f.group(1) != "scope" and (f.group(2) is None or f.group(2) not in nodes):
            out.append(m)
    return out


def work_graph(a: Analysis, files: list[Blueprint] | None = None
               ) -> tuple[nx.DiGraph, list[str], list[str], dict[str, str]]:
    """The scheduler's view: vertices are the *open parts* that need a proof — one job per open
    declaration, keyed by ``Decl.key`` (the label; a part's Lean name when several declarations
    share a label, so edits, the gate and the lock address exactly one body). u -> v when v's
    node rests on u's directly or through declarations that are complete but not yet proved.
    Returns (graph, open parts, file order, parts blocked from the start with a reason).
    ``files``: whose open parts are work (default: the analysed file; a project run: all)."""
    g = a.graph
    on_cycle = {k for c in a.cycles for k in c}
    work: list[str] = []
    blocked: dict[str, str] = {}
    units: dict[str, list[str]] = {}  # DAG vertex -> its open parts
    node_of: dict[str, str] = {}
    ours = {id(d) for b in (files if files is not None else [a.blueprint]) for d in b.decls}
    for k in a.own:  # this file's vertices in file order (not its imports')
        if k in a.proved or a.is_informal(k) or not a.decl(k).is_node:
            continue
        for d in a.parts(k):
            if d.status not in OPEN_STATUSES or id(d) not in ours:
                continue  # complete, or a part in an imported file (not this file's work)
            units.setdefault(k, []).append(d.key)
            node_of[d.key] = k
            if k in on_cycle:
                blocked[d.key] = "on a dependency cycle"
            elif not d.kind.is_proof:
                blocked[d.key] = "a definition whose body is `sorry`: stage 1 must supply it"
            else:
                work.append(d.key)
    h = nx.DiGraph()
    h.add_nodes_from(work)
    for v in work:  # walk back through complete-but-unproved declarations
        stack, seen = list(g.predecessors(node_of[v])), set()
        while stack:
            u = stack.pop()
            if u in seen or u in a.proved:
                continue
            seen.add(u)
            mine = units.get(u, [])
            stuck = [x for x in mine if x in blocked]
            if stuck:  # the node can never be proved in this run
                blocked.setdefault(v, f"depends on blocked {stuck[0]}")
            elif mine:  # not within one shared-label cycle: no order between its parts
                same = a.label_blocks.get(u)
                if same is None or same != a.label_blocks.get(node_of[v]):
                    h.add_edges_from((x, v) for x in mine if x != v)
            else:
                stack.extend(g.predecessors(u))
    return h, work, work, blocked


@dataclass
class Stage2Config:
    workers: int = 4
    batch_size: int = 8
    batch_window: float = 2.0
    attempts_before_repair: int = 3
    max_attempts: int = 12
    budget: float | None = None  # USD for the whole run (earlier sessions included)
    attempt_usd: float | None = None  # one attempt's cap (default: budget / workers)
    poll_s: float = 0.1
    adjust: Callable[[dict], None] | None = None  # LeanArchitect's edges (blueprint.exact)
    tiers: list[tuple[int, str]] = field(default_factory=list)  # (after N failures, model)
    race: int = 1  # attempts at once on a critical-path node when workers would idle

    def attempt_cap(self) -> float | None:
        if self.budget is None:
            return self.attempt_usd
        return self.attempt_usd or self.budget / max(1, self.workers)


@dataclass
class Stage2Outcome:
    stop_reason: str
    blocked: dict[str, str] = field(default_factory=dict)
    no_lean: bool = False
    usage_error: bool = False  # stopped by a configuration error (exit 2)
    # the final certification of the record's head (harness.orchestrator.certify): "clean"
    # (every node's Lean axiom report is clean), "contradicted", "cannot certify", "not run"
    certification: str = "not run"


Notify = Callable[[str, dict[str, Any]], None]


class Stage2:
    def __init__(self, *, run_id: str, record: Record, log: EventLog, state: RunState,
                 executor: Executor, gate: Gate, cfg: Stage2Config, notify: Notify,
                 certifier: Certifier | None = None,
                 repair_record: RepairRecord | None = None) -> None:
        self.run_id, self.record, self.log, self.state = run_id, record, log, state
        self.repair_record = repair_record
        self.executor, self.gate, self.cfg, self.notify = executor, gate, cfg, notify
        self.pending: dict[str, Candidate] = {}  # node -> accepted candidate awaiting the gate
        self.feedback: dict[str, list[str]] = dict(state.feedback)
        self.blocked: dict[str, str] = dict(state.blocked)
        self.spent = state.cost
        self._gate_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gate")
        self._gate_job: tuple[Future, str, list[Candidate]] | None = None
        self.sched: Scheduler | None = None
        self._imports: list[Blueprint] | None = None
        self._fatal: str | None = None
        self.certifier = certifier
        self.certification = "not run"
        self._certified: tuple[str | None, str] | None = None  # (head, status) last certified
        self.memory = RunMemory(find_workspace(record.file), cfg.tiers)
        self._aid_worker: dict[str, int] = {}  # racing: which worker an attempt occupies

    # ---- DAG from the record ----------------------------------------------------------------
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
                                  max_attempts=self.cfg.max_attempts)
            cfg = SchedulerConfig(**{**cfg.__dict__, "race": max(1, self.cfg.race)})
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

    # ---- the loop -----------------------------------------------------------------------------
    def run(self) -> Stage2Outcome:
        self._sync()
        now = time.monotonic()
        self._restore(now)
        s = self.sched
        assert s is not None
        stop: str | None = None
        wait_gate = True
        try:
            while True:
                now = time.monotonic()
                if stop is None and self._fatal is not None:
                    stop = self._fatal
                    self.log.append("note", message=stop)
                    self.notify("note", {"message": stop})
                if stop is None and self.cfg.budget is not None and self.spent >= self.cfg.budget:
                    stop = f"budget spent (${self.spent:.4f} of ${self.cfg.budget:.4f})"
                    self.log.append("note", message=stop)
                    self.notify("note", {"message": stop})
                if stop is None:
                    for d in s.dispatch(now, limit=self._affordable()):
                        self._submit(d.node, d.worker, d.attempt)
                if self._gate_job is None:
                    batch = s.take_gate_batch(now)
                    if batch:
                        self._start_gate(batch)
                elif self._gate_job[0].done():
                    done = self._finish_gate()
                    if done is not None:
                        self._drain()
                        return done
                    continue
                wait = self.cfg.poll_s
                wake = s.next_wakeup()
                if wake is not None:
                    wait = max(0.0, min(wait, wake - now))
                for res in self.executor.poll(wait):
                    self._on_result(res, time.monotonic())
                self._executor_events()
                if self._gate_job is None and self.executor.running() == 0:
                    if stop is not None and not s.in_flight():  # nothing running or pending
                        break
                    if s.finished():
                        if stop is None and self._certify():
                            continue  # Lean re-opened nodes and there is work again
                        stop = stop or self._final_reason()
                        break
        except KeyboardInterrupt:  # Ctrl-C / SIGTERM: stop the Lean runs the threads wait on
            procs.shield()
            wait_gate = procs.abort(self._busy)  # never hang on a thread stuck elsewhere
            raise
        finally:
            self._gate_pool.shutdown(wait=wait_gate)
        self._drain()  # a result that landed after the loop's last poll
        if self._fatal is None:
            self._certify()  # the final head is certified whatever stopped the loop
        self.blocked.update(s.blocked())
        return Stage2Outcome(stop or self._final_reason(), dict(self.blocked),
                             usage_error=self._fatal is not None,
                             certification=self.certification)

    # ---- what a project run (project_stage2.py) replaces: one file here --------------------
    def _work_graph(self, a: Analysis) -> tuple[nx.DiGraph, list[str], list[str],
                                                dict[str, str]]:
        return work_graph(a)

    def _record_of(self, node: str) -> Record:
        return self.record

    def _merge(self, cands: list[Candidate], batch_id: str) -> MergeOutcome:
        return self.record.merge_batch(cands, self.gate, run_id=self.run_id, batch_id=batch_id)

    def _relock(self) -> bool:
        relock = getattr(self.gate, "relock", None)
        if relock is not None:
            relock(self.record.head_text())
        return relock is not None

    # ---- certification: a node is proved only when Lean's axiom report says so ---------------
    def _certify(self) -> bool:
        """Certify the record's head (once per head): re-open the nodes Lean contradicts, with
        the hidden edges it names. True when that gave the scheduler new work."""
        head = self.record.head()
        if self._certified is not None and self._certified[0] == head:
            self.certification = self._certified[1]
            return False
        if self.certifier is None:
            self.certification = "not run"
            self._note("no final certification configured: the run cannot claim any proof")
            return False
        text = self.record.head_text()
        try:
            a = self._analysis()
            self.certifier.targets = [n for k in a.graph.nodes
                                      if a.is_external(k) and not a.is_informal(k)
                                      for n in a.decl(k).names]
            cert = self.certifier.axioms(text)
            bad = contradictions(a, cert)
            imported = {a.decl(k).name: k for k in a.graph.nodes
                        if a.is_external(k) and a.decl(k).name}
            used = self.certifier.used(text, bad, imported) if bad else {}
        except CannotCertify as err:
            self.certification = "cannot certify"
            self._certified = (head, self.certification)
            self._note(f"final certification: {err.line()}")
            return False
        clean = sorted(cert.clean)
        if cert.used:  # Lean's used constants of every node it elaborated: kept for good
            confirmed.record(find_workspace(self.record.file), self.record.file,
                             self.record.parsed(text), cert.used)
        self.log.append("certified", commit=head, clean=clean,
                        dirty={k: ax for k, ax in cert.axioms.items() if k not in cert.clean},
                        errors=cert.errors[:5], contradicted=bad)
        # clean: Lean backs every node the DAG counts as proved (open nodes are the result's
        # business: they keep the exit code at 1)
        status = "contradicted" if bad or cert.errors else "clean"
        self.certification = status
        self._certified = (head, status)
        for r in reopen(a, cert, bad, used):
            self.log.append("reopened", node=r.node, reason=r.reason, culprits=r.culprits,
                            commit=head)
            self.notify("note", {"message": f"re-opened {r.node}: {r.reason}"})
            self._remember(r.node, r.reason)
            if not r.culprits:
                self.blocked[r.node] = r.reason
                self.log.append("blocked", node=r.node, reason=r.reason)
        if not bad:
            return False
        self._sync()
        assert self.sched is not None
        return not self.sched.finished()

    def _note(self, msg: str) -> None:
        self.log.append("note", message=msg)
        self.notify("note", {"message": msg})

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

    def _executor_events(self) -> None:
        """What a distributed executor reports besides results: re-dispatched (``lost``)
        attempts go to the event log, cluster load to the view."""
        events = getattr(self.executor, "events", None)
        for kind, data in events() if events is not None else ():
            if kind in ("lost", "placed", "note"):
                self.log.append(kind, **data)
            self.spent += float(data.get("cost", 0.0) or 0.0) if kind == "lost" else 0.0
            self.notify(kind, data)

    def _busy(self) -> bool:
        return (self._gate_job is not None and not self._gate_job[0].done()) \
            or self.executor.running() > 0

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

    def _final_reason(self) -> str:
        s = self.sched
        assert s is not None
        left = [n for n, st in s.nodes.items() if st.state != NodeState.DONE]
        return "all nodes proved" if not left else "no progress possible"

    def _submit(self, node: str, worker: int, attempt: int) -> None:
        s = self.sched
        assert s is not None
        kind = "repair" if s.needs_repair(node) else "prove"
        aid = f"{node}#{attempt}"
        rec = self._record_of(node)  # a project run: the node's own file
        job = AttemptJob(run_id=self.run_id, aid=aid, node=node, attempt=attempt, kind=kind,
                         workspace=str(rec.repo.working_tree_dir),
                         file=str(rec.file), commit=rec.head(), text=rec.head_text(),
                         feedback=self.feedback.get(node, [])[-MAX_FEEDBACK:], worker=worker,
                         budget_usd=self.cfg.attempt_cap(), memory=self.memory.summary(node),
                         model=self.memory.model_for(self.memory.failures(node)))
        self._aid_worker[aid] = worker
        self.log.append("dispatch", aid=aid, node=node, attempt=attempt, worker=worker,
                        job=kind, commit=job.commit)
        self.notify("dispatch", {"node": node, "worker": worker, "attempt": attempt,
                                 "kind": kind})
        self.executor.submit(job)

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

    def _block(self, node: str, reason: str) -> None:
        assert self.sched is not None
        if self.sched.state(node) != NodeState.BLOCKED:
            self.sched.block(node, reason)
        self.blocked[node] = reason
        self.log.append("blocked", node=node, reason=reason)
        self.notify("blocked", {"node": node, "reason": reason})

    def _remember(self, node: str, reason: str) -> None:
        if reason:
            self.feedback.setdefault(node, []).append(reason[:2000])
            del self.feedback[node][:-MAX_FEEDBACK]

    def _start_gate(self, batch: list[str]) -> None:
        cands = [self.pending[n] for n in batch]
        ev = self.log.append("merge_intent", nodes=batch, aids=[c.aid for c in cands],
                             base=self.record.head())
        batch_id = f"b{ev['seq']:06d}"
        fut = self._gate_pool.submit(self._merge, cands, batch_id)
        self._gate_job = (fut, batch_id, cands)
        self.notify("gate", {"batch": batch_id, "nodes": batch})

    def _finish_gate(self) -> Stage2Outcome | None:
        s = self.sched
        assert s is not None and self._gate_job is not None
        fut, batch_id, cands = self._gate_job
        self._gate_job = None
        now = time.monotonic()
        try:
            out: MergeOutcome = fut.result()
        except CannotDecide as err:
            self.log.append("gate", batch=batch_id, certified=False, message=err.message,
                            merged=[], rejected={}, uncertified=[c.aid for c in cands])
            self.notify("note", {"message": f"gate cannot certify: {err.message}"})
            self.blocked.update(s.blocked())
            return Stage2Outcome(f"the gate cannot certify: {err.message}", dict(self.blocked),
                                 no_lean=True)
        if not out.merged and out.rejected:
            broken = self._broken_outside(cands, out.rejected)
            if broken:
                return self._breakage(batch_id, cands, broken, now)
        self.log.append("gate", batch=batch_id, certified=True, gate_calls=out.gate_calls,
                        merged=[c.aid for c in out.merged], rejected=out.rejected,
                        superseded=out.superseded, seconds=round(out.seconds, 4))
        if out.commit:
            self.log.append("merged", batch=batch_id, commit=out.commit,
                            nodes=[c.node for c in out.merged if c.role != "repair"],
                            split=[c.node for c in out.merged if c.role == "repair"],
                            aids=[c.aid for c in out.merged])
            self.notify("merged", {"batch": batch_id, "commit": out.commit,
                                   "nodes": [c.node for c in out.merged]})
        by_aid = {c.aid: c for c in cands}
        proofs = [c.node for c in out.merged if c.role != "repair"]
        proofs += [by_aid[a].node for a in out.superseded if a in by_aid]
        rejected = {by_aid[a].node: "; ".join(m) for a, m in out.rejected.items()}
        for c in cands:
            self.pending.pop(c.node, None)
        for n, why in rejected.items():
            self._remember(n, f"the gate rejected the merged file: {why}")
        s.gate_done(proofs, rejected, now)
        for c in out.merged:
            if c.role == "repair":
                s.reopen(c.node)
        for n in rejected:
            if s.state(n) == NodeState.BLOCKED:
                self._block(n, s.nodes[n].reason)
        if any(c.role == "repair" for c in out.merged):
            if self._relock():
                self.log.append("locked", commit=out.commit, reason="split added nodes")
            self._sync()  # a split changed the DAG's shape: recompute it from the record
        elif out.commit:  # proofs only: the scheduler's incremental update is exact
            self.notify("dag", {"proved": s.count(NodeState.DONE) + self._proved0,
                                "open": len(s.nodes) - s.count(NodeState.DONE),
                                "blocked": len(self.blocked), "commit": out.commit})
        return None


    # ---- the record broke outside the batch ---------------------------------------------
    def _broken_outside(self, cands: list[Candidate], rejected: dict[str, list[str]]
                        ) -> list[str]:
        """When every candidate was refused for something outside the batch, ask the gate
        about the record's own text (one call): its failures, if it fails too."""
        nodes = {c.node for c in cands}
        if not all(outside_batch(m, nodes) for m in rejected.values()):
            return []
        base = self.record.head_text()
        probe = self.gate(base, base, [], structural=False)
        if probe.certified and not probe.passed:
            return probe.messages or ["the record's own text fails the gate"]
        return []

    def _breakage(self, batch_id: str, cands: list[Candidate], messages: list[str],
                  now: float) -> Stage2Outcome | None:
        """Not the candidates' fault: none is charged, all stay accepted; the diagnostics go to
        the repair step (stage 1's restate + audit + a new lock). Unrepaired: stop (exit 1)."""
        s = self.sched
        assert s is not None
        self.log.append("gate", batch=batch_id, certified=True, merged=[], rejected={},
                        broken=messages[:20])
        self.notify("note", {"message": "the record fails the gate outside the batch: "
                                        + "; ".join(messages[:3])})
        s.gate_done([], {}, now)  # the batch waits (PENDING) instead of being rejected
        ok, why = (self.repair_record(messages) if self.repair_record is not None
                   else (False, "no repair step configured"))
        self.log.append("breakage", batch=batch_id, messages=messages[:20], repaired=ok,
                        reason=why, commit=self.record.head())
        if ok:
            if self._relock():
                self.log.append("locked", commit=self.record.head(), reason="record repaired")
            self._sync()
            return None
        self.blocked.update(s.blocked())
        shown = "; ".join(messages[:3]) + (f" (+{len(messages) - 3} more)"
                                           if len(messages) > 3 else "")
        return Stage2Outcome(f"the record does not pass the gate outside the batch: {shown}; "
                             f"not repaired ({why}); nothing was blocked", dict(self.blocked))


def _candidate(ev: dict[str, Any]) -> Candidate:
    return Candidate(ev["aid"], ev["node"], ev.get("body", ""), ev.get("helpers", ""),
                     ev.get("role") or ev.get("job", "prove"))
