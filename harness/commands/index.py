"""`harness index [--rebuild] [--json]` — build or refresh the library declaration index.

Indexes the workspace's Lean files and every package under `.lake/packages/` into
`.harness/index/library.sqlite`; an unchanged package (same revision) is reused, a changed one is
re-scanned file by file. A corrupt index is rebuilt. Files that cannot be read are listed as
`FILE:LINE:COL: …` and the command exits 1; everything else is still indexed.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.errors import ExitCode
from harness.report.output import console, emit_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("index", help="build or refresh the library declaration index",
                       description=__doc__)
    p.add_argument("--workspace", type=Path, default=None, metavar="DIR",
                   help="the Lake workspace (default: the one containing the current directory)")
    p.add_argument("--rebuild", action="store_true", help="rebuild from scratch")
    p.add_argument("--workers", type=int, default=None, help="scanner processes (default: CPUs)")
    p.add_argument("--json", action="store_true", help="machine-readable report on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.library.cli_support import build_progress, workspace_of
    from harness.library.store import build_index

    ws = workspace_of(args.workspace)
    with build_progress(not args.json) as progress:
        report = build_index(ws, rebuild=args.rebuild, progress=progress, workers=args.workers)
    code = ExitCode.FINDINGS if report.problems else ExitCode.OK
    for line in report.problems:
        print(line, file=sys.stderr)
    if args.json:
        emit_json(report)
        return int(code)
    out = console()
    how = "built" if report.rebuilt else "refreshed"
    out.print(f"index {how}: {report.decls} declarations from {report.files} files "
              f"({report.scanned} scanned) in {report.seconds:.2f} s, "
              f"{report.bytes / 1e6:.1f} MB -> {report.path}")
    if report.reason and report.reason != "no index yet":
        out.print(f"  ({report.reason})")
    for p in report.packages:
        state = "unchanged" if p.reused else f"{p.scanned} files scanned"
        out.print(f"  {p.name:<20} {p.rev[:16]:<16} {p.decls:>8} decls  {state}")
    return int(code)
