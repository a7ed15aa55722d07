"""The Lean workflow audits what it says it audits: its steps, not inputs an action ignores."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
# The inputs of leanprover/lean-action's action.yml (read with the search tool; docs/slt.md, CI).
# GitHub only warns about an input an action does not declare, so a misspelt or invented input
# (`axiom-audit` was one) silently does nothing.
LEAN_ACTION_INPUTS = {
    "auto-config", "build", "test", "lint", "build-args", "use-mathlib-cache",
    "check-reservoir-eligibility", "lean4checker", "use-github-cache", "lake-package-directory",
    "reinstall-transient-toolchain",
}


def _steps() -> list[dict]:
    wf = yaml.safe_load((REPO / ".github/workflows/lean.yml").read_text())
    return [s for job in wf["jobs"].values() for s in job["steps"]]


def test_lean_action_gets_only_inputs_it_declares() -> None:
    used = [s for s in _steps() if str(s.get("uses", "")).startswith("leanprover/lean-action@")]
    assert used
    for step in used:
        unknown = set(step.get("with", {})) - LEAN_ACTION_INPUTS
        assert not unknown, f"{step['name']}: lean-action has no input {sorted(unknown)}"


def test_every_slt_module_is_axiom_audited_after_the_build() -> None:
    steps = _steps()
    names = [s.get("name", "") for s in steps]
    audit = next(i for i, s in enumerate(steps) if "harness check" in s.get("run", ""))
    script = steps[audit]["run"]
    assert "find SLT -name '*.lean'" in script and 'status=1' in script
    assert 'exit "$status"' in script
    build = names.index("Build SLT with --wfail")
    install = names.index("Install the harness")
    assert build < install < audit
    assert "SLT --wfail" in steps[build]["with"]["build-args"]


FAKE_PYTHON = """#!/bin/sh
echo "$@" >> audited.log
case "$*" in *Cheat*) exit 1 ;; esac
exit 0
"""


@pytest.mark.parametrize("files,code,audited", [
    (["SLT.lean"], 0, ["SLT.lean"]),  # nothing promoted yet: the root only
    (["SLT.lean", "SLT/A.lean", "SLT/B/Cheat.lean", "SLT/B/Ok.lean"], 1,
     ["SLT.lean", "SLT/A.lean", "SLT/B/Cheat.lean", "SLT/B/Ok.lean"]),  # one bad: all audited
    (["SLT/A.lean"], 1, []),  # no root module: an error, not an empty audit
])
def test_the_audit_script_runs_as_github_runs_it(tmp_path: Path, files, code, audited) -> None:
    """GitHub runs `run:` with `bash -e {0}`; the script's exit status must be the audit's."""
    script = next(s["run"] for s in _steps() if "harness check" in s.get("run", ""))
    for f in files:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("-- module\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text(FAKE_PYTHON)
    (bin_dir / "python").chmod(0o755)
    (tmp_path / "step.sh").write_text(script)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}
    res = subprocess.run(["bash", "-e", "step.sh"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == code, res.stdout + res.stderr
    log = tmp_path / "audited.log"
    got = [ln.split()[-1] for ln in log.read_text().splitlines()] if log.exists() else []
    assert got == audited
