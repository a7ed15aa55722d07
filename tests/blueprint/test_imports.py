"""Cross-file blueprints: nodes of imported workspace files resolve and count for *proved*."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.blueprint import parse_file
from harness.blueprint.dag import analyse
from harness.blueprint.imports import imported_modules, load_imports
from harness.errors import InputError

ROOT = Path(__file__).resolve().parents[2]

LOWER = '''import Architect
namespace L
@[blueprint "lem:base" (statement := /-- base -/)]
theorem base : True := by
  {body}
end L
'''
UPPER = '''import Mathlib.Tactic
import Architect
import BP.Lower
namespace L
@[blueprint "lem:top" (proof := /-- from \\cref{{lem:base}} -/)]
theorem top : True := by
  sorry_using [{dep}]
end L
'''


def workspace(tmp_path: Path, body: str = "sorry", dep: str = "base") -> Path:
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "BP").mkdir()
    (tmp_path / "BP" / "Lower.lean").write_text(LOWER.format(body=body))
    (tmp_path / "BP" / "Upper.lean").write_text(UPPER.format(dep=dep))
    return tmp_path / "BP" / "Upper.lean"


def test_imported_modules_lists_imports():
    bp = parse_file(ROOT / "Blueprint" / "SLT" / "Chaining.lean")
    mods = imported_modules(bp)
    assert "Architect" in mods and any(m.startswith("Blueprint.SLT.") for m in mods)


def test_cross_file_reference_resolves_and_waits_for_the_import(tmp_path):
    upper = workspace(tmp_path)
    bp = parse_file(upper)
    imports = load_imports(bp, tmp_path)
    assert [b.path.name for b in imports] == ["Lower.lean"]
    a = analyse(bp, imports)
    assert not a.findings
    assert a.graph.has_edge("lem:base", "lem:top") and a.is_external("lem:base")
    assert a.own == ["lem:top"] and a.leaves == []  # its dependency is not proved yet
    assert a.state("lem:top") == "open"


def test_proved_import_makes_the_node_ready(tmp_path):
    upper = workspace(tmp_path, body="trivial")
    bp = parse_file(upper)
    a = analyse(bp, load_imports(bp, tmp_path))
    assert a.leaves == ["lem:top"] and "lem:base" in a.proved


def test_without_imports_the_reference_dangles(tmp_path):
    upper = workspace(tmp_path)
    a = analyse(parse_file(upper))
    assert sorted(f.code for f in a.findings) == ["dangling-name"]
    assert [w.code for w in a.warnings] == ["dangling-link"]  # the prose \\cref: a link


def test_unknown_name_still_dangles_with_imports(tmp_path):
    upper = workspace(tmp_path, dep="nowhere")
    bp = parse_file(upper)
    a = analyse(bp, load_imports(bp, tmp_path))
    assert [f.code for f in a.findings] == ["dangling-name"]
    assert "nor in its imports" in a.findings[0].message


def test_import_cycle_terminates(tmp_path):
    upper = workspace(tmp_path)
    lower = tmp_path / "BP" / "Lower.lean"
    lower.write_text("import BP.Upper\n" + lower.read_text())
    bp = parse_file(upper)
    assert [b.path.name for b in load_imports(bp, tmp_path)] == ["Lower.lean"]


def test_broken_import_is_reported_at_its_own_path(tmp_path):
    upper = workspace(tmp_path)
    (tmp_path / "BP" / "Lower.lean").write_text("theorem x : True := by\n  /- open\n")
    with pytest.raises(InputError) as ei:
        load_imports(parse_file(upper), tmp_path)
    assert ei.value.line().startswith(f"{tmp_path / 'BP' / 'Lower.lean'}:2:2:")


def test_cli_plan_uses_imports(tmp_path):
    upper = workspace(tmp_path, body="trivial")
    r = subprocess.run([sys.executable, "-m", "harness", "plan", str(upper), "--json"],
                       capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["counts"]["imported"] == 1 and [x["key"] for x in data["leaves"]] == ["lem:top"]
