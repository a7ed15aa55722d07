"""Where attempts run: the seam between the scheduler and the machines.

A job and its result are plain pydantic models (serialisable), and a runner is a function of the
job alone (it gets the record text and commit in the job, not a live object), so a distributed
engine (Ray tasks, Slurm array jobs) can implement :class:`Executor` by shipping jobs to other
machines; :class:`LocalExecutor` runs them on a thread pool (attempts wait on HTTP and Lean
subprocesses, so threads suffice).
"""

from __future__ import annotations

import os
import queue
import socket
import threading
import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Callable, Literal, Protocol

from pydantic import BaseModel, Field

from harness.memory.model import Blocker


class AttemptJob(BaseModel):
    run_id: str
    aid: str  # "<node>#<attempt>"
    node: str
    attempt: int
    kind: Literal["prove", "repair"] = "prove"
    workspace: str
    file: str  # the blueprint's path (for messages and the Lean check's location)
    commit: str | None  # the record's head when the job was made
    text: str  # the record's text at ``commit``
    feedback: list[str] = Field(default_factory=list)  # earlier failures of this node
    worker: int = 0
    budget_usd: float | None = None  # this attempt's spending cap (enforced where it runs)
    memory: str = ""  # the node's memory summary for the prompt (harness.memory.summary)
    model: str | None = None  # the role's model for this attempt (tiers); None: the config's


class AttemptResult(BaseModel):
    aid: str
    node: str
    kind: Literal["prove", "repair"] = "prove"
    ok: bool
    body: str = ""
    helpers: str = ""
    role: str = ""  # which prover produced it: tactics | prove | repair
    repair: Literal["split", "blocker", ""] = ""
    reason: str = ""
    tokens: int = 0
    cost: float = 0.0
    seconds: float = 0.0
    fatal: str = ""  # the whole run must stop (e.g. the endpoint rejected the API key)
    escalation: Blocker | None = None  # the agent reported that the node needs a person
    model: str = ""  # the model that made the attempt (tiers)
    # where it ran (the event log and `status` show it): cluster node, host, worker process
    node_id: str = ""
    host: str = ""
    pid: int = 0
    lost: int = 0  # times a dying worker lost this attempt and it was re-dispatched

    def placement(self) -> dict[str, object]:
        return {"node_id": self.node_id, "host": self.host, "pid": self.pid, "lost": self.lost}


Runner = Callable[[AttemptJob], AttemptResult]


class Executor(Protocol):
    """submit() never blocks on the job; poll() returns finished results (waits up to timeout)."""

    def submit(self, job: AttemptJob) -> None: ...
    def poll(self, timeout: float) -> list[AttemptResult]: ...
    def running(self) -> int: ...
    def shutdown(self) -> None: ...


def safe_run(runner: Runner, job: AttemptJob) -> AttemptResult:
    """A runner's exception is a failed attempt with a reason, never a crashed orchestrator."""
    t0 = time.monotonic()
    try:
        res = runner(job)
    except Exception as err:  # noqa: BLE001 — reported as the attempt's failure
        tb = traceback.extract_tb(err.__traceback__)[-1:]
        where = f" at {tb[0].filename.rsplit('/', 1)[-1]}:{tb[0].lineno}" if tb else ""
        res = AttemptResult(aid=job.aid, node=job.node, kind=job.kind, ok=False,
                            reason=f"internal error: {type(err).__name__}: {err}{where}")
    if not res.seconds:
        res.seconds = round(time.monotonic() - t0, 3)
    res.host = res.host or socket.gethostname()
    res.pid = res.pid or os.getpid()
    res.node_id = res.node_id or "local"
    return res


class LocalExecutor:
    def __init__(self, runner: Runner, workers: int) -> None:
        self._runner = runner
        self._pool = ThreadPoolExecutor(max_workers=max(1, workers),
                                        thread_name_prefix="attempt")
        self._done: queue.Queue[AttemptResult] = queue.Queue()
        self._lock = threading.Lock()
        self._running = 0

    def submit(self, job: AttemptJob) -> None:
        with self._lock:
            self._running += 1
        fut: Future = self._pool.submit(safe_run, self._runner, job)
        fut.add_done_callback(self._collect)

    def _collect(self, fut: Future) -> None:
        self._done.put(fut.result())  # queued before it stops counting: running() == 0
        with self._lock:  # then means every result can be polled
            self._running -= 1

    def poll(self, timeout: float) -> list[AttemptResult]:
        out: list[AttemptResult] = []
        try:
            out.append(self._done.get(timeout=max(timeout, 0.0)) if timeout > 0
                       else self._done.get_nowait())
        except queue.Empty:
            return out
        while True:
            try:
                out.append(self._done.get_nowait())
            except queue.Empty:
                return out

    def running(self) -> int:
        with self._lock:
            return self._running

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def abort(self) -> None:
        """Interrupted: drop queued jobs, do not wait (the caller killed the Lean runs)."""
        self._pool.shutdown(wait=False, cancel_futures=True)
