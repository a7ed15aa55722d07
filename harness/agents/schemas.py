"""What each role must hand back (pydantic), validated before anything else looks at it.

These are the JSON schemas of the ``submit`` tool in tools mode and of the ```json block in
completion mode (prove and construct also accept a fenced ```lean block; see roles.py).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ProveResult(_Out):
    """A proof of one node: its new body (text after `:=`, usually `by …`) and optional complete
    helper declarations to be placed directly before the node."""

    body: str = Field(min_length=1, description="The node's new body: the text after `:=`, "
                      "e.g. `by\n  simp [foo]`. Complete: no sorry, admit or sorry_using.")
    helpers: str = Field(default="", description="Optional complete helper lemmas (full Lean "
                         "declarations, no blueprint attribute) placed just before the node.")


Severity = Literal["critical", "major", "minor"]
FindingKind = Literal["drift", "too_weak", "too_strong", "vacuous", "missing_hypothesis",
                      "wrong_target"]


class AuditFinding(_Out):
    label: str = Field(description="Blueprint label of the node the finding is about.")
    severity: Severity
    kind: FindingKind
    explanation: str = Field(min_length=1)
    suggested_fix: str = Field(default="", description="A corrected Lean statement or a "
                               "precise description of the change.")


class AuditReport(_Out):
    findings: list[AuditFinding] = Field(default_factory=list)
    summary: str = ""


class RepairResult(_Out):
    """``split``: new helper nodes (each a full `@[blueprint …]` declaration whose body is
    `sorry`/`sorry_using`) inserted before the node, plus the node's new body citing them with
    `sorry_using [...]`. ``blocker``: the node cannot be proved as stated; ``reason`` says why."""

    kind: Literal["split", "blocker"]
    helpers: str = Field(default="", description="split: the new helper node declarations.")
    body: str = Field(default="", description="split: the node's new body, normally "
                      "`by sorry_using [h1, h2]` naming the helper nodes.")
    reason: str = Field(default="", description="blocker: why the node cannot be proved.")

    @model_validator(mode="after")
    def _shape(self) -> RepairResult:
        if self.kind == "split" and not self.helpers.strip():
            raise ValueError("a split needs at least one helper node")
        if self.kind == "blocker" and not self.reason.strip():
            raise ValueError("a blocker needs a reason")
        return self


class ConstructResult(_Out):
    lean: str = Field(min_length=1, description="The complete blueprint Lean file.")
    notes: str = ""


SCHEMAS: dict[str, type[BaseModel]] = {
    "prove": ProveResult,
    "audit": AuditReport,
    "repair": RepairResult,
    "construct": ConstructResult,
}
