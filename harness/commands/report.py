"""`harness report RUN_DIR|FILE [-o report.html]` — one self-contained HTML page about a run.

RUN_DIR is `.harness/runs/<id>/` (or its events.jsonl / result.json, or the blueprint file that
was run). Worker timeline, gate batches and bisections, cost and tokens, blockers, the realised
critical path and the graph by final status. `harness run` writes it to RUN_DIR/report.html at
the end of every session, also on interrupt.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.commands._common import add_json_arg
from harness.errors import ExitCode, UsageError
from harness.fsutil import atomic_write, user_output
from harness.report.output import emit_json, err_console


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write a run's report (timeline, gate, cost, graph) as HTML",
                       description=__doc__)
    p.add_argument("run", type=Path, metavar="RUN_DIR|FILE",
                   help="run directory, its events.jsonl or result.json, or the blueprint file")
    p.add_argument("-o", "--output", type=Path, default=None,
                   help="output .html file (default: RUN_DIR/report.html)")
    add_json_arg(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.report.runreport import build_report, find_run

    d = find_run(args.run)
    out = user_output(args.output) if args.output is not None else d / "report.html"
    if out.suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"{out}: the report is HTML (use a .html output)")
    with err_console().status("drawing the run report…"):
        text, s = build_report(d)
    try:
        atomic_write(out, text, durable=False)
    except OSError as err:
        raise UsageError(f"{out}: cannot write: {err.strerror or err}") from None
    info = {"run": str(d), "output": str(out), "attempts": len(s["attempts"]),
            "batches": len(s["batches"]), "blocked": len(s["blockers"]),
            "critical_path": [c["node"] for c in s["critical_path"]],
            "bytes": len(text.encode())}
    if args.json:
        emit_json(info)
    else:
        print(f"wrote {out} ({info['attempts']} attempts, {info['batches']} gate batches, "
              f"{info['blocked']} blocked)")
    return int(ExitCode.OK)
