"""`harness status FILE` — counts by status and a table of nodes (plus a live run, if any)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.table import Table

from harness.commands._common import (
    add_file_arg, add_json_arg, add_lint_arg, load, print_problems,
)
from harness.errors import ExitCode
from harness.report.output import console, emit_json, safe
from harness.report.summary import counts, finding_dict, node_dict

STATE_STYLE = {"proved": "green", "ready": "cyan", "waiting": "yellow", "open": "white",
               "informal": "magenta"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="counts by status and a table of nodes", description=__doc__)
    add_file_arg(p)
    add_json_arg(p)
    add_lint_arg(p)
    p.add_argument("--all", action="store_true", help="include unannotated context declarations")
    p.set_defaults(func=run)


def live_state(file) -> dict | None:
    try:
        from harness.orchestrator.state import live_status
    except ImportError:
        return None
    from harness.workspace import find_workspace

    return live_status(find_workspace(file), file)


def run(args: argparse.Namespace) -> int:
    a = load(args.file, args.lint)
    keys = [k for k in a.own if args.all or a.decl(k).is_node]
    rows = [node_dict(a, k) for k in keys]
    live = live_state(args.file) if args.file.is_file() else None
    person = _needs_person(args.file)
    if live and "events" in live:  # spend so far, and the cost and time to finish (forecast.py)
        from harness.orchestrator.forecast import forecast

        left = sum(1 for r in rows if r["state"] not in ("proved", "informal")
                   and r["kind"] not in ("def", "definition", "abbrev", "structure"))
        live["forecast"] = forecast(live.pop("events"), left - len(person),
                                    int(live.pop("workers_configured", 1) or 1))
    code = ExitCode.FINDINGS if a.findings else ExitCode.OK
    if args.json:
        emit_json({"file": a.blueprint.display_path, "counts": counts(a), "nodes": rows,
                   "findings": [finding_dict(f) for f in a.findings],
                   "warnings": [finding_dict(f) for f in a.warnings], "run": live,
                   "needs_person": {k: b.model_dump() for k, b in person.items()}})
        return int(code)
    out = console()
    c = counts(a)
    out.print(f"[bold]{a.blueprint.display_path}[/]: " + ", ".join(
        f"{n} {s}" for s, n in sorted(c["by_state"].items())) + f" ({c['nodes']} nodes)")
    t = Table(show_edge=False, pad_edge=False)
    for col in ("node", "kind", "body", "state", "prio", "line"):
        t.add_column(col)
    for r in rows:
        style = STATE_STYLE.get(r["state"], "")
        t.add_row(safe(r["key"]), r["kind"], r["body"], f"[{style}]{r['state']}[/]",
                  str(r["priority"]),
                  f"{Path(r['file']).name}:{r['line']}" if r["file"] else str(r["line"]))
    out.print(t)
    # the states are read from the text (no Lean): say so where a reader might take them as proofs
    out.print("[dim]state is read from the text; what Lean accepts: `harness check FILE`[/]")
    if live:
        out.print(f"[bold]Run[/] {live.get('run_id', '?')}: " + ", ".join(
            f"{k}={v}" for k, v in live.items() if k != "run_id" and not isinstance(v, (dict, list))))
        _print_placement(out, live)
        if live.get("forecast"):
            from harness.orchestrator.forecast import render

            out.print(safe(render(live["forecast"])))
    for k, b in person.items():
        out.print(f"[bold red]needs a person[/] {safe(k)} ({b.kind}): {safe(b.explanation)}"
                  f" — then `harness resume-node {safe(str(args.file))} {safe(k)}`")
    print_problems(a)
    return int(code)


def _needs_person(file: Path) -> dict:
    """Nodes an agent escalated (harness.memory), for the table's readers."""
    if not file.is_file():
        return {}
    from harness.orchestrator.nodememory import memory_store
    from harness.workspace import find_workspace

    return memory_store(find_workspace(file)).blockers()


def _print_placement(out, live: dict) -> None:
    """Where attempts ran and run (a Ray executor logs node, host and worker pid)."""
    hosts = live.get("hosts") or {}
    if hosts:
        out.print("attempts by host: " + ", ".join(
            f"{h} {v['attempts']}" + (f" ({v['lost']} lost)" if v.get("lost") else "")
            for h, v in sorted(hosts.items())))
    for w in live.get("workers") or []:
        if w.get("host"):
            out.print(f"  running {w['node']} #{w.get('attempt')} on {w['host']} "
                      f"(node {str(w.get('node_id', ''))[:12]}, pid {w.get('pid')})")
