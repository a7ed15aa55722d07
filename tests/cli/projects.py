"""A generated LeanArchitect project at the size users have (~1 000 blueprint nodes) with
ordinary declarations beside the nodes, as real projects have many more of them than nodes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from harness.blueprint.genproject import generate_project

# per module: proved and `sorry` ordinary lemmas, a definition, and one resting on a node
_HEAD = """theorem aux_ok{k} : True := trivial
theorem aux_open{k} : True := by sorry
def helper{k} (n : Nat) : Nat := n + {k}
"""
_TAIL = """theorem tail_open : True := by
  have := node{last}.mp
  sorry
def bridge (n : Nat) : Nat := node0 n + 1
"""


def ordinary_project(root: Path, n_files: int = 167, nodes_per_file: int = 6,
                     ordinary_per_file: int = 3) -> dict:
    """``generate_project`` (``n_files * nodes_per_file`` nodes), then ordinary declarations
    in every module: ``3 * ordinary_per_file + 2`` of them per file."""
    info = generate_project(root, n_files, nodes_per_file)
    ordinary = 0
    for path in sorted((root / "Gen").rglob("*.lean")):
        text = path.read_text(encoding="utf-8")
        head = "".join(_HEAD.format(k=k) for k in range(ordinary_per_file))
        text = re.sub(r"(namespace Gen\.F\d+\n\n(?:open [^\n]*\n\n)?)", lambda m: m[1] + head + "\n",
                      text, count=1)
        text = re.sub(r"(\nend Gen\.F\d+\n)", lambda m: "\n" + _TAIL.format(last=nodes_per_file - 1) + m[1], text, count=1)
        path.write_text(text, encoding="utf-8")
        ordinary += 3 * ordinary_per_file + 2
    return {**info, "ordinary": ordinary}


ROOT = Path(__file__).resolve().parents[2]


def harness(*args: str, cwd: Path = ROOT, timeout: float = 300,
            env: dict | None = None) -> subprocess.CompletedProcess:
    """`python -m harness …` as a user runs it (this checkout first on the path)."""
    full = {**os.environ, **(env or {})}
    full["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT)] + [p for p in full.get("PYTHONPATH", "").split(os.pathsep) if p])
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, env=full)
