"""Stage 1: fidelity. construct (from the source, when there is no blueprint yet) -> compile:
Lean's errors go to the refine prompt (restate) until the whole file elaborates -> audit <->
refine until an audit has no finding of severity major or worse (or the round limit) -> lock.

Each new blueprint text is checked before it is committed (it parses and plans cleanly, uses no
forbidden construct, and compiles — a restate may also be committed when it removes some of the
errors and adds none); every step is an event, so a resumed run continues at the next round.
Statements a restate changed are marked (``restated`` events, ``Harness-Restated`` trailer) and
the audit re-reads each of them, before/after, against the source or — without a source — the
node's informal statement. The lock is written only after a clean audit (or, with no source and
no changed statement, as the file stands).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

from harness.errors import CannotCertify, UsageError
from harness.orchestrator.diagnose import Diagnosis, LeanFinding, nodes_of
from harness.orchestrator.events import EventLog, voided
from harness.orchestrator.batchmerge import GateOutcome
from harness.orchestrator.record import Record
from harness.orchestrator.state import RunState, atomic_write

BLOCKING = ("critical", "major")
MAX_LISTED = 50  # findings kept in one `compile` event


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
    def audit(self, text: str, source: str | None,
              changed: dict[str, str] | None = None) -> StepResult: ...
    def refine(self, text: str, source: str | None,
               findings: list[dict[str, Any]]) -> StepResult: ...
    def restate(self, text: str, source: str | None,
                findings: list[dict[str, Any]]) -> StepResult: ...
    def missing_models(self) -> list[str]: ...  # restate + audit roles without a model


@dataclass
class Stage1Outcome:
    done: bool  # statements locked: stage 2 may start
    reason: str


Check = Callable[[str], GateOutcome]  # a new stage-1 text: parse, forbidden, compile
Lock = Callable[[str], None]  # write the statement lock for this text
Diagnose = Callable[[str], Diagnosis]  # a text's Lean errors (one compile)
Notify = Callable[[str, dict[str, Any]], None]


def stage1(*, record: Record, log: EventLog, state: RunState, agents: Stage1Agents | None,
           source: str | None, max_rounds: int, check: Check, lock: Lock,
           notify: Notify, diagnose: Diagnose | None = None) -> Stage1Outcome:
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
        # Lean errors alone do not reject a construct: the compile step below restates them
        why = _commit_checked(record, check, res.text, "construct", 0,
                              lean_errors_ok=diagnose is not None)
        if why:
            return Stage1Outcome(False, f"the constructed blueprint was rejected: {why}")
        notify("note", {"message": f"constructed {record.rel}"})
    if diagnose is not None:
        failed = compile_until_clean(record=record, log=log, agents=agents, source=source,
                                     max_rounds=max_rounds, check=check, diagnose=diagnose,
                                     notify=notify)
        if failed is not None:
            return failed
    changed = changed_statements(log.events)
    if agents is None or (source is None and not changed):
        text = record.head_text()
        lock(text)
        log.append("locked", commit=record.head(), audited=False)
        why = ("no LLM endpoint" if agents is None else
               "no source text to audit against (give --source)")
        msg = f"{why}: the fidelity audit was skipped; the statements are locked as they are"
        notify("note", {"message": msg})
        return Stage1Outcome(True, msg)
    for rnd in range(state.stage1_rounds + 1, max_rounds + 1):
        text = record.head_text()
        res = agents.audit(text, source, changed or None)
        blocking = [f for f in (res.findings or []) if f.get("severity") in BLOCKING]
        log.append("audit", round=rnd, ok=res.ok, findings=res.findings or [],
                   blocking=len(blocking), reason=res.reason, tokens=res.tokens, cost=res.cost,
                   changed=sorted(changed))
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
            new = ref.text  # a fenced block loses the final newline; the file keeps it
            new += "\n" if text.endswith("\n") and not new.endswith("\n") else ""
            why = _commit_checked(record, check, new, "refine", rnd)
            if why:
                log.append("note", message=f"refine round {rnd} rejected: {why}")
    return Stage1Outcome(False, f"stage 1: the audit still has major findings after "
                                f"{max_rounds} rounds")


def compile_until_clean(*, record: Record, log: EventLog, agents: Stage1Agents | None,
                        source: str | None, max_rounds: int, check: Check, diagnose: Diagnose,
                        notify: Notify) -> Stage1Outcome | None:
    """Compile the record's text; while Lean rejects statements, restate them (at most
    ``max_rounds`` restates over all sessions). None once the file elaborates."""
    void = voided(log.events)  # a rolled-back repair's rounds do not count
    done = sum(1 for e in log.events if e["kind"] == "restate" and e.get("seq") not in void)
    rnd = done
    while True:
        text = record.head_text()
        diag = diagnose(text)
        if not diag.certified:
            raise CannotCertify(f"stage 1 compile: {diag.reason or 'Lean could not certify'}")
        found = diag.findings
        log.append("compile", round=rnd, ok=not found and not diag.reason, errors=len(found),
                   findings=[f.model_dump() for f in found[:MAX_LISTED]], reason=diag.reason)
        if diag.reason:  # the record itself does not parse: not ours to repair here
            return Stage1Outcome(False, f"stage 1: {diag.reason}")
        if not found:
            if rnd:
                notify("note", {"message": f"stage 1: the blueprint elaborates (after {rnd} "
                                           "restate round(s))"})
            return None
        for f in found:
            notify("note", {"message": f.render()})
        listed = "; ".join(f.render() for f in found[:5]) + (
            f" (+{len(found) - 5} more)" if len(found) > 5 else "")
        missing = agents.missing_models() if agents is not None else []
        if agents is None or missing:
            why = ("no LLM endpoint is configured" if agents is None else
                   f"no model for the {', '.join(missing)} role(s) (set endpoint.default_model, "
                   "roles.<role>.model or HARNESS_MODEL, or pass --model)")
            return Stage1Outcome(False, f"stage 1: Lean rejects {len(found)} statement(s) and "
                                        f"{why} to repair them: {listed}")
        if rnd >= max_rounds:
            return Stage1Outcome(False, f"stage 1: Lean still rejects {len(found)} statement(s) "
                                        f"after {max_rounds} restate rounds: {listed}")
        rnd += 1
        res = agents.restate(text, source, [f.model_dump() for f in found])
        log.append("restate", round=rnd, ok=res.ok, reason=res.reason, tokens=res.tokens,
                   cost=res.cost, nodes=nodes_of(found))
        if not res.ok or res.text is None:
            continue
        why = _commit_restated(record, check, diagnose, text, res.text, found, rnd, log)
        if why:
            log.append("note", message=f"restate round {rnd} rejected: {why}")
            notify("note", {"message": f"restate round {rnd} rejected: {why}"})


def _commit_restated(record: Record, check: Check, diagnose: Diagnose, old: str, new: str,
                     before: list[LeanFinding], rnd: int, log: EventLog) -> str | None:
    """Commit a restate that Lean accepts (the full check), or one that removes errors and adds
    none (compiled again here); mark the statements it changed."""
    if new == old:
        return "the new text is identical to the record"
    diag = diagnose(new)
    if not diag.certified:
        raise CannotCertify(f"stage 1 restate: {diag.reason or 'Lean could not certify'}")
    if diag.reason:
        return diag.reason
    if diag.findings:
        was = {f.node for f in before}
        worse = [f for f in diag.findings if f.node not in was]
        if worse or len(diag.findings) >= len(before):
            shown = worse or diag.findings
            return "Lean still rejects it: " + "; ".join(f.render() for f in shown[:3])
    else:
        out = check(new)  # parse, plan, forbidden constructs, the whole-file compile
        if not out.certified:
            raise CannotCertify("stage 1 restate: " + ("; ".join(out.messages[:3])
                                                      or "the gate could not certify"))
        if not out.passed:
            return "; ".join(out.messages[:5]) or "rejected"
    changed = _changed(old, new, str(record.file))
    record.commit_text(new, f"harness: restate (stage 1, round {rnd})\n\n"
                            f"Harness-Stage: 1\nHarness-Step: restate\n"
                            f"Harness-Restated: {','.join(changed)}\n")
    log.append("restated", round=rnd, commit=record.head(), nodes=list(changed),
               before=changed, errors_left=len(diag.findings))
    return None


def _changed(old: str, new: str, path: str) -> dict[str, str]:
    """label -> the statement before the change, for every declaration whose text changed."""
    from harness.agents.context import statement_text
    from harness.blueprint.parse import parse_text

    a, b = parse_text(old, path), parse_text(new, path)
    after = {d.key: b.text[d.span.start:d.span.end] for d in b.decls}
    return {(d.label or d.key): statement_text(a, d) for d in a.decls
            if after.get(d.key) != a.text[d.span.start:d.span.end]}


def changed_statements(events: list[dict[str, Any]]) -> dict[str, str]:
    """Every statement stage 1 changed to make it elaborate (first 'before' text wins); not
    those of a repair that was rolled back (``voided``)."""
    out: dict[str, str] = {}
    void = voided(events)
    for e in events:
        if e["kind"] == "restated" and e.get("seq") not in void:
            for label, before in (e.get("before") or {}).items():
                out.setdefault(label, before)
    return out


def _commit_checked(record: Record, check: Check, text: str, what: str, rnd: int, *,
                    lean_errors_ok: bool = False) -> str | None:
    if record.head() is not None and text == record.text_at():
        return "the new text is identical to the record"
    out = check(text)
    if not out.certified:
        raise CannotCertify(f"stage 1 {what}: " + ("; ".join(out.messages[:3]) or
                                                   "the gate could not certify"))
    only_lean = bool(out.messages) and all("] " in m and ": [lean]" in m for m in out.messages)
    if not out.passed and not (lean_errors_ok and only_lean):
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
