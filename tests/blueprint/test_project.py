"""The project-wide DAG (issue 10 item 8): a directory or a root module file gives every node of
every file; labels are global, Lean names resolve through imports; each file is parsed once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.blueprint import project as project_mod
from harness.blueprint.genproject import generate_project
from harness.blueprint.project import ParseCache, is_root_module, load, load_project

ROOT = Path(__file__).resolve().parents[2]

A = '''import Architect
namespace W
@[blueprint "lem:a1"]
theorem a1 : True := trivial

@[blueprint "lem:a2"]
theorem a2 : True := by
  sorry
end W
'''
B = '''import Architect
import P.A
namespace W
@[blueprint "lem:b"]
theorem b : True := by
  sorry_using [a1]
end W
'''
# C imports neither A nor B: the string label reaches B anyway; the Lean name `a2` does not
C = '''import Architect
namespace W
@[blueprint "lem:c" (uses := ["lem:b"])]
theorem c : True := by
  exact (fun _ => sorry) a2
end W
'''
ROOT_FILE = "import P.A\nimport P.B\nimport P.C\n\n/-! # The project -/\n"


def workspace(tmp_path: Path) -> Path:
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "P").mkdir()
    for name, text in (("A", A), ("B", B), ("C", C)):
        (tmp_path / "P" / f"{name}.lean").write_text(text)
    (tmp_path / "P.lean").write_text(ROOT_FILE)
    return tmp_path


def test_directory_is_the_project_wide_dag(tmp_path):
    ws = workspace(tmp_path)
    a = load(ws / "P", ws)
    assert sorted(a.own) == ["lem:a1", "lem:a2", "lem:b", "lem:c"]
    assert not any(a.is_external(k) for k in a.own)
    assert a.graph.has_edge("lem:a1", "lem:b") and a.graph.has_edge("lem:b", "lem:c")
    assert not a.graph.has_edge("lem:a2", "lem:c")  # C does not import A: `a2` is not visible
    assert a.findings == []
    assert "lem:a1" in a.proved and a.state("lem:b") == "ready" and a.state("lem:c") == "open"
    assert {a.graph.nodes[k]["file"] for k in a.own} == {
        str(ws / "P" / f"{n}.lean") for n in "ABC"}


def test_root_module_file_gives_the_same_dag(tmp_path):
    ws = workspace(tmp_path)
    assert is_root_module(ParseCache().get(ws / "P.lean"))
    a = load(ws / "P.lean", ws)
    b = load(ws / "P", ws)
    assert sorted(a.own) == sorted(b.own)
    assert set(a.graph.edges) == set(b.graph.edges)


def test_single_file_resolves_a_label_of_a_module_it_does_not_import(tmp_path):
    ws = workspace(tmp_path)
    a = load(ws / "P" / "C.lean", ws)
    assert a.own == ["lem:c"] and a.findings == []
    assert a.graph.has_edge("lem:b", "lem:c") and a.is_external("lem:b")
    assert a.state("lem:c") == "open"  # lem:b is not proved


def test_each_file_is_parsed_once(tmp_path, monkeypatch):
    ws = workspace(tmp_path)
    calls: list[str] = []
    real = project_mod.parse_file

    def counting(path):
        calls.append(Path(path).name)
        return real(path)

    monkeypatch.setattr(project_mod, "parse_file", counting)
    cache = ParseCache()
    load_project(ws / "P.lean", ws, cache)
    assert sorted(calls) == ["A.lean", "B.lean", "C.lean", "P.lean"]
    load(ws / "P" / "B.lean", ws, cache)  # everything is cached now
    assert len(calls) == 4
    (ws / "P" / "A.lean").write_text(A.replace("sorry", "trivial"))
    assert "lem:a2" in load(ws / "P" / "B.lean", ws, cache).proved  # a changed file is re-read
    assert calls[4:] == ["A.lean"]


def test_import_cycle_terminates(tmp_path):
    ws = workspace(tmp_path)
    (ws / "P" / "A.lean").write_text(A.replace("import Architect", "import Architect\nimport P.B"))
    a = load(ws / "P", ws)
    assert len(a.own) == 4


def test_generated_project_plans_without_findings(tmp_path):
    info = generate_project(tmp_path, n_files=12, nodes_per_file=5, seed=3)
    a = load(tmp_path / "Gen.lean", tmp_path)
    assert len(a.own) == info["nodes"] == 60
    assert a.findings == [] and a.cycles == []
    assert a.graph.number_of_edges() > 0 and a.leaves


def test_cli_plan_status_graph_on_a_directory(tmp_path):
    ws = workspace(tmp_path)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)

    r = run("plan", str(ws / "P"), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["counts"]["nodes"] == 4 and [x["key"] for x in data["leaves"]] == ["lem:b",
                                                                                    "lem:a2"]
    r = run("status", str(ws / "P.lean"), "--json")
    assert r.returncode == 0, r.stderr
    rows = {n["key"]: n for n in json.loads(r.stdout)["nodes"]}
    assert rows["lem:c"]["file"].endswith("C.lean") and rows["lem:a1"]["state"] == "proved"
    out = ws / "g.json"
    r = run("graph", str(ws / "P"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert len(json.loads(out.read_text())["nodes"]) == 4


@pytest.mark.parametrize("helpers", [False, True], ids=["plain", "with-helpers"])
def test_generated_open_bodies_are_the_gates_canonical_placeholders(tmp_path, helpers):
    """Every open body of a generated project is what the gate reads as a placeholder (not a
    claim to be complete), so the real gate accepts the generated record as it is."""
    from harness.blueprint.genhelpers import generate_project_with_helpers
    from harness.blueprint.model import BodyStatus
    from harness.blueprint.source import parse_file
    from harness.gate.fingerprint import Normaliser
    from harness.gate.scope import is_placeholder
    from harness.gate.tokens import lex

    if helpers:
        generate_project_with_helpers(tmp_path, n_files=12, nodes_per_file=5, per_node=3, seed=3)
    else:
        generate_project(tmp_path, n_files=12, nodes_per_file=5, seed=3)
    open_, proved = 0, 0
    for path in sorted((tmp_path / "Gen").rglob("*.lean")):
        bp = parse_file(path)
        norm = Normaliser(bp.text, lex(bp.text))
        for d in bp.decls:
            if d.status in (BodyStatus.SORRY, BodyStatus.SORRY_USING, BodyStatus.ADMIT):
                assert is_placeholder(d, norm), (path.name, bp.text[d.body_span.start:d.span.end])
                open_ += 1
            elif d.kind.is_proof:
                assert "have node0 : True := trivial" in bp.text[d.body_span.start:d.span.end] \
                    or helpers  # proofs keep the local that shadows a node's name
                proved += 1
    assert open_ > 20 and proved > 5
