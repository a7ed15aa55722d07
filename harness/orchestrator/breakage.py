"""Stage 2's repair step for a record that fails the gate outside any batch (see
Stage2._breakage): stage 1's restate with the diagnostics, then the fidelity audit of the
statements it changed. The caller (stage 2) re-locks the repaired record."""

from __future__ import annotations

from typing import Any

from harness.orchestrator.record import Record
from harness.orchestrator.stage1 import (BLOCKING, changed_statements, compile_until_clean,
                                         source_text)


def make_record_repair(session: Any, record: Record, agents: Any, check: Any,
                       diagnose: Any) -> Any:
    """Stage 2's repair step for a record that fails outside any batch (an upstream statement
    Lean now rejects): stage 1's restate with the diagnostics, then the fidelity audit of the
    changed statements; the caller re-locks. Anything else (an import, the environment, no
    endpoint) is reported, not repaired."""

    def repair(messages: list[str]) -> tuple[bool, str]:
        if agents is None:
            return False, "no LLM endpoint to repair it"
        if not any("[lean]" in m for m in messages):
            return False, "not a Lean error in this file (an import or the environment changed)"
        assert session.log is not None
        log = FileEvents(session.log, record.rel)
        start = len(log.events)  # the statements this repair changes: its own events (an
        # earlier repair that was rolled back may have restated the same ones)
        src = source_text(None, session.dir / "source.txt")
        out = compile_until_clean(record=record, log=log, agents=agents, source=src,
                                  max_rounds=session.settings.max_rounds, check=check,
                                  diagnose=diagnose, notify=session.notify)
        if out is not None:
            return False, out.reason
        changed = changed_statements(log.events[start:])
        if not changed:
            return False, "Lean accepts the record's text: the failure is elsewhere"
        res = agents.audit(record.head_text(), src, changed)
        blocking = [f for f in (res.findings or []) if f.get("severity") in BLOCKING]
        log.append("audit", round=0, ok=res.ok, findings=res.findings or [],
                   blocking=len(blocking), reason=res.reason, tokens=res.tokens, cost=res.cost,
                   changed=sorted(changed))
        if not res.ok or blocking:
            return False, ("the audit of the restated statements failed: "
                           + (res.reason if not res.ok else "; ".join(
                               f"{f.get('label')}: {f.get('explanation')}" for f in blocking)))
        return True, "restated " + ", ".join(sorted(changed)) + " (audited)"

    return repair


class FileEvents:
    """The run's event log as one file's repair sees it. A project run's files share one log:
    the restate rounds (``max_rounds``) and changed statements of one file's repairs are its
    own, so what this repair appends carries the file and it reads only its file's events
    (untagged ones, e.g. from a log written before the tag, count for every file: the
    conservative side)."""

    def __init__(self, log: Any, rel: str) -> None:
        self._log, self.rel = log, rel

    @property
    def events(self) -> list[dict[str, Any]]:
        return [e for e in self._log.events if e.get("file") in (None, self.rel)]

    def append(self, kind: str, **data: Any) -> dict[str, Any]:
        data.setdefault("file", self.rel)
        return self._log.append(kind, **data)
