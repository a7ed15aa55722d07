"""Argument helpers shared by the subcommands."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.blueprint import parse_file
from harness.blueprint.dag import Analysis, analyse
from harness.blueprint.imports import load_imports
from harness.workspace import find_workspace


def add_file_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, help="blueprint Lean file")


def add_json_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable output on stdout")


def load(path: Path) -> Analysis:
    """Parse and analyse a blueprint with the workspace blueprints it imports; bad input
    (in the file or in an imported one) raises InputError (exit 2)."""
    bp = parse_file(path)
    return analyse(bp, load_imports(bp, find_workspace(path)))
