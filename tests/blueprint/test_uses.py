"""Node-level dependencies, LeanArchitect's view (issue 22): `uses`/`proof_uses` in the JSON,
projected through ordinary declarations, never the node's own label."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from harness.blueprint import parse_text
from harness.blueprint.dag import analyse
from harness.blueprint.views import node_uses

ROOT = Path(__file__).resolve().parents[2]

SRC = '''import Architect

@[blueprint "def:L"]
abbrev A : Nat := 3

def helper : Nat := A + 1

def helper2 : Nat := helper + 1

@[blueprint "lem:X"]
theorem X : helper2 = 5 := rfl

@[blueprint "def:L"]
theorem T : A = 3 := by
  have := X
  rfl

@[blueprint "lem:Y"]
theorem Y : True := by
  have := helper2
  trivial
'''


def test_uses_pass_through_ordinary_declarations_and_stop_at_nodes():
    a = analyse(parse_text(SRC, "U.lean"))
    assert node_uses(a, "lem:X") == (["def:L"], [])  # X -> helper2 -> helper -> A (def:L)
    assert node_uses(a, "lem:Y") == ([], ["def:L"])  # through its proof only
    assert node_uses(a, "def:L") == ([], ["lem:X"])  # never its own label (T uses A)
    assert a.deps["def:L"].statement == {"def:L"}  # the direct view has the self-use ...


def test_status_json_has_both_views(tmp_path):
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    f = tmp_path / "U.lean"
    f.write_text(SRC)
    r = subprocess.run([sys.executable, "-m", "harness", "status", str(f), "--json", "--all"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    nodes = {n["key"]: n for n in json.loads(r.stdout)["nodes"]}
    x, y, lbl = nodes["lem:X"], nodes["lem:Y"], nodes["def:L"]
    assert x["statement_deps"] == ["helper2"] and x["uses"] == ["def:L"]
    assert y["proof_deps"] == ["helper2"] and (y["uses"], y["proof_uses"]) == ([], ["def:L"])
    assert "def:L" not in lbl["statement_deps"] + lbl["uses"] + lbl["proof_uses"]  # ... not JSON
    assert nodes["helper"]["uses"] == ["def:L"]
