"""Stage 1: fidelity. construct (from the source, when there is no blueprint yet) -> audit <->
refine until an audit has no finding of severity major or worse (or the round limit) -> lock.

Each new blueprint text is checked before it is committed (it parses and plans cleanly, uses no
forbidden construct, and the whole file compiles); every step is an event, so a resumed run
continues at the next round. The lock is written only after a clean audit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

from harness.errors import CannotCertify, UsageError
from harness.orchestrator.events import EventLog
from harness.orchestrator.record import GateOutcome, Record
from harness.orchestrator.state import RunState, atomic_write

BLOCKING = ("critical", "major")


@dataclass
class StepResult:
    ok: bool
    text: str | None = None  # construct/refine: the whole new file
    findings: list[dict[str, Any]] | None = None  # audit
    reason: str = ""
    tokens: int = 0
    cost: float = 0.0


class Stage1Agents(Protocol):
    def construct(self, source: str) -> StepResult: ...
    def audit(self, text: str, source: str) -> StepResult: ...
    def refine(self, text: str, source: str, findings: list[dict[str, Any]]) -> StepResult: ...


@dataclass
class Stage1Outcome:
    done: bool  # statements locked: stage 2 may start
    reason: str


Check = Callable[[str], GateOutcome]  # a new stage-1 text: parse, forbidden, compile
Lock = Callable[[str], None]  # write the statement lock for this text


def stage1(*, record: Record, log: EventLog, state: RunState, agents: Stage1Agents | None,
           source: str | None, max_rounds: int, check: Check, lock: Lock,
           notify: Callable[[str, dict[str, Any]], None]) -> Stage1Outcome:
    if state.locked:
        return Stage1Outcome(True, "statements already locked")
    log.append("stage", stage=1)
    if not record.file.exists() or record.head() is None or record.text_at() is None:
        if agents is None or source is None:
            raise UsageError(f"{record.file}: no blueprint yet and no way to construct it "
                             "(needs --source and an LLM endpoint)")
        res = agents.construct(source)
        log.append("construct", round=0, ok=res.ok, reason=res.reason, tokens=res.tokens,
                   cost=res.cost)
        if not res.ok or res.text is None:
            return Stage1Outcome(False, f"construct failed: {res.reason}")
        why = _commit_checked(record, check, res.text, "construct", 0)
        if why:
            return Stage1Outcome(False, f"the constructed blueprint was rejected: {why}")
        notify("note", {"message": f"constructed {record.rel}"})
    if agents is None or source is None:
        text = record.head_text()
        lock(text)
        log.append("locked", commit=record.head(), audited=False)
        msg = ("no source or no LLM endpoint: the fidelity audit was skipped; the statements "
               "are locked as they are")
        notify("note", {"message": msg})
        return Stage1Outcome(True, msg)
    for rnd in range(state.stage1_rounds + 1, max_rounds + 1):
        text = record.head_text()
        res = agents.audit(text, source)
        blocking = [f for f in (res.findings or []) if f.get("severity") in BLOCKING]
        log.append("audit", round=rnd, ok=res.ok, findings=res.findings or [],
                   blocking=len(blocking), reason=res.reason, tokens=res.tokens, cost=res.cost)
        notify("note", {"message": f"audit round {rnd}: {len(res.findings or [])} findings, "
                                   f"{len(blocking)} major or worse"})
        if not res.ok:
            continue
        if not blocking:
            lock(text)
            log.append("locked", commit=record.head(), audited=True, round=rnd)
            return Stage1Outcome(True, f"clean audit in round {rnd}")
        ref = agents.refine(text, source, blocking)
        log.append("refine", round=rnd, ok=ref.ok, reason=ref.reason, tokens=ref.tokens,
                   cost=ref.cost)
        if ref.ok and ref.text is not None:
            why = _commit_checked(record, check, ref.text, "refine", rnd)
            if why:
                log.append("note", message=f"refine round {rnd} rejected: {why}")
    return Stage1Outcome(False, f"stage 1: the audit still has major findings after "
                                f"{max_rounds} rounds")


def _commit_checked(record: Record, check: Check, text: str, what: str, rnd: int) -> str | None:
    if record.head() is not None and text == record.text_at():
        return "the new text is identical to the record"
    out = check(text)
    if not out.certified:
        raise CannotCertify(f"stage 1 {what}: " + ("; ".join(out.messages[:3]) or
                                                   "the gate could not certify"))
    if not out.passed:
        return "; ".join(out.messages[:5]) or "rejected"
    record.commit_text(text, f"harness: {what} (stage 1, round {rnd})\n\n"
                             f"Harness-Stage: 1\nHarness-Step: {what}\n")
    return None


def source_text(path: Path | None, saved: Path) -> str | None:
    """The informal source: from --source (kept in the run directory for resumes), else saved."""
    if path is not None:
        from harness.agents.blueprinting import read_source

        text = read_source(path)
        atomic_write(saved, text)
        return text
    return saved.read_text(encoding="utf-8") if saved.exists() else None
