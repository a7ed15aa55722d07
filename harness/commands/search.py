"""`harness search QUERY… [--k N] [--kind K] [--json] [--batch FILE]` — ranked library search.

A query may be words ("sub-Gaussian tail bound"), a name or a fragment (`measure_ge_le`,
`Real.exp_le`), or a mix. Each hit: name, kind, module, file, line, signature, doc, score.
`--batch FILE` reads one query per line and writes one JSON result per line. The index is built
on first need (see `harness index`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness.commands._library import library_note
from harness.errors import ExitCode, UsageError
from harness.report.output import console, emit_json

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
    p.set_defaults(func=run)


def _hit(h) -> dict:
    return {k: getattr(h, k) for k in FIELDS}


def run(args: argparse.Namespace) -> int:
    from harness.library.cli_support import build_progress, workspace_of
    from harness.library.query import open_index

    if args.k < 1:
        raise UsageError("search: --k must be at least 1")
    if not args.query and args.batch is None:
        raise UsageError("search: give a QUERY or --batch FILE")
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
    with build_progress(not args.json and args.batch is None) as progress:
        ix = open_index(ws, progress=progress)
    try:
        if args.batch is not None:
            for q in queries:
                hits = ix.search(q, args.k, args.kind)
                sys.stdout.write(json.dumps({"query": q, "hits": [_hit(h) for h in hits]},
                                            ensure_ascii=False) + "\n")
            sys.stdout.flush()
            return int(ExitCode.OK)
        text = " ".join(args.query)
        hits = ix.search(text, args.k, args.kind)
    finally:
        ix.close()
    if args.json:
        emit_json({"query": text, "hits": [_hit(h) for h in hits], "note": note})
        return int(ExitCode.OK if hits else ExitCode.FINDINGS)
    out = console()
    if not hits:
        out.print(f"no declarations match {text!r}")
        return int(ExitCode.FINDINGS)
    for i, h in enumerate(hits, 1):
        out.print(f"[bold]{i:>2}. {h.name}[/]  [dim]{h.kind} · {h.module} · {h.file}:{h.line}"
                  f" · {h.score:.3f}[/]")
        if h.signature:
            out.print(f"    {h.signature[:300]}", markup=False)
        if h.doc:
            out.print(f"    [italic]{h.doc[:200]}[/]")
    return int(ExitCode.OK)
