"""`harness verify FILE --lock LOCK [--base REV] [--allow LABEL…] [--allow-split LABEL…]
[--static-only] [--json]`

The trust gate (docs/trust.md). Checks the file against its statement lock, scans it for forbidden
constructs, with ``--base`` checks that only the ``--allow``ed nodes' bodies (and new helper
lemmas directly before them) changed since git revision REV (``--allow-split LABEL``: that node
may also be split into new placeholder nodes), and with a Lean toolchain compiles the whole file,
audits the axioms of every declaration that claims to be complete and, if the lock has
elaborated-type hashes, compares every locked declaration's elaborated type.

Exit codes: 0 pass; 1 rejected (each failure as FILE:LINE:COL with its check and node);
2 usage or input error (including a corrupt or foreign lock file); 3 cannot certify (no Lean and
no ``--static-only``, or Lean timed out or crashed).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from rich.markup import escape

from harness.blueprint import parse_file
from harness.blueprint.parse import parse_text
from harness.commands._common import add_lean_args
from harness.errors import InputError, UsageError
from harness.gate.forbidden import EXTERNAL_TACTICS
from harness.gate.lock import check_lock_for, load_lock
from harness.gate.sanitize import printable
from harness.gate.verify import GateReport, blank_prelude, verify
from harness.lean.toolchain import find_toolchain, lean_available
from harness.report.output import console, emit_json, err_console
from harness.workspace import find_workspace


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="the trust gate: lock, forbidden constructs, scope, Lean",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path, help="blueprint Lean file")
    p.add_argument("--lock", type=Path, required=True, metavar="LOCK", help="statement lock file")
    p.add_argument("--base", metavar="REV", help="git revision the change is relative to")
    p.add_argument("--allow", action="extend", nargs="+", default=[], metavar="LABEL",
                   help="nodes whose bodies may change (needs --base)")
    p.add_argument("--allow-split", action="extend", nargs="+", default=[], metavar="LABEL",
                   help="nodes that may be split: new placeholder nodes directly before them and "
                   "a `sorry_using` body naming them (needs --base)")
    p.add_argument("--static-only", action="store_true",
                   help="skip the Lean compile; pass (exit 0) on the static checks alone")
    p.add_argument("--deny-tactic", action="append", default=[], metavar="NAME",
                   help="also reject this tactic in proofs (default list: docs/trust.md §3, "
                   "rule `external`)")
    p.add_argument("--allow-tactic", action="append", default=[], metavar="NAME",
                   help="remove this tactic from the external-program deny list")
    p.add_argument("--json", action="store_true", help="machine-readable report on stdout")
    add_lean_args(p)
    p.set_defaults(func=run)


def read_base(file: Path, rev: str) -> str:
    """The file's content at git revision ``rev`` (the command runs inside the repository)."""
    try:
        import git
    except ImportError as err:  # gitpython present but no usable `git` executable
        raise UsageError(f"--base {rev}: git is not available ({str(err).splitlines()[0]})") from None
    try:
        repo = git.Repo(file.resolve().parent, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise UsageError(f"--base {rev}: {file} is not inside a git repository") from None
    try:
        rel = file.resolve().relative_to(Path(repo.working_tree_dir).resolve()).as_posix()
        return repo.git.show(f"{rev}:{rel}", strip_newline_in_stdout=False)
    except git.GitCommandError as err:
        detail = (err.stderr or "").strip().splitlines()
        raise UsageError(f"--base {rev}: cannot read {file} at that revision"
                         f"{': ' + detail[-1].removeprefix('stderr: ') if detail else ''}") from None
    finally:
        repo.close()


def _deny_list(deny: list[str], allow: list[str]) -> dict[str, str]:
    out = {k: v for k, v in EXTERNAL_TACTICS.items() if k not in allow}
    out.update({k: "is on this run's deny list (--deny-tactic)" for k in deny})
    return out


def _parse(file: Path):
    """parse_file, except that a leading `prelude` is the gate's finding (exit 1), not an
    unreadable file: the text is returned with the keyword in place for verify to reject."""
    try:
        return parse_file(file)
    except InputError as err:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise err from None
        readable, at = blank_prelude(text)
        if at is None:
            raise
        bp = parse_text(readable, file)
        bp.text = text  # verify() reads the real text (and rejects the `prelude`)
        return bp


def run(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    for flag, given in (("--allow", args.allow), ("--allow-split", args.allow_split)):
        if given and not args.base:
            raise UsageError(f"{flag} needs --base REV")
    bp = _parse(args.file)  # InputError (exit 2) for a missing or malformed file
    lock = load_lock(args.lock)  # InputError (exit 2) for a corrupt or foreign lock
    check_lock_for(lock, bp, args.lock)  # a lock written for another blueprint: exit 2
    base_text = read_base(args.file, args.base) if args.base else None
    lean = None
    workspace = find_workspace(args.file)
    if not args.static_only and (args.lake or os.environ.get("HARNESS_LAKE")
                                 or lean_available(None)):
        lean = find_toolchain(workspace, args.lake)
        for w in lean.warnings:
            err_console().print(f"warning: {escape(w)}")
    report = verify(bp.text, args.file, lock, base_text=base_text, allow=set(args.allow),
                    allow_splits=set(args.allow_split), lean=lean, static_only=args.static_only,
                    workspace=workspace, timeout_s=args.timeout,
                    deny_tactics=_deny_list(args.deny_tactic, args.allow_tactic))
    if args.json:
        emit_json(report)
    else:
        _print(report)
    return report.exit_code


def _print(r: GateReport) -> None:
    out, err = console(), err_console()
    for f in r.failures:
        err.print(escape(f.render()))
    for ch in r.informal_changes:
        err.print(escape(printable(f"{ch.path}:{ch.line}:{ch.col}: [informal] {ch.key}: "
                                   f"{ch.message}")))
    for note in r.notes:
        err.print(escape(printable(f"note: {note}")))
    verdict = {0: "[green]PASS[/]", 1: "[red]REJECTED[/]", 3: "[yellow]CANNOT CERTIFY[/]"}
    out.print(f"{verdict.get(r.exit_code, r.exit_code)} {escape(printable(r.path))}: "
              f"{len(r.failures)} failure(s); checks: {', '.join(r.checks)}; "
              f"Lean: {r.lean_status}" + (f" ({escape(printable(r.lean_detail))})" if r.lean_detail else ""))
