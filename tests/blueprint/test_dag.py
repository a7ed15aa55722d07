"""Dependencies, proved/leaf logic, priorities and findings on small hand-made DAGs."""

from __future__ import annotations

import textwrap
from pathlib import Path

import networkx as nx

from harness.blueprint import parse_file, parse_text
from harness.blueprint.dag import analyse
from harness.blueprint.generate import generate_blueprint

DEMO = Path(__file__).resolve().parents[2] / "Blueprint" / "Demo.lean"


def A(src: str):
    return analyse(parse_text(textwrap.dedent(src), "d.lean"))


CHAIN = '''
    namespace N
    @[blueprint "def:f" (statement := /-- f -/)]
    def f (n : Nat) : Nat := n

    @[blueprint "lem:a" (statement := /-- a, about \\cref{def:f} -/) (proof := /-- direct -/)]
    theorem a : f 1 = 1 := by
      sorry

    @[blueprint "lem:b" (statement := /-- b -/) (proof := /-- from \\cref{lem:a} -/)]
    theorem b : True := by
      sorry_using [a]

    @[blueprint "thm:c" (statement := /-- c -/) (proof := /-- from \\cref{lem:b} -/)]
    theorem c : True := by
      have := b
      trivial
    end N
'''


def test_edges_kinds_and_direction():
    a = A(CHAIN)
    g = a.graph
    assert g.has_edge("def:f", "lem:a") and "statement" in g.edges["def:f", "lem:a"]["kinds"]
    assert g.edges["lem:a", "lem:b"]["kinds"] == frozenset({"proof"})
    assert g.has_edge("lem:b", "thm:c")  # by name reference in the body
    assert nx.is_directed_acyclic_graph(g)


def test_proved_is_transitive_and_leaves_are_ready_work():
    a = A(CHAIN)
    assert a.proved == {"def:f"}
    assert a.leaves == ["lem:a"]
    assert a.state("thm:c") == "waiting"  # complete body, unproved dependency
    assert a.state("lem:b") == "open"
    assert a.targets == ["thm:c"]


def test_priority_is_longest_unproved_work_chain():
    a = A(CHAIN)
    assert a.priority["lem:a"] == 2  # a and b still need proofs; c's body is complete
    assert a.priority["lem:b"] == 1 and a.priority["thm:c"] == 0
    assert a.critical_path == ["lem:a", "lem:b", "thm:c"]


def test_proving_the_leaf_moves_the_frontier():
    src = textwrap.dedent(CHAIN).replace("theorem a : f 1 = 1 := by\n  sorry",
                                          "theorem a : f 1 = 1 := by\n  rfl")
    a = analyse(parse_text(src, "d.lean"))
    assert a.proved == {"def:f", "lem:a"} and a.leaves == ["lem:b"]


def test_namespace_and_open_resolution():
    a = A('''
        namespace A
        theorem base : True := trivial
        end A
        namespace B
        open A
        theorem uses_open : True := base
        end B
        namespace A.Inner
        theorem uses_parent : True := base
        end A.Inner
        theorem A.uses_own_prefix : True := base
        theorem uses_root : True := _root_.A.base
        theorem not_resolved : True := base
    ''')
    preds = {k: set(a.graph.predecessors(k)) for k in a.graph.nodes}
    assert preds["B.uses_open"] == {"A.base"}
    assert preds["A.Inner.uses_parent"] == {"A.base"}
    assert preds["A.uses_own_prefix"] == {"A.base"}
    assert preds["uses_root"] == {"A.base"}
    assert preds["not_resolved"] == set()


def test_names_in_comments_and_strings_are_not_dependencies():
    a = A('''
        theorem x : True := trivial
        theorem y : True := by
          -- x is mentioned here only
          have : "x" = "x" := rfl
          trivial
    ''')
    assert not a.graph.has_edge("x", "y")


def test_uses_and_proof_uses_fields_and_exclusions():
    a = A('''
        @[blueprint "lem:p"] theorem p : True := trivial
        @[blueprint "lem:q"] theorem q : True := trivial
        @[blueprint "lem:r" (uses := ["lem:p"]) (proofUses := [q, -p])]
        theorem r : True := by
          exact p
    ''')
    assert a.graph.edges["lem:p", "lem:r"]["kinds"] == frozenset({"statement"})
    assert a.graph.edges["lem:q", "lem:r"]["kinds"] == frozenset({"proof"})


def test_cycle_is_reported_with_its_path_and_blocks_proof():
    # a Lean name resolves only to an earlier declaration and prose links are no edges, so the
    # cycle closes through a label (LeanArchitect passes string `uses` through unchecked)
    a = A('''
        @[blueprint "lem:a" (proofUses := ["lem:b"])] theorem a : True := by
          sorry
        @[blueprint "lem:b" (proof := /-- \\cref{lem:a} -/)] theorem b : True := by
          sorry_using [a]
        @[blueprint "lem:c"] theorem c : True := by
          sorry
    ''')
    cyc = [f for f in a.findings if f.code == "cycle"]
    assert len(cyc) == 1 and "lem:a -> lem:b -> lem:a" in cyc[0].message
    assert cyc[0].line().startswith("d.lean:2:")
    assert a.leaves == ["lem:c"]


def test_dangling_references_are_findings_and_dangling_links_warnings():
    a = A('''
        @[blueprint "lem:a" (statement := /-- see \\cref{lem:nope} -/)
          (proof := /-- \\Cref{lem:gone, lem:a} -/) (uses := [Nat.le_refl, "lem:missing"])]
        theorem a : True := by
          sorry_using [not_here]
    ''')
    codes = sorted(f.code for f in a.findings)
    assert codes == ["dangling-name", "dangling-use"]  # what Lean / LeanArchitect would reject
    # prose links are not LeanArchitect's business: a warning each, exit 0
    assert sorted(w.message for w in a.warnings) == [
        "\\Cref{lem:gone} in the proof of `lem:a` names no node or label",
        "\\cref{lem:nope} in the statement of `lem:a` names no node or label"]


def test_layers_cover_every_vertex_once():
    a = analyse(parse_file(DEMO))
    flat = [k for layer in a.layers for k in layer]
    assert sorted(flat) == sorted(a.graph.nodes) and len(a.layers) >= 4
    assert not a.findings


def test_demo_plan_shape():
    a = analyse(parse_file(DEMO))
    assert len(a.blueprint.nodes) == 17
    assert a.proved == {"def:sum-to", "def:rev-acc", "def:my-rev"}
    assert set(a.leaves) == {"lem:add-shuffle", "lem:pow-ten", "lem:sum-to-zero",
                             "lem:sum-to-succ", "lem:rev-acc-length", "lem:rev-acc-eq"}
    assert a.leaves[0] in {"lem:sum-to-zero", "lem:sum-to-succ", "lem:rev-acc-eq"}
    assert "thm:gauss" in a.targets


def test_generated_dag_is_acyclic_and_consistent():
    a = analyse(parse_text(generate_blueprint(400, seed=7), "g.lean"))
    assert not a.cycles and not a.findings
    for leaf in a.leaves:
        assert all(p in a.proved for p in a.graph.predecessors(leaf))
    for k in a.proved:
        assert a.decl(k).status.is_complete
        assert all(p in a.proved for p in a.graph.predecessors(k))
    prios = [a.priority[k] for k in a.leaves]
    assert prios == sorted(prios, reverse=True)


def test_a_dangling_link_is_located_at_the_reference_itself():
    """FILE:LINE:COL of the `\\ref` (Lean's columns: 0-based code points), not of the
    declaration: the `statement` option after multi-byte characters, the `proof` option (its
    first line has none), two labels in one `\\Cref`, a proof docstring in the body."""
    a = A('''
        @[blueprint "lem:a" (statement := /-- see ∑ᵢ₁ \\cref{lem:nope} -/)
          (proof := /-- first
          then \\Cref{lem:gone, lem:a} -/)]
        theorem a : True := by
          sorry
        @[blueprint "lem:b"]
        theorem b : True := by
          /-- Proof: by \\ref{in:body}. -/
          trivial
    ''')
    where = {w.message.split(" ")[0]: str(w.pos) for w in a.warnings if w.code == "dangling-link"}
    assert where == {"\\cref{lem:nope}": "2:46", "\\Cref{lem:gone}": "4:7",
                     "\\ref{in:body}": "9:16"}, where
