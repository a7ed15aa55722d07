"""A run's record from the moment its id is known: a ^C or SIGTERM before its session wrote
``result.json`` (reading the blueprint, the preflight, LeanArchitect's edges, taking the run
lock) still leaves one, saying the run was interrupted and in which phase.

The id is a function of the workspace and the target (state.run_id_for), so it exists right
after the arguments are read. Nothing has been merged before a session runs, so this record
says only that: the previous session's nodes and counts (when its result.json reads) are kept,
the stop reason, exit code and phase are this interruption's. It is written under the run lock,
atomically; a live run holding the lock keeps its own record (nothing is written over it).
"""

from __future__ import annotations

import signal
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from pydantic import ValidationError

from harness import signals
from harness.errors import HarnessError
from harness.orchestrator import procs
from harness.orchestrator.runmodels import INTERRUPTED, TERMINATED, RunResult
from harness.orchestrator.state import RunLock, atomic_write, run_dir, run_id_for


class RunGuard:
    """``phase``: what the command is doing now (set by it as it goes)."""

    def __init__(self, workspace: Path, target: Path) -> None:
        self.file = target.resolve()
        self.run_id = run_id_for(workspace, self.file)
        self.dir = run_dir(workspace, self.file)
        self.phase = "starting"
        self.result: RunResult | None = None  # the record this guard wrote
        self.opened = False  # a session opened its event log (it may have merged since)

    @contextmanager
    def interrupts(self, session: Callable[[], Any]) -> Iterator[None]:
        """On an interrupt inside: unless ``session()`` (the run's session, once made) wrote
        its record, write this one; the interrupt goes on to the CLI (130 / 143, one line)."""
        try:
            yield
        except KeyboardInterrupt as err:
            procs.shield()  # a second ^C must not leave the record half-done
            try:
                made = session()
                if made is not None:  # it stopped before its record (its lock, its log)
                    self.phase = made.phase
                    self.opened = made.log is not None
                if made is None or made.result is None:
                    procs.kill_children()  # e.g. the preflight's `lake env lean --version`
                    term = signals.received() == signal.SIGTERM or (
                        signals.received() is None and isinstance(err, signals.Terminated))
                    self.result = self.write(TERMINATED if term else INTERRUPTED)
            finally:
                procs.unshield()
            raise

    def write(self, code: int) -> RunResult | None:
        """result.json for an interruption in ``phase``; None when a live run holds the lock
        (its record is its own) or the directory cannot be written."""
        lock = RunLock(self.dir / "lock.json")
        try:
            lock.acquire()
        except HarnessError:
            return None
        try:
            result = self._previous() or RunResult(run_id=self.run_id, file=str(self.file),
                                                   final_commit=None, stop_reason="", exit_code=0)
            word = "terminated" if code == TERMINATED else "interrupted"
            result = result.model_copy(update={
                "stop_reason": "interrupted", "exit_code": code, "phase": self.phase,
                "wall_time_s": 0.0,
                "notes": [f"{word} in the phase '{self.phase}', " + (
                    "and the session did not write its record (its events.jsonl has what it "
                    "did)" if self.opened else "before the run's session started: nothing was "
                    "merged")]})
            atomic_write(self.dir / "result.json", result.model_dump_json(indent=2) + "\n")
            return result
        except HarnessError:  # e.g. a read-only workspace: the exit status still says it
            return None
        finally:
            lock.release()

    def _previous(self) -> RunResult | None:
        """The last session's record of this run (its nodes and counts stay true: nothing ran
        since); None when there is none or it does not read."""
        try:
            text = (self.dir / "result.json").read_text(encoding="utf-8")
            prev = RunResult.model_validate_json(text)
        except (OSError, ValueError, ValidationError):
            return None
        return prev if prev.run_id == self.run_id else None
