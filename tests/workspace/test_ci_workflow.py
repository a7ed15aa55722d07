"""The Lean workflow audits what it says it audits: its steps, not inputs an action ignores."""

from __future__ import annotations

from pathlib import Path

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
