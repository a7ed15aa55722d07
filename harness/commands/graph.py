"""`harness graph PATH… -o OUT.{html,svg,json}` — the DAG, coloured by status.

PATH is a blueprint file, several files, or a directory (a workspace root or e.g. `Blueprint/`):
one graph across all their blueprint files, grouped by module. By default the blueprint graph
as LeanArchitect defines it: blueprint nodes, edges projected through ordinary declarations
(`--declarations` draws those too). Layout by Graphviz `dot`, else a pure-Python layered layout
(see harness/report/layout.py); `-o x.json` writes the data without a layout unless `--layout`
is given.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.progress import (BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn,
                           TimeElapsedColumn)

from harness.blueprint.dag import Analysis
from harness.commands._common import add_json_arg, load
from harness.errors import ExitCode, InputError, UsageError
from harness.fsutil import atomic_write, user_output
from harness.report.graph import graph_data, render_html, render_svg
from harness.report.layout import ENGINES
from harness.report.output import emit_json, err_console, safe
from harness.workspace import find_workspace

FORMATS = {".html": "html", ".htm": "html", ".svg": "svg", ".json": "json"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("graph", help="write the DAG as self-contained HTML, SVG or JSON",
                       description=__doc__)
    p.add_argument("file", type=Path, nargs="+", metavar="PATH",
                   help="blueprint Lean file(s), or a directory of them")
    p.add_argument("-o", "--output", type=Path, required=True,
                   help="output file; its extension (.html, .svg, .json) picks the format")
    p.add_argument("--layout", choices=list(ENGINES), default=None,
                   help="layout engine (auto, the default for .html/.svg: Graphviz dot up to "
                   "2 500 nodes, else the built-in layered layout; igraph runs in a child "
                   "process). .json has no layout unless this is given")
    p.add_argument("--declarations", action="store_true",
                   help="draw every declaration, not only the blueprint nodes")
    add_json_arg(p)
    p.set_defaults(func=run)


def load_all(paths: list[Path]) -> list[Analysis]:
    """One analysis per PATH: a file with its imports, or a directory / root module file as the
    project-wide DAG (:mod:`harness.blueprint.project`). Several analyses are drawn as one
    graph (:func:`harness.report.graph.graph_data` merges them)."""
    return _with_nodes([load(p) for p in paths], paths)


def _with_nodes(out: list[Analysis], paths: list[Path]) -> list[Analysis]:
    if not any(a.decl(k).is_node or a.is_informal(k) for a in out for k in a.own):
        raise InputError(paths[0], 1, 0, "no blueprint files (`@[blueprint …]`) here")
    return out


def progress_bar() -> Progress:
    """The spinner and bar on stderr while a graph is made (only on a terminal; it vanishes)."""
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                    MofNCompleteColumn(), TimeElapsedColumn(), console=err_console(),
                    transient=True, disable=not err_console().is_terminal)


def write_graph(file: Path | list[Path], output: Path, *, engine: str | None = None,
                declarations: bool = False, progress: Progress | None = None,
                analyses: list[Analysis] | None = None) -> dict:
    """``engine`` None: "auto" for .html/.svg, no layout for .json. ``progress``: a rich
    progress bar to advance (analysis, layout, page). ``analyses``: the paths' analyses, when
    the caller has them already (a 1 000-node project takes seconds to read)."""
    fmt = FORMATS.get(output.suffix.lower())
    if fmt is None:
        raise UsageError(f"{output}: unknown output format `{output.suffix}` "
                         "(use .html, .svg or .json)")
    if engine is None:
        engine = None if fmt == "json" else "auto"
    paths = [file] if isinstance(file, Path) else list(file)
    task = progress.add_task("analysing", total=None) if progress else None
    analyses = load_all(paths) if analyses is None else _with_nodes(analyses, paths)

    def laid(done: int, total: int) -> None:
        if progress is not None and task is not None:
            progress.update(task, description="laying out", completed=done, total=total)

    data = graph_data(analyses, workspace=find_workspace(paths[0]), engine=engine,
                      declarations=declarations, progress=laid)
    if progress is not None and task is not None:
        progress.update(task, description=f"writing {fmt}")
    text = {"html": render_html, "svg": render_svg,
            "json": lambda d: json.dumps(d, indent=2, ensure_ascii=False)}[fmt](data)
    try:
        atomic_write(output, text, durable=False)
    except OSError as err:
        raise UsageError(f"{output}: cannot write: {err.strerror or err}") from None
    return {"file": str(paths[0]) if len(paths) == 1 else [str(p) for p in paths],
            "files": len(data["files"]), "output": str(output), "format": fmt,
            "nodes": len(data["nodes"]), "edges": len(data["edges"]), "hidden": data["hidden"],
            "layout": data["layout"]["engine"] if data["layout"] else None,
            "layout_s": data["layout"]["seconds"] if data["layout"] else None,
            "layout_note": data["layout"]["note"] if data["layout"] else None,
            "bytes": len(text.encode()),
            "findings": [f.line() for a in analyses for f in a.findings],
            "warnings": [f.line() for a in analyses for f in a.warnings]}


def run(args: argparse.Namespace) -> int:
    user_output(args.output)  # before the analysis (seconds on a real project)
    with progress_bar() as bar:
        info = write_graph(args.file, args.output, engine=args.layout,
                           declarations=args.declarations, progress=bar)
    if args.json:
        emit_json(info)
    else:
        files = f"{info['files']} files, " if info["files"] > 1 else ""
        hidden = (f", {info['hidden']} ordinary declarations folded into the edges "
                  "(--declarations shows them)") if info["hidden"] else ""
        lay = (f"layout {info['layout']} {info['layout_s']} s" if info["layout"]
               else "no layout (--layout adds one)")
        print(f"wrote {info['output']} ({info['format']}, {info['bytes'] / 1e6:.1f} MB, "
              f"{files}{info['nodes']} nodes, {info['edges']} edges{hidden}; {lay})")
        if info["layout_note"]:
            print(f"note: {info['layout_note']}", file=sys.stderr)
        for line in info["findings"]:  # exit 1 says there are findings: say which
            print(safe(line), file=sys.stderr)  # labels are user text: no terminal escapes
        for line in info["warnings"]:
            print(safe(f"{line} (warning)"), file=sys.stderr)
    return int(ExitCode.FINDINGS if info["findings"] else ExitCode.OK)
