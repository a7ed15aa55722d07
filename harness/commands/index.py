"""`harness index [--rebuild] [--json]` — build or refresh the library declaration index.

Indexes the workspace's Lean files and every package under `.lake/packages/` into
`.harness/index/library.sqlite`; an unchanged package (same revision) is reused, a changed one is
re-scanned file by file. A corrupt index is rebuilt. Files that cannot be read are listed as
`FILE:LINE:COL: …` and the command exits 1; everything else is still indexed.

Exact pass (docs/library.md): when a Lean toolchain is found and the workspace or a package has
built modules, Lean's own environment is read too (generated names, elaborated types); a
failure keeps the scanned index and says why in one line. `--exact` requires it (exit 2 when
there is no Lean or nothing is built, exit 1 when it fails); `--no-exact` skips it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from harness.commands._library import library_note
from harness.errors import ExitCode
from harness.library.model import ExactReport
from harness.report.output import console, emit_json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("index", help="build or refresh the library declaration index",
                       description=__doc__)
    p.add_argument("--workspace", type=Path, default=None, metavar="DIR",
                   help="the Lake workspace (default: the one containing the current directory)")
    p.add_argument("--rebuild", action="store_true", help="rebuild from scratch")
    p.add_argument("--workers", type=int, default=None, help="scanner processes (default: CPUs)")
    p.add_argument("--json", action="store_true", help="machine-readable report on stdout")
    ex = p.add_mutually_exclusive_group()
    ex.add_argument("--exact", dest="exact", action="store_const", const="on", default="auto",
                    help="require the exact pass with Lean (default: when Lean and a build exist)")
    ex.add_argument("--no-exact", dest="exact", action="store_const", const="off",
                    help="scan the sources only")
    p.add_argument("--exact-timeout", type=float, default=None, metavar="S",
                   help="seconds Lean may take for the exact pass (default 3600)")
    p.add_argument("--lake", default=None, metavar="PATH", help="the lake executable")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.library.cli_support import build_progress, workspace_of
    from harness.library.store import build_index

    from harness.library.exact import exact_step

    ws = workspace_of(args.workspace)
    note = library_note(ws)
    if note:
        print(f"note: {note}", file=sys.stderr)
    step, skipped = exact_step(ws, args.exact, lake=args.lake, timeout_s=args.exact_timeout)
    with build_progress(not args.json) as progress:
        if step is not None:
            step.progress = progress
        report = build_index(ws, rebuild=args.rebuild, progress=progress, workers=args.workers,
                             step=step)
    if args.exact != "off":
        report.exact = step.report if step is not None else ExactReport(skipped=skipped)
    code = ExitCode.FINDINGS if report.problems else ExitCode.OK
    for line in report.problems:
        print(line, file=sys.stderr)
    ex = report.exact
    if ex is not None and ex.error:
        print(f"exact pass failed: {ex.error}; the scanned index is kept", file=sys.stderr)
        if args.exact == "on":
            code = ExitCode.FINDINGS
    if args.json:
        emit_json(report)
        return int(code)
    out = console()
    how = "built" if report.rebuilt else "refreshed"
    out.print(f"index {how}: {report.decls} declarations from {report.files} files "
              f"({report.scanned} scanned) in {report.seconds:.2f} s, "
              f"{report.bytes / 1e6:.1f} MB -> {report.path}", markup=False)  # paths: text
    if report.reason and report.reason != "no index yet":
        out.print(f"  ({report.reason})", markup=False)
    for p in report.packages:
        state = "unchanged" if p.reused else f"{p.scanned} files scanned"
        out.print(f"  {p.name:<20} {p.rev[:16]:<16} {p.decls:>8} decls  {state}", markup=False)
    if ex is not None and not ex.error:
        if ex.ran and ex.constants:
            out.print(f"  exact pass (Lean, {', '.join(ex.modules)}): {ex.constants} constants, "
                      f"{ex.confirmed} confirmed, {ex.added} added, {ex.typed} typed "
                      f"in {ex.seconds:.1f} s", markup=False)
        elif ex.skipped or ex.ran:
            out.print(f"  exact pass: {ex.skipped or 'unchanged'}", markup=False)
    return int(code)
