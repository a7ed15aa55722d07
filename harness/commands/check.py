"""`harness check FILE [--node LABEL]` — compile with Lean; per-node proved / sorry / error / axioms.

Exit codes: 0 every checked node proved (and no error elsewhere in the file), 1 findings, 2 no Lean
or bad input, 3 could not certify (timeout, memory cap, crash, unreadable Lean output).
"""

from __future__ import annotations

import argparse

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from harness.blueprint import parse_file
from harness.blueprint.model import DeclKind
from harness.commands._common import add_lean_args
from harness.didyoumean import node_hint
from harness.errors import ExitCode, InputError, UsageError
from harness.lean.run import DEFAULT_MEM_MB
from harness.lean.toolchain import find_toolchain
from harness.lean.verdict import FileVerdict, NodeVerdict, check_file
from harness.report.output import console, emit_json, err_console
from harness.workspace import find_workspace

STYLE = {"proved": "green", "sorry": "yellow", "error": "red", "axioms": "magenta",
         "not_checked": "dim"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="compile with Lean and report each node's status",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="blueprint Lean file")
    p.add_argument("--node", action="append", metavar="LABEL",
                   help="check only this node (label or Lean name; repeatable)")
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    add_lean_args(p)
    p.add_argument("--mem-mb", type=int, default=DEFAULT_MEM_MB, metavar="MB",
                   help=f"address-space cap for Lean (default {DEFAULT_MEM_MB}; 0 = none)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    path = Path(args.file)
    bp = parse_file(path)  # InputError (exit 2) for a missing or malformed file
    labels = args.node or None
    keys: list[str] = []
    for lbl in labels or []:
        parts = [d.key for d in bp.parts(lbl)]  # a shared label: every declaration of it
        if _has_key(bp, lbl):
            keys.append(lbl)
        elif parts:
            keys.extend(parts)
        elif bp.by_name(lbl) is not None:
            keys.append(bp.by_name(lbl).key)
        else:
            raise InputError(bp.display_path, 1, 0, f"no node `{lbl}`" + node_hint(bp, lbl))
    labels = list(dict.fromkeys(keys)) or None
    workspace = find_workspace(path)
    tc = find_toolchain(workspace, args.lake)
    for w in tc.warnings:
        err_console().print(f"warning: {w}", markup=False, emoji=False, highlight=False)
    verdict = check_file(tc, workspace, bp, labels=labels, timeout_s=args.timeout,
                         mem_mb=args.mem_mb or None)
    unaudited = _unnamed_instances(bp) if not labels and not bp.nodes else []
    ok = verdict.ok and not unaudited
    code = ExitCode.OK if ok else ExitCode.FINDINGS
    if args.json:
        emit_json({**verdict.model_dump(mode="json"), "ok": ok, "counts": _counts(verdict),
                   "unaudited": unaudited})
    else:
        _print(verdict)
        for line in unaudited:
            console().print(line, markup=False, emoji=False, highlight=False)
    return int(code)


def _unnamed_instances(bp) -> list[str]:
    """A module audit (no blueprint nodes) checks every declaration by name: an anonymous
    instance has a name only Lean knows, so it would escape `#print axioms` — a finding."""
    return [f"{bp.display_path}:{d.pos.line}:{d.pos.col}: unnamed instance: the axiom audit "
            "checks declarations by name; name it (`instance instFoo : …`)"
            for d in bp.decls if d.kind == DeclKind.INSTANCE and not d.name]


def _has_key(bp, key: str) -> bool:
    try:
        bp.by_key(key)
        return True
    except KeyError:
        return False


def _counts(v: FileVerdict) -> dict[str, int]:
    out: dict[str, int] = {}
    for n in v.nodes:
        out[n.status] = out.get(n.status, 0) + 1
    return out


def _detail(n: NodeVerdict) -> str:
    if n.status == "error":
        return n.first_error or "error"
    if n.status == "sorry":
        return "depends on sorryAx via its dependencies" if n.sorry_via_deps else "uses sorry"
    if n.status == "axioms":
        return "forbidden axioms: " + ", ".join(n.forbidden_axioms)
    if n.status == "not_checked":
        return "no name, so no axiom report"
    return ", ".join(n.axioms or []) or "no axioms"


def _print(v: FileVerdict) -> None:
    out = console()
    t = Table(show_edge=False, pad_edge=False)
    show_name = any((n.name or "-") != (n.label or n.key) for n in v.nodes)
    t.add_column("node", no_wrap=True)
    if show_name:
        t.add_column("name", no_wrap=True, overflow="ellipsis")
    t.add_column("line", no_wrap=True)
    t.add_column("status", no_wrap=True)
    t.add_column("detail", no_wrap=True, overflow="ellipsis")
    for n in v.nodes:
        cells = [Text(n.label or n.key)] + ([Text(n.name or "-")] if show_name else [])
        t.add_row(*cells, str(n.line), Text(n.status, style=STYLE.get(n.status, "")),
                  Text(_detail(n)))
    out.print(t)
    # one greppable `FILE:LINE:COL: status: detail` line per problem (the table may truncate)
    for n in v.nodes:
        if n.status != "proved":
            own = [m for m in n.messages if m.region != "context" and m.severity != "information"]
            where = (n.first_error.split(": ", 1)[0] if n.first_error else
                     f"{own[0].pos.line}:{own[0].pos.col}" if own else f"{n.line}:0")
            detail = n.first_error.split(": ", 1)[1] if n.first_error else _detail(n)
            out.print(f"{v.path}:{where}: {n.status}: {n.label or n.key}: {detail}", markup=False,
                      emoji=False, highlight=False)
    for m in v.file_errors:
        out.print(m.line(), markup=False, emoji=False, highlight=False)
    c = _counts(v)
    summary = ", ".join(f"{k} {c[k]}" for k in sorted(c))
    verdict = ("[red]not all proved[/]" if not v.ok else "[green]all proved[/]" if v.nodes
               else "[green]compiles; no named declaration to check[/]")
    out.print(f"{escape(v.path)}: {summary} — {verdict} (Lean {escape(v.lean_version or '?')}, "
              f"{v.wall_s:.1f}s)", emoji=False)
