"""`run` without Lean reads the blueprint once for its plan and its graph (a 1 000-node project
took seconds per reading, in silence, before the first line)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from harness.blueprint import project
from harness.blueprint.genproject import generate_project
from harness.commands.run import _plan_without_lean


def test_the_plan_and_the_graph_share_one_reading(tmp_path: Path, monkeypatch, capsys) -> None:
    generate_project(tmp_path, 6, 3)
    read: Counter[Path] = Counter()
    parse = project.parse_file

    def counted(path):
        read[Path(path).resolve()] += 1
        return parse(path)

    monkeypatch.setattr(project, "parse_file", counted)
    _plan_without_lean(tmp_path / "Gen", tmp_path, quiet=False)
    assert len(read) >= 6 and set(read.values()) == {1}, read
    assert (tmp_path / ".harness" / "graph.html").stat().st_size > 0
    out = capsys.readouterr().out
    assert out.startswith(f"{tmp_path / 'Gen'}: 18 nodes;") and "graph: " in out
