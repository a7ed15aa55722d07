"""The stage-2 scheduler's data: policies, node states, its configuration, a dispatch decision and
the record it keeps per node (:mod:`harness.orchestrator.scheduler` has the state machine)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Policy(str, Enum):
    PIPELINED = "pipelined"
    BARRIER = "barrier"


class NodeState(str, Enum):
    OPEN = "open"
    RUNNING = "running"
    PENDING = "pending"
    GATING = "gating"
    DONE = "done"
    BLOCKED = "blocked"


@dataclass(frozen=True)
class SchedulerConfig:
    workers: int = 4
    policy: Policy = Policy.PIPELINED
    batch_size: int = 8  # a gate batch closes at this many accepted candidates …
    batch_window: float = 0.0  # … or when the oldest has waited this long (seconds)
    barrier_batch: int = 16  # barrier policy only: jobs per barrier batch
    attempts_before_repair: int | None = None  # K failures in a row -> needs_repair(node)
    max_attempts: int | None = None  # hard cap: the node is blocked after this many attempts
    # racing: when no ready node is left for an idle worker, a running node on the critical path
    # gets up to this many attempts at once; the first accepted one wins (pipelined only)
    race: int = 1


@dataclass(frozen=True)
class Dispatch:
    node: str
    worker: int
    attempt: int  # 1-based attempt number for this node


@dataclass
class NodeRecord:
    """What the scheduler knows of one node."""

    state: NodeState = NodeState.OPEN
    attempts: int = 0
    failures: int = 0  # consecutive failures since the last repair
    waiting: int = 0  # open predecessors not yet DONE
    worker: int | None = None
    reason: str = ""
    pending_since: float = 0.0
    racers: list[int] = field(default_factory=list)  # further workers on this node (racing)
