"""Against a REAL Lean toolchain (GitHub Actions): `pytest -m lean`. Skipped when none is found.

Uses the tiny core-Lean project tests/fixtures/lean/project/ (copied to a temp dir, its
lean-toolchain aligned with the repository's) and Blueprint/Demo.lean when present.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.blueprint.source import parse_file
from harness.lean.messages import ALLOWED_AXIOMS
from harness.lean.nodecheck import check_node
from harness.lean.toolchain import find_toolchain
from harness.lean.verdict import check_file
from tests.lean.conftest import FIXTURES
from tests.support.fakelean import real_lake

REPO = Path(__file__).resolve().parents[2]
LAKE = real_lake()
pytestmark = [pytest.mark.lean,
              pytest.mark.skipif(LAKE is None, reason="no real Lean toolchain (lake) found")]
TIMEOUT_S = 900.0  # a cold toolchain + lakefile elaboration can be slow on CI runners


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dst = tmp_path_factory.mktemp("real") / "project"
    shutil.copytree(FIXTURES / "project", dst)
    root_pin = REPO / "lean-toolchain"
    if root_pin.is_file():  # never make elan fetch a second toolchain in CI
        shutil.copy(root_pin, dst / "lean-toolchain")
    return dst


def test_toolchain_version(project: Path) -> None:
    tc = find_toolchain(project, str(LAKE), timeout_s=TIMEOUT_S)
    assert tc.lean_version and tc.lean_version[0].isdigit()
    assert tc.warnings == (), tc.warnings


def test_check_file_statuses(project: Path) -> None:
    tc = find_toolchain(project, str(LAKE), timeout_s=TIMEOUT_S)
    src = project / "Tiny" / "Basic.lean"
    before = src.read_bytes()
    fv = check_file(tc, project, parse_file(src), timeout_s=TIMEOUT_S, mem_mb=None)
    by = {n.name: n for n in fv.nodes}
    assert {k: v.status for k, v in by.items()} == {
        "Tiny.two_add_two": "proved", "Tiny.add_comm'": "proved", "Tiny.open_goal": "sorry",
        "Tiny.uses_open": "sorry"}
    assert by["Tiny.open_goal"].own_sorry and by["Tiny.open_goal"].axioms is not None
    assert "sorryAx" in by["Tiny.open_goal"].axioms
    assert by["Tiny.uses_open"].sorry_via_deps
    assert set(by["Tiny.add_comm'"].axioms or []) <= ALLOWED_AXIOMS
    assert src.read_bytes() == before and fv.file_errors == []


def test_check_node_candidates(project: Path) -> None:
    tc = find_toolchain(project, str(LAKE), timeout_s=TIMEOUT_S)
    bp = parse_file(project / "Tiny" / "Basic.lean")
    ok = check_node(tc, project, bp, "Tiny.open_goal", "by\n  simp", timeout_s=TIMEOUT_S, mem_mb=None)
    assert ok.status == "proved", ok.messages
    bad = check_node(tc, project, bp, "Tiny.open_goal", "by\n  simp\n  exact bogus_fact",
                     timeout_s=TIMEOUT_S, mem_mb=None)
    assert bad.status == "error"
    errs = [m for m in bad.messages if m.is_error]
    assert errs and all(m.region == "body" for m in errs)
    assert any(m.candidate_line in (2, 3) for m in errs)
    helper = check_node(tc, project, bp, "Tiny.open_goal", "by\n  exact my_helper n",
                        helpers="theorem my_helper (n : Nat) : n * 0 = 0 := Nat.mul_zero n",
                        timeout_s=TIMEOUT_S, mem_mb=None)
    assert helper.status == "proved", helper.messages


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO), HARNESS_LAKE=str(LAKE))
    return subprocess.run([sys.executable, "-m", "harness", "check", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_S + 60)


def test_cli_on_fixture_project(project: Path) -> None:
    res = _cli("Tiny/Basic.lean", "--json", "--timeout", str(TIMEOUT_S), cwd=project)
    assert res.returncode == 1, res.stderr  # open_goal is a sorry: a finding
    out = json.loads(res.stdout)
    assert out["counts"] == {"proved": 2, "sorry": 2}


@pytest.mark.skipif(not (REPO / "Blueprint" / "Demo.lean").is_file(), reason="no Blueprint/Demo.lean")
def test_cli_on_demo_blueprint() -> None:
    res = _cli("Blueprint/Demo.lean", "--json", "--timeout", str(TIMEOUT_S), cwd=REPO)
    assert res.returncode in (0, 1), res.stderr
    out = json.loads(res.stdout)
    bp = parse_file(REPO / "Blueprint" / "Demo.lean")
    if bp.nodes:
        assert [n["key"] for n in out["nodes"]] == [d.key for d in bp.nodes]
    assert all(n["status"] in ("proved", "sorry", "error", "axioms") for n in out["nodes"])
    assert out["file_messages"] == [] or all(m["severity"] != "error" for m in out["file_messages"])


@pytest.mark.skipif(not os.environ.get("HARNESS_REPL"), reason="HARNESS_REPL (a built repl) not set")
def test_real_repl(project: Path) -> None:
    from harness.lean.repl import ReplClient

    argv = [str(LAKE), "env", os.environ["HARNESS_REPL"]]
    with ReplClient(argv, cwd=project, header="", timeout_s=300) as repl:
        r = repl.command("theorem t (x : Nat) : x = x := by sorry")
        assert r.sorries and any(m.is_sorry for m in r.messages)
        done = repl.tactic("rfl", r.sorries[0].proof_state)
        assert done.proof_status == "Completed"
