"""Step 4 of the gate: the ground-truth compile of the whole (merged) file.

One `lake env lean --json` run through :func:`harness.lean.verdict.check_file`, with a
`#print axioms` line per declaration that claims to be complete. It passes only if Lean reports no
error anywhere, no `sorry` in a claimed-complete declaration (a `sorryAx` inherited only from
declarations that are still placeholders is fine: that node is proved *relative to* them), and
axioms within ``propext``/``Classical.choice``/``Quot.sound``. Timeout, memory cap, crash or a
missing axiom report is "cannot certify" (exit 3) — never a pass.

The same compile writes an `.olean` that our own Lean program reads (:mod:`harness.gate.declared`):
the constants, instances and other extension entries the file adds, and a kernel replay of every
new constant. :mod:`harness.gate.audit` judges them against the declarations we parsed and, with a
base revision, against the base's own audit plus the allowed changes (``allowed_names``). What
Lean's environment holds is the authority; our reading of the text is only the first filter.

``lean`` is a :class:`harness.lean.toolchain.Toolchain` or any callable
``(bp, labels) -> FileVerdict`` (a pre-bound runner; it is asked for the audit when it takes an
``audit`` argument, otherwise the report notes that no audit ran).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Union

from harness.blueprint.model import Blueprint
from harness.errors import CannotCertify
from harness.gate.audit import AuditProblem, check_base, check_text
from harness.gate.declared import audit_of_text, compile_audited
from harness.gate.elaborated import run_with_types, takes_types
from harness.lean.compile import module_name
from harness.lean.toolchain import Toolchain
from harness.lean.verdict import FileVerdict, LocatedMessage, check_file
from harness.workspace import find_workspace

LeanRunner = Callable[[Blueprint, list[str]], FileVerdict]
LeanHandle = Union[Toolchain, LeanRunner]


@dataclass(slots=True)
class LeanProblem:
    key: str | None
    line: int
    col: int
    message: str


@dataclass(slots=True)
class LeanOutcome:
    status: str  # "passed" | "failed" | "cannot certify"
    problems: list[LeanProblem] = field(default_factory=list)
    detail: str | None = None
    lean_version: str | None = None
    types: dict[str, str] | None = None  # key -> elaborated type, when asked for
    # accepted with `sorryAx` inherited from dependencies: proved only *relative* to them (not
    # proved: harness.orchestrator.certify decides that from a later, clean axiom report)
    relative: list[str] = field(default_factory=list)
    values: dict[str, str] | None = None  # key -> elaborated value (`#print`), when asked for
    audited: bool = False  # Lean's environment was read and judged (harness.gate.audit)


def _runner(lean: LeanHandle, workspace: Path | None, timeout_s: float | None) -> LeanRunner:
    if isinstance(lean, Toolchain):
        def run(bp: Blueprint, labels: list[str]) -> FileVerdict:
            ws = workspace or find_workspace(bp.path or Path.cwd())
            kwargs = {"timeout_s": timeout_s} if timeout_s else {}
            return check_file(lean, ws, bp, labels=labels, audit=compile_audited, **kwargs)
        return run
    if takes_types(lean, "audit"):
        return lambda bp, labels: lean(bp, labels, audit=True)  # type: ignore[call-arg]
    return lean


def _msg_problem(m: LocatedMessage, key: str | None) -> LeanProblem:
    first = (m.data.strip().splitlines() or [""])[0]
    return LeanProblem(key, m.pos.line, m.pos.col, first)


def run_lean(bp: Blueprint, claimed: list[str], lean: LeanHandle, *,
             workspace: Path | None = None, timeout_s: float | None = None,
             types: list[str] | None = None, values: list[str] | None = None,
             base_text: str | None = None, allowed_names: set[str] | None = None
             ) -> LeanOutcome:
    """Compile ``bp`` and judge the declarations whose keys are in ``claimed``; with ``types``,
    the same compile also prints those declarations' elaborated types (``LeanOutcome.types``).
    With ``base_text``, Lean's list of the file's constants is compared with the base's, where
    only ``allowed_names`` (allowed nodes, new helpers) may differ."""
    try:
        if types:
            verdict = run_with_types(lean, bp, claimed, types, workspace=workspace,
                                     timeout_s=timeout_s, values=values, audit=True)
        else:
            verdict = _runner(lean, workspace, timeout_s)(bp, claimed)
        audit_problems = _audit(bp, verdict, lean, workspace, timeout_s, base_text,
                                allowed_names or set())
    except CannotCertify as err:
        return LeanOutcome("cannot certify", detail=err.line())
    except OSError as err:  # could not even start Lean
        return LeanOutcome("cannot certify", detail=f"could not run Lean: {err}")
    problems: list[LeanProblem] = []
    for m in verdict.errors_anywhere:
        problems.append(_msg_problem(m, None))
    for ap in audit_problems or []:
        p = bp.pos_of(ap.offset)
        problems.append(LeanProblem(ap.key, p.line, p.col, ap.message))
    wanted = set(claimed)
    seen: set[str] = set()
    relative: list[str] = []
    for node in verdict.nodes:
        if node.key not in wanted:
            continue
        seen.add(node.key)
        d = bp.by_key(node.key)
        if node.status == "proved":
            continue
        if node.accepted_modulo_deps:
            relative.append(node.key)
            continue
        if node.status == "error":
            errs = [m for m in node.messages if m.is_error]
            if errs:
                problems += [_msg_problem(m, node.key) for m in errs]
            else:
                problems.append(LeanProblem(node.key, d.pos.line, d.pos.col,
                                            node.first_error or "Lean reported an error"))
        elif node.status == "sorry":
            problems.append(LeanProblem(node.key, d.name_pos.line, d.name_pos.col,
                                        "declaration uses `sorry` but claims to be complete"
                                        + (f" (axioms: {', '.join(node.axioms)})"
                                           if node.axioms else "")))
        elif node.status == "axioms":
            problems.append(LeanProblem(node.key, d.pos.line, d.pos.col,
                                        "depends on axioms outside the allowlist: "
                                        + ", ".join(node.forbidden_axioms)))
        else:
            return LeanOutcome("cannot certify", detail=f"{bp.display_path}:{d.pos.line}:"
                               f"{d.pos.col}: no axiom report for {node.key}")
    missing = wanted - seen
    if missing:
        return LeanOutcome("cannot certify",
                           detail=f"Lean verdict lacks {', '.join(sorted(missing))}")
    return LeanOutcome("failed" if problems else "passed", problems,
                       lean_version=verdict.lean_version, types=verdict.types,
                       relative=relative, values=verdict.values,
                       audited=audit_problems is not None)


def _audit(bp: Blueprint, verdict: FileVerdict, lean: LeanHandle, workspace: Path | None,
           timeout_s: float | None, base_text: str | None, allowed: set[str]
           ) -> list[AuditProblem] | None:
    """What Lean's environment says against what we expect; None: no audit (a file with
    errors fails anyway; a pre-bound runner without one is noted by the caller)."""
    audit = getattr(verdict, "audit", None)
    if audit is None:
        return None
    if base_text is None or not isinstance(lean, Toolchain):
        return check_text(bp, audit)
    ws = workspace or find_workspace(bp.path or Path.cwd())
    from harness.lean.run import DEFAULT_MEM_MB

    module = lean.module_of(bp.path) or module_name(ws, bp.path)
    base = audit_of_text(lean, ws, base_text, module, timeout_s=timeout_s or 600.0,
                         mem_mb=DEFAULT_MEM_MB)
    if base is None:
        raise CannotCertify("the base revision does not build, so Lean's list of its "
                            "constants cannot explain the candidate's")
    known = {c.name for c in base.constants}
    return check_text(bp, audit, known) + check_base(base, audit, bp, allowed)
