"""The Lean workflow audits what it says it audits: its steps, not inputs an action ignores."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
# The inputs of leanprover/lean-action's action.yml at the tag the workflow pins, v1.6.0 (commit
# 50fcf42d2e460296f1a34b402e990d1b24f8b596, read from a fetched copy of the repository; docs/slt.md,
# CI). GitHub only warns about an input an action does not declare, so a misspelt or invented
# input silently does nothing. (`axiom-audit*` exist since v1.6.0; older tags lack them.)
LEAN_ACTION_INPUTS = {
    "auto-config", "build", "test", "lint", "mk_all-check", "mk_all-args", "build-args",
    "test-args", "lint-args", "use-mathlib-cache", "check-reservoir-eligibility", "leanchecker",
    "leanchecker-args", "lean4checker", "nanoda", "nanoda-allow-sorry", "axiom-audit",
    "axiom-audit-allow", "axiom-audit-root", "use-github-cache", "lake-package-directory",
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


# `python -m harness …` logs its arguments and answers as `check --json` would (two declarations
# per module, none in the root `SLT.lean`); any other `python` is the real one (the step's
# counting snippet).
FAKE_PYTHON = """#!/bin/sh
if [ "$1" = "-m" ]; then
  echo "$@" >> audited.log
  case "$*" in *" SLT.lean"*) echo '{{"nodes": []}}' ;;
    *) echo '{{"nodes": [{{"key": "a", "name": "SLT.a", "status": "proved", "axioms": []}},
                        {{"key": "b", "name": "SLT.b", "status": "proved", "axioms": null}}]}}' ;;
  esac
  case "$*" in *Cheat*) exit 1 ;; esac
  exit 0
fi
exec {python} "$@"
"""


def _run_step(tmp_path: Path, script: str, files: list[str]) -> subprocess.CompletedProcess:
    """A step's `run:` as GitHub runs it (`bash -e {{0}}`), `python` being FAKE_PYTHON."""
    for f in files:
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("-- module\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text(FAKE_PYTHON.format(python=sys.executable))
    (bin_dir / "python").chmod(0o755)
    (tmp_path / "step.sh").write_text(script)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}",
           "GITHUB_OUTPUT": str(tmp_path / "github_output")}
    return subprocess.run(["bash", "-e", "step.sh"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("files,code,audited", [
    (["SLT.lean"], 0, ["SLT.lean"]),  # nothing promoted yet: the root only
    (["SLT.lean", "SLT/A.lean", "SLT/B/Cheat.lean", "SLT/B/Ok.lean"], 1,
     ["SLT.lean", "SLT/A.lean", "SLT/B/Cheat.lean", "SLT/B/Ok.lean"]),  # one bad: all audited
    (["SLT/A.lean"], 1, []),  # no root module: an error, not an empty audit
])
def test_the_audit_script_runs_as_github_runs_it(tmp_path: Path, files, code, audited) -> None:
    """GitHub runs `run:` with `bash -e {0}`; the script's exit status must be the audit's, and
    it says (and hands on) how many declarations it checked: 0 is said, never silent."""
    script = next(s["run"] for s in _steps() if "harness check" in s.get("run", ""))
    res = _run_step(tmp_path, script, files)
    assert res.returncode == code, res.stdout + res.stderr
    log = tmp_path / "audited.log"
    got = [ln.split()[3] for ln in log.read_text().splitlines()] if log.exists() else []
    assert got == audited
    if audited:
        n = 2 * (len(audited) - 1)  # two per module, none in the root
        assert f"audited {len(audited)} module(s): checked {n} declaration(s)" in res.stdout
        assert (tmp_path / "github_output").read_text() == f"declarations={n}\n"
        assert ("SLT.a: proved (-)" in res.stderr) == (n > 0)


def test_lock_verification_says_how_many_it_checked(tmp_path: Path) -> None:
    script = next(s["run"] for s in _steps() if "harness verify" in s.get("run", ""))
    res = _run_step(tmp_path, script, [])
    assert res.returncode == 0 and "checked 0 blueprint(s) against their statement locks" in \
        res.stdout, res.stdout + res.stderr
    (tmp_path / "bin").rename(tmp_path / "bin0")
    for f in ("Blueprint/SLT/A.lean", "Blueprint/SLT/A.lock.json"):
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("{}\n")
    res = _run_step(tmp_path, script, [])
    assert res.returncode == 0 and "checked 1 blueprint(s)" in res.stdout, res.stdout
    assert (tmp_path / "audited.log").read_text().split()[2:] == [
        "verify", "Blueprint/SLT/A.lean", "--lock", "Blueprint/SLT/A.lock.json"]


def test_lean_action_axiom_audit_is_the_second_audit() -> None:
    """lean-action's `axiom-audit` (leanprover-community/axiom-audit) audits SLT as well, with our
    allowlist, after our own audit; while that audit found 0 declarations it is skipped (the
    tool fails on an empty audit) and a step says it checked 0."""
    from harness.lean.messages import ALLOWED_AXIOMS

    steps = _steps()
    names = [s.get("name", "") for s in steps]
    ours = next(i for i, s in enumerate(steps) if "harness check" in s.get("run", ""))
    second = next(i for i, s in enumerate(steps) if s.get("with", {}).get("axiom-audit"))
    assert ours < second
    w = steps[second]["with"]
    assert w["axiom-audit"] == "true" and w["axiom-audit-root"] == "SLT"
    assert set(w["axiom-audit-allow"].split(",")) == ALLOWED_AXIOMS
    assert w["build"] == "false"  # the job built SLT with --wfail already
    out_id = steps[ours]["id"]
    assert steps[second]["if"] == f"steps.{out_id}.outputs.declarations != '0'"
    skip = steps[second + 1]
    assert skip["if"] == f"steps.{out_id}.outputs.declarations == '0'"
    assert "checked 0 declarations" in skip["run"]
    assert names.index("Verify blueprints against their locks") > second
