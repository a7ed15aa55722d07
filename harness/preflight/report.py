"""The preflight's data: one :class:`Check` per thing that must be in place, and the rule that
turns the blocking problems into a usage error (exit 2, one line each) before any work starts."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from harness.errors import UsageError

Status = Literal["ok", "missing", "warn", "skipped"]


class Check(BaseModel):
    """One row of `harness doctor`: never holds a secret (keys are reported as set / not set)."""

    name: str  # "lean", "mathlib", "architect", "repl", "endpoint", "model:prove", …
    status: Status
    found: str = ""  # what was found: versions, paths, model names
    fix: str = ""  # one line: what to set or run
    blocking: bool = False  # a missing blocking check stops run/prove/lock with exit 2

    def line(self) -> str:
        return f"{self.name}: {self.found}" + (f"; {self.fix}" if self.fix else "")


def enforce(checks: list[Check]) -> None:
    """Raise every blocking problem at once as a UsageError: one line each (what is wrong, what
    to set), then the other missing things a fix would run into next (no Lean, …)."""
    blocking = [c for c in checks if c.status == "missing" and c.blocking]
    if not blocking:
        return
    also = [c for c in checks if c.status == "missing" and not c.blocking]
    raise UsageError("\n".join([f"preflight: {c.line()}" for c in blocking]
                               + [f"preflight: also {c.line()}" for c in also]))


def roles_for(command: str, stage: str = "all", *, source: bool = False) -> tuple[str, ...]:
    """The LLM roles a command will use when an endpoint is configured. Stage 2 proves and
    repairs; stage 1 constructs, audits and refines (refine runs with the construct role's
    settings) when there is a source. Without one, stage 1 needs them only if Lean rejects a
    statement — it then says which role has no model (harness.orchestrator.stage1)."""
    if command == "prove":
        return ("prove",)
    if command != "run":
        return ()
    one = ("construct", "audit") if source else ()
    two = ("prove", "repair")
    return {"1": one, "2": two}.get(stage, one + two)
