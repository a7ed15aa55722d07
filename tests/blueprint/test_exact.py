"""With Lean, LeanArchitect's own answer (issue 10 item 7): `lake build :blueprintJson` read in
both schemas, the DAG rebuilt on its node-to-node edges, disagreements with the text reported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.blueprint.deps import DeclDeps
from harness.blueprint.exact import (
    ExactDeps, add_node, adjuster, compare, parse_artifact, parse_module_json,
)
from harness.errors import CannotCertify, InputError
from harness.lean.architect import exact_analysis, read_blueprint_json
from tests.support.fakelean import FAKE_LAKE, fake_env

ROOT = Path(__file__).resolve().parents[2]

LAKEFILE = "import Lake\nopen Lake DSL\n\npackage fx\n\nlean_lib P\n"
A = '''import Architect
namespace W

@[simp]
theorem helper_simp : (0 : Nat) + 0 = 0 := rfl

@[blueprint "lem:base"]
theorem base : True := trivial

@[blueprint "lem:simp", simp]
theorem simp_fact : (1 : Nat) * 1 = 1 := rfl

@[blueprint "lem:top" (uses := ["lem:base"])]
theorem top : (2 : Nat) * 1 = 2 := by
  simp

@[blueprint "def:d"]
def d : Nat := 0

@[blueprint "lem:usesd"]
theorem usesd : d = 0 := by
  sorry
end W
'''
B = '''import Architect
import P.A
namespace W

@[blueprint "lem:b"]
theorem b : d = d := by
  sorry_using [usesd]
end W
'''


def workspace(tmp_path: Path) -> Path:
    (tmp_path / "lakefile.lean").write_text(LAKEFILE)
    (tmp_path / "P").mkdir()
    (tmp_path / "P" / "A.lean").write_text(A)
    (tmp_path / "P" / "B.lean").write_text(B)
    return tmp_path


def harness(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180)


@pytest.mark.parametrize("schema", ["inferred", "explicit"])
def test_plan_exact_takes_leanarchitects_edges_and_reports(tmp_path, schema):
    ws = workspace(tmp_path)
    env = fake_env(FAKE_ARCHITECT_SCHEMA=schema)
    r = harness("plan", str(ws / "P"), "--exact", "--json", env=env)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    ex = data["exact"]
    assert ex["schema"] == schema and ex["lean_nodes"] == 6
    # `simp` used `simp_fact` (a @[simp] node): invisible to the text, in Lean's proof term
    assert ex["disagreements"] == [{"label": "lem:top", "part": "proof",
                                    "missing_in_text": ["lem:simp"], "extra_in_text": []}]
    assert ex["only_in_lean"] == [] and ex["only_in_text"] == []
    assert (ws / ".lake/build/blueprint/library/P.json").is_file()
    # the DAG now has the edge: lem:top is in the layer after lem:simp
    layer = {k: i for i, ks in enumerate(data["layers"]) for k in ks}
    assert layer["lem:top"] > layer["lem:simp"]
    human = harness("plan", str(ws / "P"), "--exact", env=env)
    assert "lem:top (proof): Lean also uses lem:simp" in human.stdout


def test_read_json_without_a_build_cannot_certify(tmp_path):
    with pytest.raises(CannotCertify, match="no LeanArchitect library index"):
        read_blueprint_json(workspace(tmp_path))


def test_build_failure_is_exit_3(tmp_path):
    ws = workspace(tmp_path)
    (ws / "P" / "B.lean").write_text(B.replace("sorry_using [usesd]", "exact bogus_thing"))
    r = harness("plan", str(ws / "P"), "--exact", env=fake_env())
    assert r.returncode == 3 and r.stderr.count("\n") == 1
    assert "lake build :blueprintJson failed" in r.stderr and r.stdout == ""


def test_exact_without_lean_is_exit_2(tmp_path):
    ws = workspace(tmp_path)
    r = harness("plan", str(ws / "P" / "A.lean"), "--exact", env=fake_env(lake=False))
    assert r.returncode == 2 and "no Lean toolchain found" in r.stderr


def test_single_file_exact(tmp_path):
    ws = workspace(tmp_path)
    a, report = exact_analysis(ws / "P" / "B.lean", ws, FAKE_LAKE, timeout_s=120)
    assert a.own == ["lem:b"] and report["disagreements"] == []
    assert a.graph.has_edge("lem:usesd", "lem:b")


def node(label: str, st: list[str], pf: list[str] | None, ok: bool = True) -> dict:
    part = lambda uses: {"leanOk": ok, "text": "", "uses": uses, "latexEnv": "theorem"}  # noqa: E731
    return {"name": f"W.{label}", "latexLabel": label, "statement": part(st),
            "proof": None if pf is None else part(pf), "notReady": False, "discussion": None,
            "title": None, "hasLean": True, "file": None, "location": None}


def test_compare_and_adjust_replace_node_edges_keep_context():
    exact = ExactDeps()
    for n in (node("a", [], []), node("b", ["a"], []), node("c", [], ["b"])):
        add_node(exact, n)
    add_node(exact, node("c", [], ["a"], ok=False))  # a second declaration with the label
    assert exact.nodes["c"].names == ["W.c"] and exact.nodes["c"].lean_ok is False
    keys = {"a", "b", "c"}
    text = {"a": DeclDeps(), "b": DeclDeps(), "c": DeclDeps(proof={"a", "W.helper"},
                                                           statement={"b"})}
    items, only_lean, only_text = compare(text, keys, exact)
    got = {(d.label, d.kind): (d.missing, d.extra) for d in items}
    assert got == {("b", "statement"): (["a"], []), ("c", "statement"): ([], ["b"]),
                   ("c", "proof"): (["b"], [])}
    deps = dict(text)
    adjuster(exact, keys)(deps)
    assert deps["c"].statement == set() and deps["c"].proof == {"a", "b", "W.helper"}
    # with a baseline (a run edits bodies later), an edge the text found since is kept
    later = {"c": DeclDeps(proof={"a", "W.helper"}, statement={"b"})}
    deps = {"c": DeclDeps(statement={"b"}, proof={"a", "W.helper", "new"})}
    adjuster(exact, keys | {"new"}, baseline=later)(deps)
    assert deps["c"].proof == {"a", "b", "W.helper", "new"}


def test_artifact_and_bad_json():
    tex = ("\\begin{theorem}\n\\uses{a,b}\n\\label{x}\n\\leanok\nSee \\uses{zz}.\n"
           "\\end{theorem}\n\\begin{proof}\n\\uses{c}\n\\end{proof}\n")
    assert parse_artifact(tex) == ({"a", "b"}, {"c"}, False)
    with pytest.raises(InputError, match="not LeanArchitect JSON"):
        parse_module_json("{\"modules\": []}", "x.json")
    assert parse_module_json('[{"type": "moduleDoc", "data": "# Hi"}]', "x.json") == []


def test_run_takes_leanarchitects_edges_when_lean_is_present(tmp_path):
    from harness.blueprint.project import load
    from harness.assemble import exact_adjust as _exact_adjust

    ws = workspace(tmp_path)
    adjust, note = _exact_adjust(ws / "P" / "A.lean", ws, str(FAKE_LAKE))
    assert "dependencies from LeanArchitect (6 nodes)" in note and "lem:top (proof)" in note
    a = load(ws / "P" / "A.lean", ws, adjust=adjust)
    assert a.graph.has_edge("lem:simp", "lem:top")
    assert not load(ws / "P" / "A.lean", ws).graph.has_edge("lem:simp", "lem:top")
    (ws / "P" / "A.lean").write_text(A.replace("  sorry\n", "  exact bogus\n"))
    adjust, note = _exact_adjust(ws / "P" / "A.lean", ws, str(FAKE_LAKE))
    assert adjust is None and "using the text DAG" in note
