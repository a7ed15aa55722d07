"""The data of one run over a whole project (issue 22, part of item "one run"): one work graph
over every file's open parts of a generated 10-file project, in import order, and the importers
a merge into a file must compile (the run itself: test_project_session.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from harness.blueprint.genproject import generate_project
from harness.orchestrator.project_run import importers, is_project_target, project_work
from tests.orchestrator.support import ROOT


def test_one_work_graph_over_every_file_of_a_ten_file_project(tmp_path):
    info = generate_project(tmp_path, 10, 6, seed=3)
    pw = project_work(tmp_path / "Gen", tmp_path)
    assert len(pw.files) == 10 and info["nodes"] == 60
    order = {id(b): i for i, b in enumerate(pw.files)}
    for b in pw.files:  # import order: every file after the files it imports
        assert all(order[id(x)] < order[id(b)] for x in pw.project.imports[id(b)])
    assert {id(pw.file_of[k]) for k in pw.work} == {id(b) for b in pw.files
                                                   if any(not d.status.is_complete
                                                          for d in b.decls)}
    ranks = [order[id(pw.file_of[k])] for k in pw.work]
    assert ranks == sorted(ranks)
    cross = [(u, v) for u, v in pw.graph.edges if pw.file_of[u] is not pw.file_of[v]]
    assert cross  # a node waits for open nodes of other files: one scheduler, not one per file
    for u, v in pw.graph.edges:
        assert order[id(pw.file_of[u])] <= order[id(pw.file_of[v])]


def test_importers_are_the_files_a_merge_can_break(tmp_path):
    generate_project(tmp_path, 10, 6, seed=3)
    pw = project_work(tmp_path / "Gen.lean", tmp_path)
    first = pw.files[0]
    imp = importers(pw.project, first)
    assert imp and first not in imp
    direct = [b for b in pw.files if first in pw.project.imports[id(b)]]
    assert all(b in imp for b in direct)
    assert importers(pw.project, pw.files[-1]) == []  # nothing after it in import order


def test_run_on_a_project_refuses_source_and_a_project_without_nodes_in_one_line(tmp_path):
    generate_project(tmp_path, 10, 6, seed=3)
    assert is_project_target(tmp_path / "Gen") and is_project_target(tmp_path / "Gen.lean")
    (tmp_path / "src.md").write_text("informal\n")
    (tmp_path / "Empty").mkdir()
    (tmp_path / "Empty" / "A.lean").write_text("def a : Nat := 1\n")
    for target, words in ((["Gen", "--source", "src.md"], "a project run takes none"),
                          (["Empty"], "no blueprint node")):
        r = subprocess.run([sys.executable, "-m", "harness", "run", *target], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert r.returncode == 2, r.stderr
        (line,) = r.stderr.strip().splitlines()
        assert words in line


def test_a_directory_without_lean_files_is_a_plain_usage_line(tmp_path):
    """A directory has no line or column: `DIR: …`, not `DIR:1:0: …` (plan, status, run)."""
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "Nothing").mkdir()
    for cmd in ("plan", "status", "run"):
        r = subprocess.run([sys.executable, "-m", "harness", cmd, "Nothing"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert r.returncode == 2, (cmd, r.stderr)
        assert r.stderr == "Nothing: a directory with no Lean files\n", (cmd, r.stderr)
