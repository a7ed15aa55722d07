"""`find_pattern` (Mathlib's `#find`) through a real REPL pool of the fake REPL, which answers
`#find` in the shape Mathlib/Tactic/Find.lean logs (one info message `name: type` per match, at
most 20) — directly and through the scripted OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.agents.config import Endpoint, HarnessConfig
from harness.agents.llm import LLMClient
from harness.agents.prover import prove_with_llm
from harness.agents.tools import ProveTools
from harness.blueprint.source import parse_file
from harness.lean.pool import ReplPool
from harness.lean.toolchain import find_toolchain
from tests.agents.test_library_tools import BLUEPRINT
from tests.library.conftest import lib_ws, write  # noqa: F401 - the fixture
from tests.support.llm_server import tool_call

MANY = "namespace Many\n\n" + "".join(
    f"theorem eq_{i} (n : Nat) : n + {i} = {i} + n := sorry\n\n" for i in range(25)) + \
    "end Many\n"


@pytest.fixture
def find_ws(lib_ws: Path, fake_lake):  # noqa: F811 - pytest fixture injection
    m = lib_ws / ".lake" / "packages" / "mathlib"
    write(m / "Mathlib" / "Many.lean", MANY)
    write(m / "Mathlib.lean", "import Mathlib.Analysis.Exp\nimport Mathlib.Probability."
          "Subgaussian\nimport Mathlib.Many\n")
    write(lib_ws / "Blueprint.lean", BLUEPRINT)
    tc = find_toolchain(lib_ws)
    with ReplPool(tc.repl(), cwd=lib_ws, timeout_s=60) as pool:
        yield lib_ws, parse_file(lib_ws / "Blueprint.lean"), pool


def test_find_pattern_lists_matches_from_the_repl(find_ws):
    ws, bp, pool = find_ws
    t = ProveTools(bp, "lem:tail", workspace=ws, toolchain=None, pool=pool)
    out = t.call("find_pattern", {"pattern": "Real.exp _ ≤ Real.exp _ ↔ _ ≤ _"})
    assert out == "Real.exp_le_exp: ∀ {x y : ℝ}, Real.exp x ≤ Real.exp y ↔ x ≤ y"
    many = t.call("find_pattern", {"pattern": "_ + _ = _ + _"}).splitlines()
    assert len(many) == 21 and many[0].startswith("Many.eq_0: ∀ (n : Nat), n + 0 = 0 + n")
    assert many[-1] == "(#find stops after 20 results: make the pattern more specific)"
    assert t.call("find_pattern", {"pattern": "Real.exp _ = 7"}).startswith(
        "no declaration's result type matches `Real.exp _ = 7`")
    assert t.call("find_pattern", {"pattern": "bogus_f _ = _"}) == (
        "Lean could not elaborate the pattern: Unknown identifier `bogus_f`")
    assert t.call("find_pattern", {"pattern": "_ = _\n#eval 1"}).startswith("error: `pattern`")
    assert pool.started == 1 and pool.reused >= 3  # one warm header environment


def test_find_pattern_without_mathlib_find_says_so(find_ws):
    ws, _bp, pool = find_ws
    write(ws / "Plain.lean", BLUEPRINT.replace("import Mathlib", "import Mathlib.Analysis.Exp"))
    t = ProveTools(parse_file(ws / "Plain.lean"), "lem:tail", workspace=ws, toolchain=None,
                   pool=pool)
    assert "`#find` is not available" in t.call("find_pattern", {"pattern": "_ = _"})


def test_prove_role_uses_find_pattern(find_ws, llm):
    ws, bp, pool = find_ws
    good = "by\n  exact (h.measure_ge_le hε).trans (Real.exp_le_exp.mpr (le_refl _))"
    srv = llm([tool_call("find_pattern", pattern="Real.exp _ ≤ Real.exp _ ↔ _ ≤ _"),
               tool_call("submit", body=good)])
    cfg = HarnessConfig.model_validate({"endpoint": {"default_model": "m"}})
    c = LLMClient(Endpoint(srv.base_url, None), cfg)
    res = prove_with_llm(bp, "lem:tail", workspace=ws, cfg=cfg, client=c, toolchain=None,
                         pool=pool, library=None)
    assert res.body == good
    fed = srv.chat_requests[1].messages[-1]["content"]
    assert "Real.exp_le_exp: ∀ {x y : ℝ}, Real.exp x ≤ Real.exp y ↔ x ≤ y" in fed
