"""`harness search QUERY… [--k N] [--kind K] [--json] [--batch FILE] [--at FILE:LINE | --for LABEL]`
— ranked library search.

A query may be words ("sub-Gaussian tail bound"), a name or a fragment (`measure_ge_le`,
`Real.exp_le`), or a mix. Each hit: name, kind, module, file, line, signature, doc, score.
`--batch FILE` reads one query per line and writes one JSON result per line. The index is built
on first need (see `harness index`).

`--at FILE:LINE` searches from a place in a Lean file: only what Lean lets it use (the modules
the file imports, transitively, and the file's declarations above the line), with the namespace
and opens in force there. `--for LABEL` searches from a blueprint node of the workspace: its
context, and its statement, informal proof and `\texttt{}` names join the query (QUERY may then
be empty).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness.commands._library import library_note
from harness.errors import ExitCode, UsageError
from harness.report.output import console, emit_json, esc

FIELDS = ("name", "kind", "module", "file", "line", "signature", "doc", "score", "origin", "exact")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("search", help="ranked search of the library declaration index",
                       description=__doc__)
    p.add_argument("query", nargs="*", help="words, names or name fragments")
    p.add_argument("--k", type=int, default=10, help="number of hits (default 10)")
    p.add_argument("--kind", default=None, help="only this kind (theorem, def, structure, …)")
    p.add_argument("--batch", type=Path, default=None, metavar="FILE",
                   help="one query per line in, one JSON line per query out")
    p.add_argument("--workspace", type=Path, default=None, metavar="DIR",
                   help="the Lake workspace (default: the one containing the current directory)")
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--at", default=None, metavar="FILE:LINE",
                       help="search from this place: only what it imports and what is above it")
    where.add_argument("--for", dest="for_label", default=None, metavar="LABEL",
                       help="search for this blueprint node (its context; its statement and "
                            "informal proof join the query)")
    p.set_defaults(func=run)


def _hit(h) -> dict:
    return {k: getattr(h, k) for k in FIELDS}


def _where(ix, ws: Path, args: argparse.Namespace):
    """(QueryContext or None, words the context adds) for --at / --for."""
    from harness.library import where

    if args.at is not None:
        w = where.at(ix.rows, ws, args.at)
    elif args.for_label is not None:
        w = where.for_label(ix.rows, ws, args.for_label)
    else:
        return None, ""
    return w.ctx, w.query


def run(args: argparse.Namespace) -> int:
    from harness.library.cli_support import build_progress, workspace_of
    from harness.library.query import open_index

    if args.k < 1:
        raise UsageError("search: --k must be at least 1")
    if not args.query and args.batch is None and args.for_label is None:
        raise UsageError("search: give a QUERY, --for LABEL or --batch FILE")
    queries: list[str] = []
    if args.batch is not None:
        try:
            raw = args.batch.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            why = getattr(err, "strerror", None) or str(err)
            raise UsageError(f"{args.batch}:1:0: cannot read: {why}") from None
        queries = [q.strip() for q in raw.splitlines() if q.strip()]
    ws = workspace_of(args.workspace)
    note = library_note(ws)
    if note:
        print(f"note: {note}", file=sys.stderr)
    from harness.library.cli_support import index_stale

    if index_stale(ws):  # search reads the index as built; a refresh is `index`'s work
        print("note: files changed since the library index was built: the answers are from "
              "the index as it was (`python -m harness index` refreshes it)", file=sys.stderr)
    with build_progress(not args.json and args.batch is None) as progress:
        ix = open_index(ws, progress=progress)
    try:
        ctx, extra = _where(ix, ws, args)
        if args.batch is not None:
            for q in queries:
                hits = ix.search(" ".join(x for x in (q, extra) if x), args.k, args.kind, ctx=ctx)
                sys.stdout.write(json.dumps({"query": q, "hits": [_hit(h) for h in hits]},
                                            ensure_ascii=False) + "\n")
            sys.stdout.flush()
            return int(ExitCode.OK)
        text = " ".join(args.query)
        hits = ix.search(" ".join(x for x in (text, extra) if x), args.k, args.kind, ctx=ctx)
    finally:
        ix.close()
    if args.json:
        emit_json({"query": text, "hits": [_hit(h) for h in hits], "note": note})
        return int(ExitCode.OK if hits else ExitCode.FINDINGS)
    out = console()
    if not hits:
        out.print(f"no declarations match {text!r}", markup=False)
        return int(ExitCode.FINDINGS)
    for i, h in enumerate(hits, 1):
        # names and docs are the library's text: `[a, b]` in a docstring is an interval, not
        # rich markup (it vanished; a stray `[/bold]` crashed the command)
        out.print(f"[bold]{i:>2}. {esc(h.name)}[/]  [dim]{esc(h.kind)} · "
                  f"{esc(h.module)} · {esc(h.file)}:{h.line} · {h.score:.3f}[/]")
        if h.signature:
            out.print(f"    {h.signature[:300]}", markup=False)
        if h.doc:
            out.print(f"    [italic]{esc(h.doc[:200])}[/]")
    return int(ExitCode.OK)
