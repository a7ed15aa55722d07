"""`harness lock FILE [-o LOCK]` — freeze what every declaration of a blueprint says.

Records per declaration: label, Lean name, kind, fingerprints of the normalised statement, of the
whole definition (definitions), of the context in force and of the informal statement; plus the
header fingerprint and the forbidden constructs already present (docs/trust.md). Without a real
Lean the lock carries no elaborated-type hashes and says so (`"elaborated": false`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.markup import escape

from harness.blueprint import parse_file
from harness.errors import ExitCode
from harness.gate.lock import make_lock
from harness.report.output import console, emit_json


def default_lock_path(file: Path) -> Path:
    return file.with_name(file.stem + ".lock.json")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lock", help="write the statement lock of a blueprint",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path, help="blueprint Lean file")
    p.add_argument("-o", "--output", type=Path, metavar="LOCK",
                   help="lock file to write (default: FILE's stem + .lock.json)")
    p.add_argument("--json", action="store_true", help="machine-readable summary on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    bp = parse_file(args.file)  # InputError (exit 2) for a missing or malformed file
    lock = make_lock(bp, source=str(args.file))
    out = args.output or default_lock_path(args.file)
    lock.save(out)
    nodes = sum(1 for e in lock.entries if e.label)
    if args.json:
        emit_json({"lock": str(out), "entries": len(lock.entries), "nodes": nodes,
                   "elaborated": lock.elaborated, "forbidden_present": lock.forbidden})
    else:
        c = console()
        c.print(f"locked {len(lock.entries)} declarations ({nodes} blueprint nodes) -> "
                f"{escape(str(out))}")
        if not lock.elaborated:
            c.print("no elaborated-type hashes (no Lean used): statements are locked by their "
                    "normalised source")
        if lock.forbidden:
            c.print(f"{sum(lock.forbidden.values())} forbidden construct(s) already present are "
                    "allowed to stay (see docs/trust.md)")
    return int(ExitCode.OK)
