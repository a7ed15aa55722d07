"""`harness plan FILE` — dynamic leaves in priority order, layers, critical path. No Lean needed."""

from __future__ import annotations

import argparse

from harness.commands._common import (
    add_file_arg, add_json_arg, add_lint_arg, load, print_problems,
)
from harness.errors import ExitCode
from harness.report.output import console, emit_json
from harness.report.summary import plan_dict


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="leaves in priority order, layers, critical path (no Lean)",
                       description=__doc__)
    add_file_arg(p)
    add_json_arg(p)
    add_lint_arg(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    a = load(args.file, args.lint)
    data = plan_dict(a)
    code = ExitCode.FINDINGS if a.findings else ExitCode.OK
    if args.json:
        emit_json(data)
        return int(code)
    out = console()
    c = data["counts"]
    st = c["by_state"]
    out.print(f"[bold]{data['file']}[/]: {c['nodes']} nodes, {c['context']} context declarations; "
              f"{st.get('proved', 0)} proved, {st.get('ready', 0)} ready, "
              f"{st.get('open', 0) + st.get('waiting', 0)} waiting on dependencies")
    out.print("\n[bold]Ready now[/] (dynamic leaves, critical-path priority):")
    for i, leaf in enumerate(data["leaves"], 1):
        out.print(f"  {i:>3}. {leaf['key']}  [dim](priority {leaf['priority']}, "
                  f"line {leaf['line']})[/]")
    if not data["leaves"]:
        out.print("  (none)")
    out.print("\n[bold]Layers[/] (topological):")
    on_cycle = {k for c in a.cycles for k in c}
    for i, layer in enumerate(data["layers"]):
        out.print(f"  {i}: " + ", ".join(f"{k} (cycle)" if k in on_cycle else k for k in layer))
    if data["critical_path"]:
        out.print("\n[bold]Critical path[/]: " + " -> ".join(data["critical_path"]))
    out.print("[bold]Targets[/]: " + (", ".join(data["targets"]) or "(none)"))
    print_problems(a)
    return int(code)
