"""The real services of a run: the statement lock, the gate over the merged text, and stage 1's
agents, check and compile (the attempt runner: attempts.py; put together: harness/assemble.py).

Nothing here decides acceptance by itself but the gate: :func:`make_gate` (``harness.gate.verify``
on the merged file, lock and compile included) decides what enters the record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.agents.config import HarnessConfig
from harness.blueprint.parse import parse_text
from harness.errors import CannotCertify, HarnessError, UsageError
from harness.orchestrator.batchmerge import GateOutcome
from harness.orchestrator.record import Record
from harness.orchestrator.run import Session
from harness.orchestrator.stage1 import StepResult


# ---- the statement lock --------------------------------------------------------------------
def lock_path(session: Session) -> Path:
    return session.dir / "statements.lock.json"


def make_run_lock(text: str, record: Record, tc: Any, timeout_s: float | None = None) -> Any:
    """The statement lock of ``text``, with the elaborated type of every declaration (one Lean
    compile): the gate then also catches meaning changes that leave the source text alone. A
    file Lean rejects cannot be locked (CannotCertify: the run stops with exit 3)."""
    from harness.gate.elaborated import elaborated_hashes
    from harness.gate.lock import make_lock

    bp = parse_text(text, record.file)
    hashes = None
    if tc is not None:
        workspace = Path(record.repo.working_tree_dir or record.file.parent)
        hashes = elaborated_hashes(bp, [d.key for d in bp.decls if d.name], tc,
                                   workspace=workspace, timeout_s=timeout_s)
    return make_lock(bp, elaborated=hashes)


def ensure_lock(session: Session, record: Record, log: Any, tc: Any = None,
                timeout_s: float | None = None) -> tuple[Any, str | None]:
    """Load the run's lock; without one (stage 2 alone), lock the record's current statements."""
    from harness.gate.lock import load_lock

    path = lock_path(session)
    if path.exists():
        return load_lock(path), None  # a corrupt lock is an InputError: never trusted
    if session.state.locked:
        raise UsageError(f"{path}: the statement lock of this run is missing (it was written "
                         "when the statements were locked); restore it or start a new run")
    lock = make_run_lock(record.head_text(), record, tc, timeout_s)
    lock.save(path)
    log.append("locked", path=str(path), commit=record.head())
    return lock, "no statement lock yet: locked the record's current statements"


# ---- the gate ------------------------------------------------------------------------------
class LockedGate:
    """harness.gate.verify on the merged text: lock, forbidden tokens, scope (only the batch's
    nodes and helpers directly before them changed) and the whole-file Lean compile.

    A repair split adds placeholder nodes: the split nodes are checked in the scope step's split
    mode (new placeholder nodes directly before the node, its body a `sorry_using` naming them;
    harness.gate.scope) — the lock still pins every existing statement — and once merged the
    lock is extended to the new nodes (:meth:`relock`), so from then on they are pinned too."""

    def __init__(self, record: Record, lock: Any, tc: Any, timeout_s: float,
                 lock_file: Path | None = None) -> None:
        self.record, self.lock, self.tc, self.timeout_s = record, lock, tc, timeout_s
        self.lock_file = lock_file
        self.workspace = Path(record.repo.working_tree_dir or record.file.parent)

    def __call__(self, text: str, base_text: str, labels: list[str], *,
                 structural: bool = False, splits: list[str] | None = None) -> GateOutcome:
        from harness.gate.verify import verify

        split_labels = set(labels if splits is None else splits) if structural else set()
        try:
            rep = verify(text, self.record.file, self.lock, base_text=base_text,
                         allow=set(labels), allow_splits=split_labels, lean=self.tc,
                         workspace=self.workspace, timeout_s=self.timeout_s)
        except CannotCertify as err:
            return GateOutcome(False, False, [err.line()])
        except HarnessError as err:  # the merged text does not parse, a node vanished
            return GateOutcome(False, True, [err.line()])
        msgs = [f.render() for f in rep.failures]
        if rep.exit_code == 3:
            return GateOutcome(False, False, msgs or [rep.lean_detail or "cannot certify"])
        return GateOutcome(rep.exit_code == 0 and rep.passed, True, msgs)

    def relock(self, text: str) -> None:
        """After a split merged: pin the new nodes' statements as well."""
        self.lock = make_run_lock(text, self.record, self.tc, self.timeout_s)
        if self.lock_file is not None:
            self.lock.save(self.lock_file)

    def relock_repaired(self, text: str, restated: set[str]) -> list[str]:
        """A repair step's result against this lock, before the lock follows it: only the
        statements the repair restated and had audited (``restated``: labels or names) may
        differ; anything else the lock pins (another statement, a definition, a context, the
        header, the environment, forbidden tokens beyond the lock's) refuses the relock with
        the lock's own reason. Static (the repair step compiled the file); then relocked."""
        from harness.gate.lockcheck import RESTATABLE
        from harness.gate.verify import verify

        try:
            rep = verify(text, self.record.file, self.lock, static_only=True)
            bp = parse_text(text, self.record.file)
        except HarnessError as err:
            return [err.line()]
        excused = {d.key for d in bp.decls
                   if {d.key, d.label, d.name, d.short_name} & restated}
        left = [f.render() for f in rep.failures if not (
            f.check == "lock" and f.key in excused and f.message.startswith(RESTATABLE))]
        if left:
            return left
        self.relock(text)
        return []

    def restore_lock(self, lock: Any) -> None:
        """An undone repair: the lock as it was before it (a restored text Lean rejects cannot
        be locked anew: its elaborated types do not exist)."""
        self.lock = lock
        if self.lock_file is not None:
            lock.save(self.lock_file)


def make_gate(record: Record, lock: Any, tc: Any, timeout_s: float,
              lock_file: Path | None = None) -> LockedGate:
    return LockedGate(record, lock, tc, timeout_s, lock_file)


# ---- stage 1 -------------------------------------------------------------------------------
class LLMStage1:
    """construct / audit / refine from harness.agents.blueprinting (refine: the construct role's
    settings and output contract, its own prompt, given the current file and the blocking
    findings). A configuration the endpoint refuses raises (a UsageError: exit 2)."""

    def __init__(self, client: Any, cfg: HarnessConfig) -> None:
        self.client, self.cfg = client, cfg

    def _step(self, out: Any, **kw: Any) -> StepResult:
        usage = out.transcript.usage if out.transcript else None
        return StepResult(ok=out.ok, reason=out.reason,
                          tokens=(usage.prompt_tokens + usage.completion_tokens) if usage else 0,
                          cost=usage.cost_usd if usage else 0.0, **kw)

    def missing_models(self) -> list[str]:
        """The stage-1 roles (construct: also refine/restate; audit) that have no model."""
        return [r for r in ("construct", "audit") if not self.cfg.role(r).model]

    def construct(self, source: str) -> StepResult:
        from harness.agents.blueprinting import construct

        out = construct(source, client=self.client, cfg=self.cfg)
        new = out.output.lean if out.ok else None
        if new is not None and not new.endswith("\n"):
            new += "\n"  # a fenced block loses the final newline; a Lean file ends with one
        return self._step(out, text=new)

    def audit(self, text: str, source: str | None,
              changed: dict[str, str] | None = None) -> StepResult:
        from harness.agents.blueprinting import audit

        out = audit(parse_text(text, "<blueprint>"), source, client=self.client, cfg=self.cfg,
                    changed=changed)
        found = [f.model_dump() for f in out.output.findings] if out.ok else None
        return self._step(out, findings=found)

    def refine(self, text: str, source: str | None, findings: list[dict[str, Any]]
               ) -> StepResult:
        from harness.agents.blueprinting import refine

        out = refine(text, source, findings, client=self.client, cfg=self.cfg)
        return self._step(out, text=out.output.lean if out.ok else None)

    def restate(self, text: str, source: str | None, findings: list[dict[str, Any]]
                ) -> StepResult:
        from harness.agents.blueprinting import restate

        out = restate(text, source, findings, client=self.client, cfg=self.cfg)
        new = out.output.lean if out.ok else None
        if new is not None and text.endswith("\n") and not new.endswith("\n"):
            new += "\n"  # a fenced block loses the final newline; the file keeps it
        return self._step(out, text=new)


def make_diagnose(record: Record, tc: Any, timeout_s: float) -> Any:
    """Stage 1's compile: the Lean errors of a text (harness.orchestrator.diagnose)."""
    from harness.orchestrator.diagnose import diagnose_text

    workspace = Path(record.repo.working_tree_dir or record.file.parent)

    def diagnose(text: str) -> Any:
        return diagnose_text(text, record.file, tc, workspace, timeout_s,
                             display=str(record.rel))

    return diagnose


def make_check(record: Record, tc: Any, timeout_s: float) -> Any:
    """Stage 1's check of a whole new text: forbidden constructs and the Lean compile (the
    statements are not locked yet, so the lock is the text's own)."""
    from harness.gate.lock import make_lock

    workspace = Path(record.repo.working_tree_dir or record.file.parent)

    def check(text: str) -> GateOutcome:
        from harness.gate.verify import verify

        try:
            bp = parse_text(text, record.file)
            rep = verify(text, record.file, make_lock(bp), lean=tc, workspace=workspace,
                         timeout_s=timeout_s)
        except CannotCertify as err:
            return GateOutcome(False, False, [err.line()])
        except HarnessError as err:
            return GateOutcome(False, True, [err.line()])
        if rep.exit_code == 3:
            return GateOutcome(False, False, [rep.lean_detail or "cannot certify"])
        return GateOutcome(rep.exit_code == 0, True, [f.render() for f in rep.failures])

    return check
