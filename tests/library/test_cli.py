"""`harness index` / `harness search` through a real subprocess, and the bad-input cases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def harness(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_index_then_search_json_and_human(lib_ws: Path):
    r = harness("index", "--json", cwd=lib_ws)
    assert r.returncode == 0, r.stderr
    rep = json.loads(r.stdout)
    assert rep["rebuilt"] and rep["decls"] > 10 and rep["path"].endswith(
        ".harness/index/library.sqlite")
    r = harness("search", "sub-Gaussian", "tail", "bound", "--k", "2", "--json", cwd=lib_ws)
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)["hits"]
    assert len(hits) == 2 and set(hits[0]) == {"name", "kind", "module", "file", "line",
                                               "signature", "doc", "score", "origin", "exact"}
    assert hits[0]["name"] == "ProbabilityTheory.HasSubgaussianMGF.measure_ge_le"
    r = harness("search", "Real.exp_le", cwd=lib_ws / ".lake")  # from a subdirectory
    assert r.returncode == 0 and "Real.exp_le_exp" in r.stdout.splitlines()[0]
    assert "Analysis/Exp.lean:" in r.stdout
    r = harness("index", cwd=lib_ws)
    assert r.returncode == 0 and "refreshed" in r.stdout and "unchanged" in r.stdout


def test_search_builds_on_first_need_and_batch(lib_ws: Path, tmp_path: Path):
    batch = tmp_path / "q.txt"
    batch.write_text("exponential monotone\n\nmeasure_ge_le\nzzzz qqqq\n")
    r = harness("search", "--batch", str(batch), "--k", "1", cwd=lib_ws)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["query"] for x in lines] == ["exponential monotone", "measure_ge_le", "zzzz qqqq"]
    assert lines[0]["hits"][0]["name"] == "Real.exp_le_exp" and lines[2]["hits"] == []


def test_bad_input_is_one_line_with_exit_code(lib_ws: Path, tmp_path: Path):
    outside = tmp_path / "nowhere"
    outside.mkdir()
    r = harness("search", "x", cwd=outside)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "not inside a Lake workspace" \
        in r.stderr
    r = harness("search", "--batch", str(tmp_path / "missing.txt"), cwd=lib_ws)
    assert r.returncode == 2 and r.stderr.strip().endswith(
        "missing.txt:1:0: cannot read: No such file or directory")
    assert harness("search", cwd=lib_ws).returncode == 2
    assert harness("search", "x", "--k", "0", cwd=lib_ws).returncode == 2
    (lib_ws / "Broken.lean").write_text("theorem ok : True := trivial\n/- unterminated\n")
    r = harness("index", cwd=lib_ws)
    assert r.returncode == 1 and "Broken.lean:2:0: unterminated comment" in r.stderr
    r = harness("search", "zzzz", "qqqq", cwd=lib_ws)
    assert r.returncode == 1 and "no declarations match" in r.stdout


def test_index_prints_a_bracketed_path_as_written(lib_ws: Path):
    """The workspace's path is text, not rich markup: `ws[red]x` lost its `[red]`."""
    ws = lib_ws.rename(lib_ws.with_name("ws[red]x"))
    r = harness("index", cwd=ws)
    assert r.returncode == 0, r.stderr
    assert f"-> {ws / '.harness' / 'index' / 'library.sqlite'}" in r.stdout, r.stdout
