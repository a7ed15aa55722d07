"""What every part of stage 2 shares: its settings, its outcome, the loop's state, small helpers.

:class:`harness.orchestrator.stage2.Stage2` is assembled from parts, one module each: the DAG from
the record (``stage2_dag``), attempts out and results back (``stage2_attempts``), the gate queue
(``stage2_gate``) and the final certification (``stage2_certify``). Each part is a subclass of
:class:`Stage2Base`, so all of them see one state; a project run (``project_stage2``) overrides
the file-shaped steps of the assembled class.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

from harness.blueprint.dag import Analysis
from harness.blueprint.model import Blueprint
from harness.orchestrator.batchmerge import Candidate, Gate
from harness.orchestrator.certify import Certifier
from harness.orchestrator.events import EventLog
from harness.orchestrator.executor import Executor
from harness.orchestrator.nodememory import RunMemory
from harness.orchestrator.record import Record
from harness.orchestrator.scheduler import Scheduler
from harness.orchestrator.scheduler_model import NodeState
from harness.orchestrator.state import RunState
from harness.workspace import find_workspace

MAX_FEEDBACK = 4  # a node's latest failure reasons carried to its next attempt
# (messages) -> (repaired, reason): the record was broken outside any batch (services.py)
RepairRecord = Callable[[list[str]], tuple[bool, str]]
Notify = Callable[[str, dict[str, Any]], None]


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


class Stage2Base:
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
        self._proved0 = 0  # proved parts the scheduler does not count (proved before the run)

    # ---- provided by stage2_dag, used by the other parts ---------------------------------------
    def _analysis(self) -> Analysis:
        raise NotImplementedError

    def _sync(self) -> None:
        raise NotImplementedError

    def _record_of(self, node: str) -> Record:
        raise NotImplementedError

    # ---- small helpers -------------------------------------------------------------------------
    def _note(self, msg: str) -> None:
        self.log.append("note", message=msg)
        self.notify("note", {"message": msg})

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
