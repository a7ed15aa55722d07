"""`harness status FILE|DIR` — counts by state and a table of the blueprint nodes (plus the run,
if any). Long tables show the first nodes; `--all` shows every node and ordinary declaration."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape
from rich.table import Table

from harness.commands._common import (
    add_file_arg, add_json_arg, add_lint_arg, load, print_problems, require_nodes,
)
from harness.commands.plan import headline
from harness.errors import ExitCode
from harness.report.output import console, emit_json, esc, safe
from harness.report.nodeview import node_view
from harness.report.summary import counts, finding_dict, node_dict, shown_path

TABLE_LIMIT = 50
STATE_STYLE = {"proved": "green", "ready": "cyan", "waiting": "yellow", "open": "white",
               "informal": "magenta"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="counts by status and a table of nodes", description=__doc__)
    add_file_arg(p)
    add_json_arg(p)
    add_lint_arg(p)
    p.add_argument("--all", action="store_true",
                   help=f"every node (else the first {TABLE_LIMIT}) and the ordinary "
                        "declarations too")
    p.set_defaults(func=run)


def live_state(file) -> dict | None:
    try:
        from harness.orchestrator.state import live_status
    except ImportError:
        return None
    from harness.workspace import find_workspace

    return live_status(find_workspace(file), file)


def _project_target(target: Path) -> bool:
    try:
        from harness.orchestrator.project_run import is_project_target
    except ImportError:
        return False
    return is_project_target(target)


def project_state(target: Path, a, rows: list[dict]) -> dict | None:
    """A project run's state (`run DIR` or `run ROOT_MODULE`), per file
    (harness/orchestrator/project_status.py)."""
    from harness.orchestrator.project_status import per_file, project_live
    from harness.workspace import find_workspace

    ws = find_workspace(target)
    live = project_live(ws, target)
    return per_file(live, a, rows, ws) if live and "events" in live else live


def run(args: argparse.Namespace) -> int:
    a = load(args.file, args.lint)
    require_nodes(a, args.file)
    view = node_view(a)
    keys = list(a.own) if args.all else view.own
    rows = [node_dict(a, k, view.priority) for k in keys]
    project = _project_target(args.file)
    nodes = set(view.own)
    live = project_state(args.file, a, [r for r in rows if r["key"] in nodes]) if project \
        else live_state(args.file) if args.file.is_file() else None
    person = _needs_person(args.file)
    if live and "events" in live:  # spend so far, and the cost and time to finish (forecast.py)
        from harness.orchestrator.forecast import forecast

        left = sum(1 for r in rows if r["state"] not in ("proved", "informal")
                   and r["kind"] not in ("def", "definition", "abbrev", "structure"))
        live["forecast"] = forecast(live.pop("events"), left - len(person),
                                    int(live.pop("workers_configured", 1) or 1))
    code = ExitCode.FINDINGS if a.findings else ExitCode.OK
    c = counts(a, view)
    if args.json:
        emit_json({"file": a.blueprint.display_path, "counts": c, "nodes": rows,
                   "findings": [finding_dict(f) for f in a.findings],
                   "warnings": [finding_dict(f) for f in a.warnings], "run": live,
                   "needs_person": {k: b.model_dump() for k, b in person.items()}})
        return int(code)
    out = console()
    out.print(headline({"file": a.blueprint.display_path, "counts": c}))
    t = Table(show_edge=False, pad_edge=False)
    for col in ("node", "kind", "body", "state", "prio", "where"):
        t.add_column(col)
    shown = rows if args.all else rows[:TABLE_LIMIT]
    for r in shown:
        style = STATE_STYLE.get(r["state"], "")
        t.add_row(esc(r["key"]), r["kind"], r["body"], f"[{style}]{r['state']}[/]",
                  str(r["priority"]),
                  esc(f"{shown_path(r['file'])}:{r['line']}") if r["file"] else str(r["line"]))
    out.print(t)
    if len(shown) < len(rows):
        out.print(f"… and {len(rows) - len(shown)} more nodes (`--all` lists every one, "
                  "with the ordinary declarations)")
    # the states are read from the text (no Lean): say so where a reader might take them as proofs
    out.print("[dim]state is read from the text; what Lean accepts: `harness check FILE`[/]")
    if live:
        out.print(describe_run(live))
        _print_placement(out, live)
        if project:  # per file: running / gate / queued / proved / blocked, spend (a DIR run)
            _print_project(out, live)
        if live.get("forecast"):
            from harness.orchestrator.forecast import render

            out.print(safe(render(live["forecast"])), markup=False)
    for k, b in person.items():
        out.print(f"[bold red]needs a person[/] {esc(k)} ({b.kind}): {esc(b.explanation)}"
                  f" — then `harness resume-node {esc(args.file)} {esc(k)}`")
    print_problems(a)
    return int(code)


def describe_run(live: dict) -> str:
    """The run state in words (not a dump of its fields)."""
    head = f"[bold]Run[/] {escape(str(live.get('run_id', '?')))}: "
    if live.get("error"):
        return head + escape(str(live["error"]))
    if live.get("active"):
        state = f"running (pid {live.get('pid')}), stage {live.get('stage')}"
    elif live.get("finished") and live.get("stop_reason") == "interrupted":
        state = "interrupted (`harness run` resumes it)"
    elif live.get("finished"):
        state = "finished" + (f": {escape(str(live['stop_reason']))}"
                              if live.get("stop_reason") else "")
    else:
        state = (f"stopped in stage {live.get('stage')} before finishing (`harness run` "
                 "resumes it)")
    parts = [state, f"{live.get('attempts', 0)} attempts", f"{live.get('merged', 0)} nodes merged"]
    if live.get("pending_gate"):
        parts.append(f"{live['pending_gate']} waiting for the gate")
    if live.get("blocked"):
        parts.append(f"{len(live['blocked'])} blocked")
    if live.get("workers"):
        parts.append(f"{len(live['workers'])} attempts in flight")
    if live.get("tokens"):
        parts.append(f"{live['tokens']} tokens, ${live.get('cost', 0):.2f}")
    if live.get("lost"):
        parts.append(f"{live['lost']} attempts lost")
    if live.get("stale_lock"):
        parts.append("a stale run lock (its process is gone)")
    if live.get("torn_log"):
        parts.append("the event log ends in a torn line (ignored)")
    return head + "; ".join(parts)


def _needs_person(file: Path) -> dict:
    """Nodes an agent escalated (harness.memory), for the table's readers."""
    if not file.is_file():
        return {}
    from harness.orchestrator.nodememory import memory_store
    from harness.workspace import find_workspace

    return memory_store(find_workspace(file)).blockers()


def _print_project(out, live: dict) -> None:
    """A project run's lines, one per file (their labels, paths and reasons are user text)."""
    from harness.orchestrator.project_status import render as render_files

    for line in render_files(live):
        out.print(safe(line), highlight=False, markup=False)


def _print_placement(out, live: dict) -> None:
    """Where attempts ran and run (a Ray executor logs node, host and worker pid)."""
    hosts = live.get("hosts") or {}
    if hosts:
        out.print("attempts by host: " + ", ".join(
            f"{esc(h)} {v['attempts']}" + (f" ({v['lost']} lost)" if v.get("lost") else "")
            for h, v in sorted(hosts.items())))
    for w in live.get("workers") or []:
        if w.get("host"):
            out.print(f"  running {esc(w['node'])} #{esc(w.get('attempt'))} on {esc(w['host'])} "
                      f"(node {esc(str(w.get('node_id', ''))[:12])}, pid {esc(w.get('pid'))})")
