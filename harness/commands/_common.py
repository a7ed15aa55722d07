"""Argument helpers shared by the subcommands."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.blueprint.dag import Analysis
from harness.workspace import find_workspace


def add_file_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, help="blueprint Lean file; a directory or a root module "
                   "file (one that only imports) gives the project-wide DAG")


def add_json_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")


def add_lake_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lake", metavar="PATH",
                   help="lake executable (else HARNESS_LAKE, PATH, ~/.elan/bin)")


def add_lean_args(p: argparse.ArgumentParser) -> None:
    """`--lake` and `--timeout` for commands that compile with Lean."""
    from harness.lean.run import DEFAULT_TIMEOUT_S

    add_lake_arg(p)
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="S",
                   help=f"wall-clock limit for the Lean run (default {DEFAULT_TIMEOUT_S:g})")


def add_lint_arg(p: argparse.ArgumentParser) -> None:
    from harness.blueprint.lints import LINTS

    p.add_argument("--lint", action="append", choices=LINTS, default=[],
                   help="opt-in lints whose problems are findings (exit 1); `crefs`: "
                        "LeanMarathon's rule that a proof's prose \\cref's exactly its "
                        "lemma/theorem dependencies, and that every link resolves")


def load(path: Path, lints: list[str] | None = None) -> Analysis:
    """Parse and analyse a blueprint with the workspace blueprints it imports (a directory or
    a root module file: the whole project, :mod:`harness.blueprint.project`); bad input (in
    the file or in an imported one) raises InputError (exit 2). ``lints`` add findings."""
    from harness.blueprint.lints import run_lints
    from harness.blueprint.project import load as load_target
    from harness.report.summary import dangling_hints, kind_warnings, relocate

    a = load_target(path, find_workspace(path))
    a.findings.extend(run_lints(a, lints))
    kind_warnings(a)
    dangling_hints(a)
    relocate(a)  # directory mode: each problem at its own file, not at the directory
    if lints and "crefs" in lints:  # the lint made dangling links findings: say them once
        a.warnings = [w for w in a.warnings if w.code != "dangling-link"]
    return a


def print_problems(a: Analysis) -> None:
    """Findings, then warnings, one located line each on stderr."""
    import sys

    from harness.report.output import safe

    for f in a.findings:
        print(safe(f.line()), file=sys.stderr)
    for w in a.warnings:
        print(safe(f"{w.line()} (warning)"), file=sys.stderr)


def require_nodes(a: Analysis, path: Path) -> None:
    """Nothing to plan: no blueprint node at all (as `graph` says it: exit 2, one line). A file
    whose text has findings (a dangling name, …) still gets them reported (exit 1)."""
    from harness.errors import InputError

    if not a.findings and not any(a.decl(k).is_node for k in a.own):
        what = ("a Lake build file, not a blueprint" if path.name.startswith("lakefile")
                else "no blueprint nodes here (no `@[blueprint …]` declaration, no informal "
                     "node)")
        raise InputError(path, 1, 0, what)

