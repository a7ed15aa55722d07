"""`harness lock FILE [-o LOCK] [--lake PATH] [--static-only] [--json]` — freeze what every
declaration of a blueprint says.

Records per declaration: label, Lean name, kind, fingerprints of the normalised statement, of the
whole definition (definitions), of the context in force and of the informal statement; plus the
header fingerprint and the forbidden constructs already present (docs/trust.md). With a Lean
toolchain (`--lake`, HARNESS_LAKE, PATH, ~/.elan/bin) the file is compiled once and each
declaration's elaborated type (`#check` with `pp.all`) is hashed into the lock too
(`"elaborated": true`, per entry `type_hash`); if Lean fails on the file nothing is written
(exit 3). Without Lean, or with `--static-only`, the lock says `"elaborated": false`. A Lean that
does not match `lean-toolchain`, or missing Mathlib / Architect oleans, is exit 2 (preflight).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from rich.markup import escape

from harness.blueprint import parse_file
from harness.commands._common import add_lean_args
from harness.errors import ExitCode, UsageError
from harness.fsutil import user_output
from harness.gate.lock import default_lock_path, make_lock
from harness.report.output import console, emit_json, err_console
from harness.workspace import find_workspace


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lock", help="write the statement lock of a blueprint",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path, help="blueprint Lean file")
    p.add_argument("-o", "--output", type=Path, metavar="LOCK",
                   help="lock file to write (default: FILE's stem + .lock.json)")
    p.add_argument("--static-only", "--no-lean", dest="static_only", action="store_true",
                   help="do not run Lean: no elaborated-type hashes")
    add_lean_args(p)
    p.add_argument("--json", action="store_true", help="machine-readable summary on stdout")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from harness.gate.elaborated import elaborated_hashes
    from harness.lean.toolchain import find_toolchain, lean_available

    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    if args.output is not None:
        user_output(args.output)  # before Lean: a typo'd -o is said now, not after the compile
    bp = parse_file(args.file)  # InputError (exit 2) for a missing or malformed file
    lock = make_lock(bp, source=str(args.file))  # InputError for a file the gate cannot read
    note = None
    if args.static_only:
        note = "--static-only: no elaborated-type hashes; statements are locked by their source"
    elif args.lake or os.environ.get("HARNESS_LAKE") or lean_available(None):
        from harness.preflight.require import require_ready

        workspace = find_workspace(args.file)
        # Lean as pinned in lean-toolchain, the dependencies' oleans: else exit 2, nothing written
        _, tc = require_ready("lock", workspace, None, lake=args.lake)
        if tc is None:
            tc = find_toolchain(workspace, args.lake)
        for w in tc.warnings:
            err_console().print(f"warning: {escape(w)}")
        keys = [e.key for e in lock.entries if e.name]
        # CannotCertify (exit 3, nothing written) when Lean fails on the file
        hashes = elaborated_hashes(bp, keys, tc, workspace=workspace, timeout_s=args.timeout)
        if hashes:
            lock = make_lock(bp, elaborated=hashes, source=str(args.file))
    else:
        note = ("no Lean toolchain: the lock has no elaborated-type hashes (\"elaborated\": false); "
                "statements are locked by their normalised source")
    out = args.output or default_lock_path(args.file)
    lock.save(out)
    # nodes as `plan` counts them: one per label (parts sharing a label are one node)
    nodes = len({d.label for d in bp.decls if d.label} | {n.label for n in bp.informal})
    typed = sum(1 for e in lock.entries if e.type_hash)
    if note:
        err_console().print(escape(note))
    if args.json:
        emit_json({"lock": str(out), "entries": len(lock.entries), "nodes": nodes,
                   "elaborated": lock.elaborated, "type_hashes": typed,
                   "forbidden_present": lock.forbidden})
    else:
        c = console()
        c.print(f"locked {len(lock.entries)} declarations ({nodes} blueprint nodes) -> "
                f"{escape(str(out))}" + (f"; {typed} elaborated-type hashes" if typed else ""))
        if lock.forbidden:
            c.print(present_line(lock.forbidden))
    return int(ExitCode.OK)


def present_line(present: dict[str, int]) -> str:
    """The file's own commands that a proof may not add (its imports, options, …): they are
    recorded as part of the file and stay; only new ones are rejected (docs/trust.md)."""
    by_kind: dict[str, int] = {}
    for group, n in present.items():  # "kind|where": where is `header` or a declaration
        kind = group.split("|", 1)[0]
        by_kind[kind] = by_kind.get(kind, 0) + n
    what = ", ".join(f"{n} `{kind}`" for kind, n in sorted(by_kind.items()))
    return (f"already in the file and recorded as it is: {what} (a proof may not add more; "
            "docs/trust.md)")
