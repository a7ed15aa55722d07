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


def load(path: Path) -> Analysis:
    """Parse and analyse a blueprint with the workspace blueprints it imports (a directory or
    a root module file: the whole project, :mod:`harness.blueprint.project`); bad input (in
    the file or in an imported one) raises InputError (exit 2)."""
    from harness.blueprint.project import load as load_target

    return load_target(path, find_workspace(path))
