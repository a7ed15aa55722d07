"""A project run's repair round with the real statement lock: each file gated by
services.LockedGate (harness.gate.verify over the fake Lean) with its own lock file, as
harness/assemble.py builds it; scripted repair steps that commit restatements as stage 1's rounds
do and log their events under their file (breakage.FileEvents). Shared by the relock, interrupt
and failed-round tests (and the child process of the signal test)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable

from harness.orchestrator.breakage import FileEvents
from harness.orchestrator.project_session import ProjectSession
from harness.orchestrator.record import Record
from harness.orchestrator.run import RunSettings, Services, Session
from tests.orchestrator.support import FAKES, fake_certifier, fake_toolchain
from tests.orchestrator.test_project_rollback import proving

BROKEN_A = "theorem broken_a : fake_elab_mismatch := trivial\n"
BROKEN_B = "theorem broken_b : fake_elab_mismatch := trivial\n"
FIXED_A = "theorem broken_a : True := trivial\n"
FIXED_B = "theorem broken_b : True := trivial\n"

Repair = Callable[[list[str]], tuple[bool, str]]


def lock_file(session: Session) -> Path:
    from harness.orchestrator.services import lock_path

    return lock_path(session)


def locked_gate(session: Session, record: Record, ws: Path) -> Any:
    """The run's gate: the file's lock (written at the first start from its text as it is —
    a statement Lean now rejects has no elaborated type — loaded when it exists: a resumed
    run), the fake Lean's toolchain."""
    from harness.gate.lock import load_lock
    from harness.orchestrator.services import make_gate, make_run_lock

    path = lock_file(session)
    if path.exists():
        lock = load_lock(path)
    else:
        lock = make_run_lock(record.head_text(), record, None)
        lock.save(path)
    return make_gate(record, lock, fake_toolchain(ws), 60, path)


def restating(fixes: dict[str, dict[str, str]], audited: dict[str, list[str]],
              calls: list[str], *, ok: dict[str, bool] | None = None,
              after: Callable[[Record], None] | None = None) -> Callable[[Session, Record], Repair]:
    """A stand-in for breakage.make_record_repair: replaces ``fixes[rel]`` (old -> new) in one
    commit, logs restate/restated/audit events naming only ``audited[rel]`` as changed (a
    repair may change more than it reports: the lock must see it), the audit passes unless
    ``ok[rel]`` is False. Nothing left to replace: Lean accepts the text (refused)."""

    def make(session: Session, record: Record) -> Repair:
        def repair(messages: list[str]) -> tuple[bool, str]:
            calls.append(record.rel)
            text = record.head_text()
            todo = {o: n for o, n in fixes.get(record.rel, {}).items() if o in text}
            if not todo:
                return False, "Lean accepts the record's text: the failure is elsewhere"
            names = audited.get(record.rel, [])
            log = FileEvents(session.log, record.rel)
            log.append("restate", round=1, ok=True, reason="", tokens=10, cost=0.5,
                       nodes=names)
            new = text
            for old, fixed in todo.items():
                new = new.replace(old, fixed)
            record.commit_text(new, "restate\n")
            log.append("restated", round=1, commit=record.head(), nodes=names,
                       before={n: n for n in names}, errors_left=0)
            if after is not None:
                after(record)
            passed = (ok or {}).get(record.rel, True)
            log.append("audit", round=0, ok=True, findings=[], blocking=0 if passed else 1,
                       reason="", tokens=10, cost=0.25, changed=names)
            if not passed:
                return False, "the audit of the restated statements failed: unfaithful"
            return True, f"restated {', '.join(names)} (audited)"

        return repair

    return make


def run_locked(ws: Path, repair: Callable[[Session, Record], Repair], *,
               gate: Callable[[Session, Record, Path], Any] = locked_gate,
               runner: Any = proving, **settings: Any) -> tuple[ProjectSession, Any, list]:
    """`run Gen` (stage 2) with the real lock gate per file (the fake Lean: :func:`fake_path`)."""
    def factory(session: Session, record: Record) -> Services:
        g = gate(session, record, ws)
        return Services(runner=runner, make_gate=lambda: g, certifier=fake_certifier(record),
                        repair_record=repair(session, record))

    s = ProjectSession(ws / "Gen", RunSettings(stage="2", **{"batch_window": 0.05, **settings}),
                       workspace=ws)
    res = s.run(factory)
    return s, res, events(s.dir)


def fake_path() -> str:
    """PATH with the fake `lake`/`lean` first."""
    return f"{FAKES}{os.pathsep}{os.environ['PATH']}"


def events(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (run_dir / "events.jsonl").read_text().splitlines()]


def lock_files(ws: Path) -> dict[str, bytes]:
    """Every file's statement lock of the project run (each file's own session directory)."""
    return {p.parent.name: p.read_bytes()
            for p in sorted((ws / ".harness" / "runs").glob("*/statements.lock.json"))}
