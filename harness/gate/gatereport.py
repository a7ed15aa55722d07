"""What the gate answers (:class:`GateReport`, a :class:`GateFailure` per problem, informal
changes) and :class:`Ctx`, where each check adds its failures; apart from :mod:`.verify` so the
checks in their own modules (:mod:`.lockcheck`) report the same way."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, computed_field

from harness.blueprint.model import Blueprint
from harness.gate.sanitize import printable

LeanStatus = Literal["passed", "failed", "not run", "cannot certify"]


class GateFailure(BaseModel):
    check: str  # lexer | lock | forbidden | scope | lean
    rule: str | None = None  # forbidden-rule id (docs/trust.md)
    key: str | None = None  # node label or Lean name
    path: str
    line: int
    col: int
    message: str

    def render(self) -> str:
        """One line, safe for a terminal (escapes in a label or a Lean message are shown)."""
        who = f" {self.key}:" if self.key else ""
        return printable(f"{self.path}:{self.line}:{self.col}: [{self.check}]{who} "
                         f"{self.message}")


class InformalChange(BaseModel):
    key: str
    path: str
    line: int
    col: int
    message: str


class GateReport(BaseModel):
    path: str
    passed: bool
    certified: bool
    static_only: bool
    lean_status: LeanStatus
    lean_detail: str | None = None
    failures: list[GateFailure] = []
    informal_changes: list[InformalChange] = []
    checks: list[str] = []  # the checks that ran
    # elaborated-type comparison: "compared" (Lean ran, the lock has hashes), "not in lock" (the
    # lock has none: statements compared by normalised source only), "not run" (no Lean step)
    elaborated: Literal["compared", "not in lock", "not run"] = "not run"
    notes: list[str] = []  # informational lines (never a failure)
    # claimed-complete declarations whose Lean axiom report has `sorryAx` only through
    # declarations they use: accepted, but not proved (docs/trust.md §5)
    relative: list[str] = []

    @computed_field  # type: ignore[prop-decorator]
    @property
    def exit_code(self) -> int:
        if self.failures:
            return 1
        if self.lean_status == "cannot certify" or (not self.certified and not self.static_only):
            return 3
        return 0


class Ctx:
    """The failures of one gate run, located in the checked text."""

    def __init__(self, bp: Blueprint, path: str) -> None:
        self.bp = bp
        self.path = path
        self.failures: list[GateFailure] = []

    def fail(self, check: str, offset: int, message: str, key: str | None = None,
             rule: str | None = None) -> None:
        p = self.bp.pos_of(offset)
        self.failures.append(GateFailure(check=check, rule=rule, key=key, path=self.path,
                                         line=p.line, col=p.col, message=message))
