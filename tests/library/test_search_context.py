"""`harness search --at FILE:LINE / --for LABEL`: only what that place can see, on real files
in a temp workspace, through the real CLI; and the prover's `search_library` passing its node."""

from __future__ import annotations

import json
import os
from pathlib import Path

from harness.library.visible import header_imports, scope_at
from tests.library.conftest import write
from tests.library.test_cli import harness

BP = """\
import Mathlib.Analysis.Exp

/-! A blueprint file that imports only the exponential. -/

namespace Demo

open Real

theorem early_exp_fact (x : ℝ) : 0 < Real.exp x := sorry

@[blueprint "lem:exp-mono"
  (statement := /-- The exponential is monotone. -/)
  (proof := /-- By \\texttt{Real.exp\\_le\\_exp} and the sub-Gaussian tail bound. -/)]
theorem exp_mono_node {x y : ℝ} (h : x ≤ y) : Real.exp x ≤ Real.exp y := sorry

theorem later_exp_fact (x : ℝ) : Real.exp x ≠ 0 := sorry

end Demo
"""


def _names(r) -> list[str]:
    assert r.returncode == 0, r.stderr
    return [h["name"] for h in json.loads(r.stdout)["hits"]]


def _ws(lib_ws: Path) -> Path:
    write(lib_ws / "Demo" / "Node.lean", BP)
    # as in a real toolchain, `Init` imports the rest of core
    core = Path(os.environ["ELAN_HOME"]) / "toolchains/leanprover--lean4---v4.22.0/src/lean"
    write(core / "Init.lean", "prelude\nimport Init.Core\n")
    return lib_ws


def test_header_imports_and_scope():
    assert header_imports("/- c -/\nimport A.B\npublic import C -- x\nimport all D\n"
                          "open Foo\ntheorem t : True := trivial\n") == (["A.B", "C", "D"], False)
    assert header_imports("prelude\nimport Init.Core\nnamespace X\n") == (["Init.Core"], True)
    assert scope_at(BP, 14) == ("Demo", ("Real",))
    assert scope_at(BP, 2) == ("", ())


def test_at_sees_only_imports_and_earlier_declarations(lib_ws: Path):
    ws = _ws(lib_ws)
    everywhere = _names(harness("search", "sub-Gaussian", "tail", "bound", "--json", cwd=ws))
    assert "ProbabilityTheory.HasSubgaussianMGF.measure_ge_le" in everywhere
    # Node.lean imports only Exp.lean: the sub-Gaussian file is not visible from there
    r = harness("search", "sub-Gaussian", "tail", "bound", "--json", "--at", "Demo/Node.lean:14",
                cwd=ws)
    assert r.returncode in (0, 1), r.stderr
    got = [h["name"] for h in json.loads(r.stdout)["hits"]]
    assert not any("Subgaussian" in n or "HasSubgaussianMGF" in n for n in got)
    r = harness("search", "exp", "fact", "--json", "--k", "20", "--at", "Demo/Node.lean:14",
                cwd=ws)
    got = _names(r)
    assert "Demo.early_exp_fact" in got and "Demo.later_exp_fact" not in got
    assert "Real.exp_le_exp" in got  # imported
    assert "Batteries.List" not in " ".join(got) and "List.length_append'" not in got
    # Init is imported implicitly: core's lemmas are visible without an import
    assert "Nat.le_succ" in _names(harness("search", "le", "succ", "--json", "--at",
                                           "Demo/Node.lean:14", cwd=ws))
    # from below the file's end every declaration of it is visible
    assert "Demo.later_exp_fact" in _names(harness(
        "search", "exp", "fact", "--json", "--k", "20", "--at", "Demo/Node.lean:19", cwd=ws))


def test_for_label_adds_the_node_and_hides_it(lib_ws: Path):
    ws = _ws(lib_ws)
    got = _names(harness("search", "--for", "lem:exp-mono", "--json", "--k", "20", cwd=ws))
    # no words given: the node's statement and proof (naming `Real.exp_le_exp`) are the query
    assert {"Real.exp_le_exp", "Demo.early_exp_fact"} <= set(got[:3])
    assert "Demo.exp_mono_node" not in got and "Demo.later_exp_fact" not in got
    assert not any("Subgaussian" in n for n in got)


def test_bad_position_or_label_is_one_located_line(lib_ws: Path):
    ws = _ws(lib_ws)
    r = harness("search", "x", "--at", "Demo/Node.lean:999", cwd=ws)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert r.stderr.startswith("Demo/Node.lean:999:0: line 999 is outside the file")
    r = harness("search", "x", "--at", "Demo/Missing.lean:3", cwd=ws)
    assert r.returncode == 2 and r.stderr.startswith("Demo/Missing.lean:1:0: cannot read")
    r = harness("search", "x", "--at", "Demo/Node.lean", cwd=ws)
    assert r.returncode == 2 and "--at wants FILE:LINE" in r.stderr
    r = harness("search", "--for", "lem:exp-mon", cwd=ws)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    # the workspace is a directory: a plain usage line (no FILE:1:0 position on it)
    assert r.stderr == (f"search: --for lem:exp-mon: no blueprint node `lem:exp-mon` in the "
                        f"Lean files of {ws.resolve()}; did you mean `lem:exp-mono`?\n")
    assert ":1:0:" not in r.stderr
    r = harness("search", "x", "--at", "Demo/Node.lean:3", "--for", "lem:exp-mono", cwd=ws)
    assert r.returncode == 2
