"""Stage 1's compile: the Lean errors of a whole blueprint text as findings a model can act on.

One `lake env lean --json` run of the text (harness.lean.verdict.check_file, no lock involved).
Each error becomes a :class:`LeanFinding`: ``FILE:LINE:COL``, the node it belongs to, Lean's
message and the goal / expected type Lean printed in it (``⊢ …``, ``but is expected to have
type …``, ``failed to synthesize …``). `sorry` warnings are not findings: stage 1 does not prove.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harness.blueprint.parse import parse_text
from harness.errors import CannotCertify, HarnessError

MAX_MESSAGE = 2000
_EXPECTED = re.compile(r"(but is expected to have type|failed to synthesize|⊢)", re.I)


class LeanFinding(BaseModel):
    file: str
    line: int
    col: int
    node: str | None  # the label (or declaration key) the error is in; None: outside them
    message: str  # Lean's message (bounded)
    expected: str = ""  # the goal / expected type / instance Lean printed, when it did

    def render(self) -> str:
        first = self.message.strip().splitlines()[0] if self.message.strip() else ""
        where = f"{self.node}: " if self.node else ""
        return f"{self.file}:{self.line}:{self.col}: {where}{first}"


@dataclass
class Diagnosis:
    certified: bool  # False: Lean timed out / crashed: nothing is known about the text
    findings: list[LeanFinding] = field(default_factory=list)
    reason: str = ""  # why it could not be certified, or why the text was refused


def expected_of(data: str) -> str:
    """The part of a Lean message that says what was expected (empty when there is none)."""
    m = _EXPECTED.search(data)
    if not m:
        return ""
    return data[m.start():].strip()[:MAX_MESSAGE]


def diagnose_text(text: str, file: Path, tc: Any, workspace: Path, timeout_s: float,
                  display: str | None = None) -> Diagnosis:
    """Compile ``text`` (as ``file``) and return its Lean errors."""
    from harness.lean.verdict import check_file

    try:
        bp = parse_text(text, display or str(file))
    except HarnessError as err:
        return Diagnosis(True, [], f"does not parse: {err.line()}")
    try:
        v = check_file(tc, workspace, bp, timeout_s=timeout_s)
    except CannotCertify as err:
        return Diagnosis(False, [], err.line())
    shown = display or str(file)
    out: list[LeanFinding] = []
    for n in v.nodes:
        for m in n.messages:
            if m.is_error and m.region != "context":
                out.append(_finding(m, shown, n.label or n.key))
    for m in v.file_errors:
        owner = _owner(bp, m.pos.line)
        out.append(_finding(m, shown, owner))
    out.sort(key=lambda f: (f.line, f.col))
    return Diagnosis(True, out)


def _owner(bp: Any, line: int) -> str | None:
    for d in bp.decls:
        end_line = bp.text.count("\n", 0, d.span.end) + 1
        if d.pos.line <= line <= end_line:
            return d.label or d.key
    return None


def _finding(m: Any, file: str, node: str | None) -> LeanFinding:
    data = m.data.strip()
    return LeanFinding(file=file, line=m.pos.line, col=m.pos.col, node=node,
                       message=data[:MAX_MESSAGE], expected=expected_of(data))


def nodes_of(findings: list[LeanFinding]) -> list[str]:
    return list(dict.fromkeys(f.node for f in findings if f.node))
