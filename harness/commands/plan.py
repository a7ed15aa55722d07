"""`harness plan FILE|DIR` — dynamic leaves in priority order, layers, critical path. No Lean
needed; with `--exact` (Lean and a build), the node-to-node edges are LeanArchitect's own
(`lake build :blueprintJson`) and the places where the text inference disagreed are listed.
A directory, or a root module file that only imports, gives the project-wide DAG."""

from __future__ import annotations

import argparse

from harness.commands._common import (
    add_file_arg, add_json_arg, add_lean_args, add_lint_arg, load, print_problems,
    require_nodes,
)
from harness.errors import ExitCode
from harness.report.output import LIST_LIMIT, clipped, console, emit_json, esc
from harness.report.summary import plan_dict


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="leaves in priority order, layers, critical path (no Lean)",
                       description=__doc__)
    add_file_arg(p)
    add_json_arg(p)
    add_lint_arg(p)
    p.add_argument("--exact", action="store_true",
                   help="take the dependencies from LeanArchitect (`lake build :blueprintJson`; "
                        "needs Lean) and report where the text inference disagreed")
    p.add_argument("--all", action="store_true",
                   help=f"list every ready node, layer and target (else the first {LIST_LIMIT})")
    add_lean_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    exact = None
    if args.exact:
        a, exact = load_exact(args)
    else:
        a = load(args.file, args.lint)
    require_nodes(a, args.file)
    data = plan_dict(a)
    if exact is not None:
        data["exact"] = exact
    code = ExitCode.FINDINGS if a.findings else ExitCode.OK
    if args.json:
        emit_json(data)
        return int(code)
    out = console()
    print_plan(out, a, data, show_all=args.all)
    if exact is not None:
        print_exact(out, exact)
    print_problems(a)
    return int(code)


def headline(data: dict) -> str:
    """`FILE: N nodes (M ordinary declarations not counted); P proved, R ready, W waiting`."""
    c = data["counts"]
    st = c["by_state"]
    ordinary = ""
    if c["context"]:
        ordinary = f" ({c['context']} ordinary declarations not counted" + (
            f", {c['context_unfinished']} of them unfinished" if c["context_unfinished"]
            else "") + ")"
    informal = f", {st['informal']} informal" if st.get("informal") else ""
    return (f"[bold]{esc(data['file'])}[/]: {c['nodes']} blueprint nodes{ordinary}; "
            f"{st.get('proved', 0)} proved, {st.get('ready', 0)} ready, "
            f"{st.get('open', 0) + st.get('waiting', 0)} waiting on dependencies{informal}")


def print_plan(out, a, data: dict, *, show_all: bool) -> None:
    limit = None if show_all else LIST_LIMIT
    out.print(headline(data))
    leaves = data["leaves"]
    out.print("\n[bold]Ready now[/] (dynamic leaves, critical-path priority):")
    for i, leaf in enumerate(leaves[:limit], 1):
        where = f"{leaf['file']}:{leaf['line']}" if leaf.get("file") else f"line {leaf['line']}"
        out.print(f"  {i:>3}. {esc(leaf['key'])}  [dim](priority {leaf['priority']}, "
                  f"{esc(where)})[/]")
    if limit is not None and len(leaves) > limit:
        out.print(f"  … and {len(leaves) - limit} more (`--all` lists every one)")
    if not leaves:
        out.print("  (none)")
    layers = data["layers"]
    on_cycle = {k for c in a.cycles for k in c}
    out.print(f"\n[bold]Layers[/] (topological): {len(layers)}, widest "
              f"{max(map(len, layers), default=0)}")
    width = None if show_all else 8
    for i, layer in enumerate(layers[:limit]):
        names = [esc(f"{k} (cycle)" if k in on_cycle else k) for k in layer]
        out.print(f"  {i}: " + clipped(names, width))
    if limit is not None and len(layers) > limit:
        out.print(f"  … and {len(layers) - limit} more layers (`--all`)")
    path = data["critical_path"]
    if path:
        out.print(f"\n[bold]Critical path[/] ({len(path)} node{'' if len(path) == 1 else 's'}): "
                  + clipped([esc(k) for k in path], limit, " -> "))
    out.print(f"[bold]Targets[/] ({len(data['targets'])}): "
              + (clipped([esc(k) for k in data["targets"]], limit) or "(none)"))


def load_exact(args: argparse.Namespace):
    from harness.lean.architect import exact_analysis
    from harness.lean.toolchain import find_lake
    from harness.workspace import find_workspace

    lake = find_lake(args.lake)  # no Lean: exit 2 with the one line saying what to set
    return exact_analysis(args.file, find_workspace(args.file), lake,
                          timeout_s=args.timeout)


def print_exact(out, exact: dict) -> None:
    items = exact["disagreements"]
    out.print(f"\n[bold]LeanArchitect[/] ({exact['source']}, {exact['lean_nodes']} nodes): "
              + (f"the text inference disagreed on {len(items)} node part(s)" if items
                 else "the text inference agrees on every node"))
    for d in items:
        parts = []
        if d["missing_in_text"]:
            parts.append("Lean also uses " + ", ".join(d["missing_in_text"]))
        if d["extra_in_text"]:
            parts.append("the text also inferred " + ", ".join(d["extra_in_text"]))
        out.print(f"  {esc(d['label'])} ({esc(d['part'])}): " + esc("; ".join(parts)))
    for key, what in (("only_in_lean", "only in LeanArchitect's output"),
                      ("only_in_text", "not in LeanArchitect's output"),
                      ("not_inferred", "without inferred uses (JSON only)")):
        if exact[key]:
            out.print(f"  {what}: " + esc(", ".join(exact[key])))
