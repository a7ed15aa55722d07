"""The CI end-to-end check (tests/ci/check_demo_run.py) on a real `harness run` of the Demo with
no endpoint (tactic portfolio) and the fake Lean: it passes on a good run and names each failure."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness.orchestrator.state import run_dir
from tests.orchestrator.support import fake_env, workspace

PY = sys.executable
SCRIPT = Path(__file__).with_name("check_demo_run.py")


def check(ws: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([PY, str(SCRIPT), "--workspace", str(ws), *args], cwd=ws,
                          env=env or fake_env(), capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    f = workspace(tmp_path_factory.mktemp("demo"))
    ws = f.parent.parent
    out = subprocess.run([PY, "-m", "harness", "run", str(f), "--workers", "2", "--json"],
                         cwd=ws, env=fake_env(), capture_output=True, text=True, timeout=300)
    assert out.returncode in (0, 1), out.stderr
    assert json.loads(out.stdout)["attempts"] > 0 and json.loads(out.stdout)["tokens"] == 0
    return ws


@pytest.fixture
def run(finished: Path, tmp_path: Path) -> Path:
    """A private copy of the finished run (workspace, git repository, .harness) to break."""
    ws = tmp_path / "ws"
    shutil.copytree(finished, ws, symlinks=True)
    return ws


def result_path(ws: Path) -> Path:
    return run_dir(ws, ws / "Blueprint" / "Demo.lean") / "result.json"


def edit_result(ws: Path, fn) -> None:
    p = result_path(ws)
    res = json.loads(p.read_text())
    fn(res)
    p.write_text(json.dumps(res))


def test_a_good_run_passes(run: Path) -> None:
    out = check(run)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 portfolio nodes proved, committed and verified" in out.stdout


def test_an_open_portfolio_node_fails(run: Path) -> None:
    edit_result(run, lambda r: r["nodes"]["lem:pow-ten"].update(status="open", commit=None,
                                                                 reason="needs a proof"))
    out = check(run)
    assert out.returncode == 1
    assert "lem:pow-ten: open (needs a proof), expected proved" in out.stdout


def test_a_commit_not_on_the_branch_fails(run: Path) -> None:
    edit_result(run, lambda r: r["nodes"]["lem:add-shuffle"].update(commit="0" * 40))
    out = check(run)
    assert out.returncode == 1 and "is not on the checked-out branch" in out.stdout


def test_a_commit_that_merged_other_nodes_fails(run: Path) -> None:
    first = subprocess.run(["git", "rev-list", "--max-parents=0", "HEAD"], cwd=run,
                           capture_output=True, text=True, timeout=60).stdout.split()[0]
    edit_result(run, lambda r: r["nodes"]["lem:sum-to-zero"].update(commit=first))
    out = check(run)
    assert out.returncode == 1 and "does not merge it" in out.stdout


def test_a_tampered_lock_fails_verify(run: Path) -> None:
    lock = result_path(run).with_name("statements.lock.json")
    data = json.loads(lock.read_text())
    entry = next(e for e in data["entries"] if e.get("label") == "lem:add-shuffle")
    entry["statement"] = "0" * 64
    lock.write_text(json.dumps(data))
    out = check(run)
    assert out.returncode == 1 and "harness verify against the run's lock exited" in out.stdout


def test_an_edited_working_file_fails(run: Path) -> None:
    f = run / "Blueprint" / "Demo.lean"
    f.write_text(f.read_text() + "\n-- edited after the run\n")
    out = check(run)
    assert out.returncode == 1 and "working file differs from HEAD" in out.stdout


def test_an_unknown_node_fails(run: Path) -> None:
    out = check(run, "--node", "lem:no-such-node")
    assert out.returncode == 1 and "lem:no-such-node: not in result.json" in out.stdout


def test_no_run_is_exit_2(tmp_path: Path) -> None:
    f = workspace(tmp_path)
    out = check(f.parent.parent)
    assert out.returncode == 2 and "no result.json" in out.stderr


@pytest.mark.parametrize("text", ["[]", '{"nodes": [1]}', '{"nodes": {"lem:pow-ten": "proved"}}'])
def test_a_result_that_is_not_a_run_result_is_exit_2(run: Path, text: str) -> None:
    result_path(run).write_text(text)
    out = check(run)
    assert out.returncode == 2 and "not a run result" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
