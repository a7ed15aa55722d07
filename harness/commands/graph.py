"""`harness graph FILE -o OUT.{html,svg,json}` — the DAG, coloured by status."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness.commands._common import add_file_arg, add_json_arg, load
from harness.errors import ExitCode, UsageError
from harness.fsutil import atomic_write
from harness.report.graph import graph_data, render_html, render_svg
from harness.report.output import emit_json

FORMATS = {".html": "html", ".htm": "html", ".svg": "svg", ".json": "json"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("graph", help="write the DAG as self-contained HTML, SVG or JSON",
                       description=__doc__)
    add_file_arg(p)
    p.add_argument("-o", "--output", type=Path, required=True,
                   help="output file; its extension (.html, .svg, .json) picks the format")
    add_json_arg(p)
    p.set_defaults(func=run)


def write_graph(file: Path, output: Path) -> dict:
    fmt = FORMATS.get(output.suffix.lower())
    if fmt is None:
        raise UsageError(f"{output}: unknown output format `{output.suffix}` "
                         "(use .html, .svg or .json)")
    a = load(file)
    data = graph_data(a)
    text = {"html": render_html, "svg": render_svg,
            "json": lambda d: json.dumps(d, indent=2, ensure_ascii=False)}[fmt](data)
    try:
        atomic_write(output, text, durable=False)
    except OSError as err:
        raise UsageError(f"{output}: cannot write: {err.strerror or err}") from None
    return {"file": str(file), "output": str(output), "format": fmt,
            "nodes": len(data["nodes"]), "edges": len(data["edges"]),
            "findings": [f.line() for f in a.findings],
            "warnings": [f.line() for f in a.warnings]}


def run(args: argparse.Namespace) -> int:
    info = write_graph(args.file, args.output)
    if args.json:
        emit_json(info)
    else:
        print(f"wrote {info['output']} ({info['format']}, {info['nodes']} nodes, "
              f"{info['edges']} edges)")
        for line in info["findings"]:  # exit 1 says there are findings: say which
            print(line, file=sys.stderr)
        for line in info["warnings"]:
            print(f"{line} (warning)", file=sys.stderr)
    return int(ExitCode.FINDINGS if info["findings"] else ExitCode.OK)
