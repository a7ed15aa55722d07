"""The README's main job on a machine without Lean, in a real terminal: the plan, the graph,
the one line saying what to install, exit 3 — and no live panel of unknown counts ("proved ?")
left on the screen for a run that cannot start."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.cli.projects import ROOT
from tests.support.terminal import interrupt_in_terminal


def test_run_without_lean_in_a_terminal(tmp_path: Path) -> None:
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "Blueprint").mkdir()
    shutil.copy(ROOT / "Blueprint" / "Demo.lean", tmp_path / "Blueprint" / "Demo.lean")
    env = {k: v for k, v in os.environ.items() if k not in ("HARNESS_LAKE", "HARNESS_DOT")}
    env.update(HOME=str(tmp_path), PYTHONPATH=str(ROOT), TERM="xterm-256color",
               PATH=os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                    if p and not (Path(p) / "lake").exists()))
    out = interrupt_in_terminal(["run", "Blueprint/Demo.lean"], cwd=tmp_path, env=env,
                                ready=lambda _s: False)
    assert out.status == 3, out.output
    assert "ready now" in out.output and "no Lean toolchain" in out.output
    assert "proved ?" not in out.output and "Traceback" not in out.output
