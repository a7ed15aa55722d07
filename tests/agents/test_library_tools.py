"""The library index in the prove role: tools, context, unknown names — real SQLite, and the
scripted OpenAI-compatible server for the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.agents.config import Endpoint, HarnessConfig
from harness.agents.context import build_context
from harness.agents.llm import LLMClient
from harness.agents.prover import prove_with_llm
from harness.agents.tools import ProveTools
from harness.blueprint.source import parse_file
from harness.library.query import open_index
from tests.library.conftest import lib_ws, write  # noqa: F401 - the fixture
from tests.support.llm_server import tool_call

BLUEPRINT = """\
import Mathlib

namespace ProbabilityTheory

@[blueprint "lem:tail"
  (statement := /-- The sub-Gaussian tail bound. -/)
  (proof := /-- Chernoff: by \\texttt{HasSubgaussianMGF.measure_ge_le} and the monotonicity of
  the exponential (`Real.exp_le_exp`); see also `NoSuchLemma.foo`. -/)]
theorem tail_bound (h : HasSubgaussianMGF X c μ) (hε : 0 ≤ ε) :
    (μ {ω | ε ≤ X ω}).toReal ≤ Real.exp (-ε ^ 2 / (2 * c)) := by
  sorry

end ProbabilityTheory
"""


@pytest.fixture
def bp_ws(lib_ws: Path):  # noqa: F811 - pytest fixture injection
    write(lib_ws / "Blueprint.lean", BLUEPRINT)
    ix = open_index(lib_ws)
    yield lib_ws, parse_file(lib_ws / "Blueprint.lean"), ix
    ix.close()


def test_context_resolves_named_lemmas_and_adds_premises(bp_ws):
    ws, bp, ix = bp_ws
    ctx = build_context(bp, "lem:tail", library=ix, module="Blueprint")
    assert ctx.named == ["ProbabilityTheory.HasSubgaussianMGF.measure_ge_le", "Real.exp_le_exp"]
    assert ctx.unresolved == ["NoSuchLemma.foo"]
    assert "## Library declarations the informal proof names" in ctx.text
    assert "theorem Real.exp_le_exp {x y : ℝ} : Real.exp x ≤ Real.exp y ↔ x ≤ y" in ctx.text
    assert "Mathlib.Probability.Subgaussian (.lake/packages/mathlib/Mathlib/Probability/" \
           "Subgaussian.lean:17)" in ctx.text
    assert "found in no index: `NoSuchLemma.foo`" in ctx.text
    assert ctx.premises and "ProbabilityTheory.tail_bound" not in ctx.premises
    assert set(ctx.premises).isdisjoint(ctx.named)
    assert ctx.text.index("Library declarations") < ctx.text.index("## The node to prove")
    small = build_context(bp, "lem:tail", library=ix, module="Blueprint", max_tokens=450)
    assert small.library_omitted and "library entries omitted for size" in small.text
    assert small.tokens < ctx.tokens
    assert build_context(bp, "lem:tail").named == []  # no index: as before


def test_tools_search_lookup_and_unknown_names(bp_ws):
    ws, bp, ix = bp_ws
    t = ProveTools(bp, "lem:tail", workspace=ws, toolchain=None, library=ix)
    assert {s["function"]["name"] for s in t.specs()} >= {"search_library", "lookup",
                                                          "find_pattern"}
    out = t.call("search_library", {"query": "sub-Gaussian tail bound", "k": 2})
    assert out.startswith("-- Mathlib.Probability.Subgaussian (.lake/packages/mathlib/")
    assert "theorem ProbabilityTheory.HasSubgaussianMGF.measure_ge_le (h :" in out
    got = t.call("lookup", {"name": "measure_ge_le"})
    assert "**Sub-Gaussian tail bound**" in got and "Subgaussian.lean:17" in got
    assert "did you mean `Real.exp_le_exp`" in t.call("lookup", {"name": "Real.exp_le_exp'"})
    assert t.call("search_library", {"query": 3}).startswith("error")
    assert "needs Lean" in t.call("find_pattern", {"pattern": "_ + _"})
    body = "by\n  have h2 := h.measure_ge_le hε\n  exact h2.trans (Real.exp_le_exp'.mpr (le_refl _))"
    unknown = t.unknown_names(body)
    assert [n for n, _ in unknown] == ["Real.exp_le_exp'"]
    assert unknown[0][1][0] == "Real.exp_le_exp"
    assert t.unknown_names(body.replace("exp_le_exp'", "exp_le_exp")) == []
    helper = "theorem my_helper_lemma : True := trivial"
    assert t.unknown_names("by exact my_helper_lemma", helper) == []


def test_prove_role_uses_search_and_gets_unknown_names_before_lean(bp_ws, llm):
    ws, bp, ix = bp_ws
    bad = "by\n  exact (h.measure_ge_le hε).trans (Real.exp_le_exp'.mpr (le_refl _))"
    good = bad.replace("exp_le_exp'", "exp_le_exp")
    srv = llm([tool_call("search_library", query="exponential monotone", k=3),
               tool_call("lookup", name="HasSubgaussianMGF.measure_ge_le"),
               tool_call("submit", body=bad),
               tool_call("submit", body=good)])
    cfg = HarnessConfig.model_validate({"endpoint": {"default_model": "m"}})
    c = LLMClient(Endpoint(srv.base_url, None), cfg)
    res = prove_with_llm(bp, "lem:tail", workspace=ws, cfg=cfg, client=c, toolchain=None,
                         library=ix)
    assert res.status == "unverified" and res.body == good
    first = srv.chat_requests[0].messages[1]["content"]
    assert "Library declarations the informal proof names" in first
    assert "theorem Real.exp_le_exp" in first
    fed = [r.messages[-1]["content"] for r in srv.chat_requests[1:]]
    assert "theorem Real.exp_le_exp {x y : ℝ}" in fed[0]
    assert "**Sub-Gaussian tail bound**" in fed[1]
    assert "unknown constant `Real.exp_le_exp'`" in fed[2]
    assert "did you mean `Real.exp_le_exp`?" in fed[2]
    tools = {t["function"]["name"] for t in srv.chat_requests[0].tools}
    assert {"search_library", "lookup", "find_pattern", "submit"} <= tools


def test_search_library_sees_only_what_the_nodes_file_imports(lib_ws: Path):  # noqa: F811
    # this file imports only the exponential: the sub-Gaussian file is not usable there
    write(lib_ws / "Narrow.lean", BLUEPRINT.replace("import Mathlib\n",
                                                    "import Mathlib.Analysis.Exp\n"))
    write(lib_ws / "Wide.lean", BLUEPRINT)
    ix = open_index(lib_ws)
    try:
        narrow = ProveTools(parse_file(lib_ws / "Narrow.lean"), "lem:tail", workspace=lib_ws,
                            toolchain=None, library=ix)
        wide = ProveTools(parse_file(lib_ws / "Wide.lean"), "lem:tail", workspace=lib_ws,
                          toolchain=None, library=ix)
        q = {"query": "sub-Gaussian tail bound exponential", "k": 10}
        assert "HasSubgaussianMGF.measure_ge_le" in wide.call("search_library", q)
        got = narrow.call("search_library", q)
        assert "Subgaussian" not in got and "Real.exp_le_exp" in got
    finally:
        ix.close()


def test_search_library_ranks_the_nodes_blueprint_dependencies_higher(lib_ws: Path,  # noqa: F811
                                                                      monkeypatch):
    import harness.library.rank as rank

    write(lib_ws / "Uses.lean", BLUEPRINT.replace(
        '(statement := /-- The sub-Gaussian tail bound. -/)',
        '(statement := /-- The sub-Gaussian tail bound. -/) (uses := [Real.exp_pos])'))
    ix = open_index(lib_ws)
    try:
        bp = parse_file(lib_ws / "Uses.lean")
        assert bp.node("lem:tail").blueprint.uses == ["Real.exp_pos"]
        t = ProveTools(bp, "lem:tail", workspace=lib_ws, toolchain=None, library=ix)
        q = {"query": "sub-Gaussian tail bound", "k": 3}
        assert "Real.exp_pos" in t.call("search_library", q)
        monkeypatch.setattr(rank, "W_BLUEPRINT", 0.0)
        assert "Real.exp_pos" not in t.call("search_library", q)
    finally:
        ix.close()
