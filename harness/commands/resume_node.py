"""`harness resume-node FILE LABEL` — hand a node that an agent escalated ("needs a person")
back to the provers, after a person has looked at it (edited the statement, added a lemma, …).

It clears the node's blocker in `.harness/memory/` and, when the file has a run, records in the
run's event log that the node is open again with fresh attempts; the next `harness run FILE`
schedules it. Refused while a run holds the file's run lock (exit 2).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands._common import add_json_arg
from harness.didyoumean import hint, path_hint
from harness.errors import ExitCode, InputError, UsageError
from harness.report.output import console, emit_json, safe


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("resume-node", help="give an escalated node back to the provers",
                       description=__doc__)
    p.add_argument("file", type=Path, help="the blueprint file")
    p.add_argument("label", help="the node's label (or Lean name)")
    add_json_arg(p)
    p.set_defaults(func=run)


def _blocked(d: Path) -> dict[str, str]:
    from harness.orchestrator.events import read_events
    from harness.orchestrator.state import rebuild

    try:
        return rebuild(read_events(d / "events.jsonl").events).blocked
    except Exception:  # noqa: BLE001 - a run whose log cannot be read holds nothing we can clear
        return {}


def run(args: argparse.Namespace) -> int:
    from harness.orchestrator.events import EventLog
    from harness.orchestrator.nodememory import memory_store
    from harness.orchestrator.state import lock_holder_alive, read_lock, run_dir
    from harness.workspace import find_workspace, harness_dir

    file: Path = args.file
    if not file.is_file():
        raise InputError(str(file), 1, 0, "no such blueprint file" + path_hint(file))
    ws = find_workspace(file)
    store = memory_store(ws)
    known = store.blockers()
    if args.label not in known:  # said at the node, when the file has it
        from harness.blueprint.source import parse_file

        at = next((d.pos for d in parse_file(file).decls
                   if args.label in (d.key, d.label, d.name)), None)
        why = hint(args.label, known) if known else " (no node needs a person)"
        raise InputError(str(file), at.line if at else 1, at.col if at else 0,
                         f"{args.label} was not escalated{why}")
    # the file's own run, and any project run (`run DIR`) that holds the node blocked
    runs = [run_dir(ws, file)] + sorted(p for p in (harness_dir(ws) / "runs").glob("*")
                                        if p.is_dir() and p != run_dir(ws, file)
                                        and args.label in _blocked(p))
    for d in runs:
        if lock_holder_alive(read_lock(d / "lock.json")):
            raise UsageError(f"resume-node: a run ({d.name}) is in progress; stop it first")
    store.clear_blocker(args.label)
    logged = False
    for d in runs:
        if (d / "events.jsonl").is_file():
            with EventLog(d / "events.jsonl") as log:
                log.append("unblocked", node=args.label, reason="resume-node: a person took over")
            logged = True
    out = {"label": args.label, "cleared": True, "run_updated": logged}
    if args.json:
        emit_json(out)
    else:
        console().print(f"{safe(args.label)}: back to the provers"
                        + ("; the next `harness run` schedules it" if logged else ""),
                        markup=False)
    return int(ExitCode.OK)
