"""The data of a run: what a session is given (:class:`RunSettings`, :class:`Services`) and what
it leaves behind (:class:`RunResult` in ``result.json``, one :class:`NodeResult` per node)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Literal

from pydantic import BaseModel, ConfigDict, Field

from harness.memory.model import Blocker
from harness.orchestrator.executor import Executor, LocalExecutor, Runner
from harness.orchestrator.batchmerge import Gate, GateOutcome

if TYPE_CHECKING:  # not at run time: stage 1 needs git, `prove` (its settings' checks) does not
    from harness.orchestrator.stage1 import Stage1Agents

INTERRUPTED = 130  # the shell's codes for SIGINT (128 + 2) and SIGTERM (128 + 15): the CLI
TERMINATED = 143  # exits with them too


class RunSettings(BaseModel):
    """CLI flags > the config's ``[run]`` section > these defaults."""

    model_config = ConfigDict(extra="forbid")  # a typo in [run] is an error, not a silent default

    workers: int = Field(default=4, ge=1, le=256)
    max_rounds: int = Field(default=5, ge=1)  # stage 1: audit <-> refine rounds
    budget: float | None = Field(default=None, ge=0)  # USD, whole run
    stage: Literal["1", "2", "all"] = "all"
    batch_size: int = Field(default=8, ge=1)
    batch_window: float = Field(default=2.0, ge=0)
    attempts_before_repair: int = Field(default=3, ge=1)
    max_attempts: int = Field(default=12, ge=1)  # per node, then it is blocked
    # where attempts run (docs/cluster.md): "local" threads, or Ray tasks on a cluster
    executor: Literal["local", "ray"] = "local"
    ray_address: str | None = None  # None: a Ray instance on this machine; "auto": the cluster
    lean_memory_gb: float = Field(default=8.0, gt=0)  # one Lean process on this workspace
    ray_workspace: Literal["shared", "runtime_env"] = "shared"  # how workers see the workspace
    attempt_usd: float | None = Field(default=None, gt=0)  # one attempt's cap (budget / workers)
    race: int = Field(default=1, ge=1, le=16)  # attempts at once on a critical node when idle


class NodeResult(BaseModel):
    status: Literal["proved", "open", "blocked"]
    reason: str = ""
    attempts: int = 0
    commit: str | None = None


class RunResult(BaseModel):
    schema_version: int = 1
    run_id: str
    file: str
    final_commit: str | None
    stop_reason: str
    exit_code: int
    # what the run was doing when it stopped ("preflight", "stage 2", …): where an interrupt hit
    phase: str | None = None
    nodes: dict[str, NodeResult] = Field(default_factory=dict)
    counts: dict[str, int] = Field(default_factory=dict)
    attempts: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    wall_time_s: float = 0.0
    sessions: int = 0
    notes: list[str] = Field(default_factory=list)
    # nodes an agent handed to a person (report_blocker): the report, the best partial proof and
    # the last goals; `harness resume-node FILE LABEL` clears one after a human edit
    needs_person: dict[str, Blocker] = Field(default_factory=dict)


@dataclass
class Services:
    """What a session needs from the outside world (the real ones: services.py)."""

    runner: Runner
    make_gate: Callable[[], Gate]  # called when stage 2 starts (loads or makes the lock)
    make_executor: Callable[[Runner, int], Executor] = LocalExecutor
    stage1: Stage1Agents | None = None
    check: Callable[[str], GateOutcome] | None = None  # stage 1: a new blueprint text
    lock: Callable[[str], None] | None = None  # stage 1: lock these statements
    # stage 2's final certification (harness.orchestrator.certify.Certifier); without one a
    # run never exits 0: a node is proved only when Lean's axiom report says so
    certifier: Any = None
    diagnose: Callable[[str], Any] | None = None  # stage 1: a text's Lean errors (compile)
    repair_record: Callable[[list[str]], tuple[bool, str]] | None = None  # stage 2: breakage
    notes: list[str] = field(default_factory=list)
