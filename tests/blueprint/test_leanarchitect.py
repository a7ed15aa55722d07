"""LeanArchitect semantics (docs/leanarchitect.md): shared labels, `blueprint_comment`, proof
docstrings, the attribute's options and prose links. One synthetic file per class."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from harness.blueprint import parse_text
from harness.blueprint.dag import analyse
from harness.blueprint.imports import load_imports
from harness.blueprint.lints import lint_crefs
from harness.blueprint.model import CommandKind
from harness.blueprint.source import parse_file
from harness.blueprint.write import apply_edit, render, replace_body
from harness.report.graph import graph_data
from harness.report.summary import node_dict

ROOT = Path(__file__).resolve().parents[2]


def P(src: str):
    return parse_text(textwrap.dedent(src).lstrip("\n"), "la.lean")


def A(src: str):
    return analyse(P(src))


def harness(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd or ROOT)


# -- 1. shared labels ----------------------------------------------------------------------------
SHARED = '''
    import Architect
    namespace S
    @[blueprint "def:g" (statement := /-- g -/)]
    def g (n : Nat) : Nat := n + 1

    @[blueprint "def:h" (statement := /-- h -/)]
    def h (n : Nat) : Nat := n

    @[blueprint "thm:two" (statement := /-- two halves -/)]
    theorem two_left (n : Nat) : g n = n + 1 := by
      rfl

    @[blueprint "thm:two"]
    theorem two_right (n : Nat) : h n = n := by
      {right}

    @[blueprint "thm:top"]
    theorem top : g 0 = 1 := by
      sorry_using [two_left]
    end S
'''


def test_shared_label_is_one_node_with_all_names_and_the_union_of_deps():
    a = A(SHARED.format(right="sorry"))
    assert not a.findings and not a.warnings
    assert [k for k in a.own if a.decl(k).is_node] == ["def:g", "def:h", "thm:two", "thm:top"]
    assert [p.name for p in a.parts("thm:two")] == ["S.two_left", "S.two_right"]
    assert set(a.graph.predecessors("thm:two")) == {"def:g", "def:h"}  # union of both parts
    n = node_dict(a, "thm:two")
    assert n["names"] == ["S.two_left", "S.two_right"] and n["body"] == "sorry"
    assert [p["key"] for p in n["parts"]] == ["S.two_left", "S.two_right"]
    # proved only when every part is: the right half is open, so the node is ready, not proved
    assert a.state("thm:two") == "ready" and "thm:two" not in a.proved
    assert a.state("thm:top") == "open" and a.graph.has_edge("thm:two", "thm:top")
    done = A(SHARED.format(right="rfl"))
    assert "thm:two" in done.proved and done.leaves == ["thm:top"]


def test_shared_label_parts_have_their_own_keys_for_edits():
    bp = P(SHARED.format(right="sorry"))
    assert bp.node("thm:two").name == "S.two_left"  # the label: its first part
    assert bp.node("S.two_right").name == "S.two_right"  # a part, by its key
    new = replace_body(bp, "S.two_right", "by\n  rfl")
    bp2 = parse_text(new, "la.lean")
    assert all(p.status.is_complete for p in bp2.parts("thm:two"))
    assert "thm:two" in analyse(bp2).proved


def test_label_across_unrelated_kinds_is_a_warning_not_a_finding(tmp_path):
    f = tmp_path / "mix.lean"
    f.write_text('@[blueprint "x"] def x : Nat := 1\n'
                 '@[blueprint "x"] theorem x_pos : 0 < x := by\n  sorry\n')
    a = analyse(parse_file(f))
    assert not a.findings and [w.code for w in a.warnings] == ["label-collision"]
    assert a.parts("x")[1].name == "x_pos"
    r = harness("plan", str(f))
    assert r.returncode == 0, r.stderr
    # at the label the second declaration shares (Lean's column: 0-based)
    assert f"{f}:2:12: label `x` is shared by `def x` and `theorem x_pos`" in r.stderr
    assert "(warning)" in r.stderr


def test_shared_label_across_files_merges_parts(tmp_path):
    (tmp_path / "lakefile.lean").write_text("import Lake\n")
    (tmp_path / "W").mkdir()
    (tmp_path / "W" / "A.lean").write_text(
        'import Architect\n@[blueprint "thm:split"]\ntheorem split_a : True := by\n  sorry\n')
    (tmp_path / "W" / "B.lean").write_text(
        'import W.A\n@[blueprint "thm:split"]\ntheorem split_b : True := trivial\n'
        '@[blueprint "thm:after"]\ntheorem after : True := by\n  sorry_using [split_b]\n')
    bp = parse_file(tmp_path / "W" / "B.lean")
    a = analyse(bp, load_imports(bp, tmp_path))
    assert not a.findings
    assert "thm:split" in a.own and not a.is_external("thm:split")
    assert [p.name for p in a.parts("thm:split")] == ["split_a", "split_b"]
    # the imported part is open: the node is not proved, and B's dependent waits
    assert a.state("thm:split") == "ready" and a.state("thm:after") == "open"
    r = harness("status", str(tmp_path / "W" / "B.lean"), "--json")
    assert r.returncode == 0, r.stderr
    nodes = {n["key"]: n for n in json.loads(r.stdout)["nodes"]}
    assert nodes["thm:split"]["names"] == ["split_a", "split_b"]


# -- 2. blueprint_comment ------------------------------------------------------------------------
COMMENTED = '''
    import Architect

    @[blueprint "lem:a" (statement := /-- a -/)]
    theorem a : True := by
      sorry

    blueprint_comment /--
    \\section{Background}\\label{sec:bg}
    \\begin{lemma}[Folklore]\\label{lem:folk}\\uses{lem:a}
    Everyone knows this; compare \\ref{sec:bg}.
    \\end{lemma}
    \\begin{proof}\\uses{lem:c}
    Omitted.
    \\end{proof}
    \\begin{equation}\\label{eq:one} 1 = 1 \\end{equation}
    -/

    @[blueprint "lem:b" (uses := ["lem:folk"])]
    theorem b : True := by
      sorry

    @[blueprint "lem:c"]
    theorem c : True := trivial

    blueprint_comment
    /-- A trailing remark, with its comment on the next line. -/
'''


def test_blueprint_comment_is_its_own_command():
    bp = P(COMMENTED)
    kinds = [c.kind for c in bp.commands]
    assert kinds.count(CommandKind.BLUEPRINT_COMMENT) == 2
    a_decl = bp.node("lem:a")
    assert bp.text[a_decl.span.start:a_decl.span.end].endswith("sorry")  # not the comment
    last = bp.commands[-1]
    assert last.kind == CommandKind.BLUEPRINT_COMMENT and last.span.slice(bp.text).endswith("-/")
    assert render(bp) == bp.text.encode()
    assert [n.label for n in bp.informal] == ["lem:folk"]  # the equation is a label, not a node
    assert {"sec:bg", "lem:folk", "eq:one"} <= bp.prose_labels


def test_replace_body_next_to_blueprint_comment_keeps_it_byte_exact():
    bp = P(COMMENTED)
    comments = [c.span.slice(bp.text) for c in bp.commands
                if c.kind == CommandKind.BLUEPRINT_COMMENT]
    for label in ("lem:a", "lem:b", "lem:c"):
        new = apply_edit(bp, label, "by\n  trivial", "theorem helper : True := trivial")
        bp2 = parse_text(new, "la.lean")
        assert [c.span.slice(new) for c in bp2.commands
                if c.kind == CommandKind.BLUEPRINT_COMMENT] == comments
        assert bp2.node(label).status.is_complete
        for c in comments:
            assert new.count(c) == 1


def test_informal_nodes_join_the_dag_but_never_as_work():
    a = A(COMMENTED)
    assert not a.findings and not a.warnings  # `uses := ["lem:folk"]` resolves
    assert a.state("lem:folk") == "informal" and a.is_informal("lem:folk")
    assert a.graph.has_edge("lem:a", "lem:folk")  # its `\uses` in the statement
    assert a.graph.edges["lem:c", "lem:folk"]["kinds"] == frozenset({"proof"})  # in its proof
    assert a.graph.has_edge("lem:folk", "lem:b")  # a string `uses` names it
    assert "lem:folk" not in a.leaves and "lem:folk" not in a.targets
    n = node_dict(a, "lem:folk")
    assert n["informal"] and n["title"] == "Folklore" and n["proof"] == "Omitted."
    assert n["links"] == [{"target": "sec:bg", "where": "statement", "macro": "ref",
                           "resolved": True}]
    g = graph_data(a)
    assert {x["key"]: x["state"] for x in g["nodes"]}["lem:folk"] == "informal"


def test_informal_node_does_not_block_what_rests_on_it():
    a = A('''
        blueprint_comment /--
        \\begin{definition}\\label{def:idea}An idea.\\end{definition}
        -/
        @[blueprint "lem:uses-idea" (uses := ["def:idea"])]
        theorem u : True := by
          sorry
        @[blueprint "lem:done" (uses := ["def:idea"])]
        theorem d : True := trivial
    ''')
    assert a.graph.has_edge("def:idea", "lem:uses-idea")
    assert a.leaves == ["lem:uses-idea"] and "lem:done" in a.proved
    assert a.critical_path == ["lem:uses-idea"]


def test_blueprint_comment_without_a_doc_comment_is_an_input_error(tmp_path):
    f = tmp_path / "bad.lean"
    f.write_text("theorem t : True := trivial\n\nblueprint_comment -- nothing\n")
    r = harness("plan", str(f))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip() == (f"{f}:3:0: `blueprint_comment` must be followed by a "
                                "`/-- … -/` comment")


# -- 3. proof docstrings -------------------------------------------------------------------------
def test_proof_docstrings_are_the_proof_text_unless_proof_is_given():
    bp = P('''
        @[blueprint "thm:induct"]
        theorem induct (n : Nat) : 0 + n = n := by
          induction n with
          | zero =>
            /-- The base case is \\cref{thm:other}. -/
            rfl
          | succ n ih =>
            /-- The step uses the hypothesis. -/
            omega

        @[blueprint "thm:other" (proof := /-- Given. -/)]
        theorem other : True := by
          /-- Ignored: `proof :=` wins. -/
          trivial
    ''')
    d = bp.node("thm:induct")
    assert d.proof_docs == ["The base case is \\cref{thm:other}.", "The step uses the hypothesis."]
    assert d.proof_text == "The base case is \\cref{thm:other}.\n\nThe step uses the hypothesis."
    assert bp.node("thm:other").proof_text == "Given."
    a = analyse(bp)
    assert [lk.target for lk in a.links["thm:induct"]] == ["thm:other"]
    assert not a.graph.has_edge("thm:other", "thm:induct")  # a link, not an edge


# -- 4. the attribute's options ------------------------------------------------------------------
def test_attribute_options_follow_leanarchitect():
    bp = P('''
        namespace NS
        @[blueprint]
        theorem bare : True := trivial
        @[blueprint "ignored" (latexLabel := "lem:real") (hasProof := false) (notReady := true)
          (discussion := 42) (title := /-- A title -/) (latexEnv := "lemma")]
        theorem opts : True := trivial
        @[simp, to_additive add_twice (attr := blueprint "thm:twice")]
        theorem mul_twice : True := trivial
        @[to_additive (attr := simp, blueprint "thm:guess")]
        theorem prod_one : True := trivial
        @[to_additive]
        theorem mul_plain : True := trivial
        end NS
        theorem later : True := trivial
        attribute [blueprint "thm:later"] later
    ''')
    assert bp.node("NS.bare").label == "NS.bare"  # no label: the (full) Lean name
    o = bp.node("lem:real").blueprint
    assert (o.has_proof, o.not_ready, o.discussion, o.title, o.latex_env) == \
        (False, True, "42", "A title", "lemma")
    assert bp.node("thm:twice").names == ("NS.mul_twice", "NS.add_twice")
    assert bp.node("thm:guess").names == ("NS.prod_one", "NS.sum_zero")
    assert bp.by_name("NS.mul_plain").blueprint is None  # `to_additive` alone: no node
    assert bp.node("thm:later").name == "later"
    assert not bp.findings


def test_uses_exclusion_removes_an_inferred_dependency():
    a = A('''
        @[blueprint "def:f"] def f (n : Nat) : Nat := n
        @[blueprint "def:k"] def k (n : Nat) : Nat := n
        @[blueprint "lem:x" (uses := [-f]) (proofUses := [-"def:k"])]
        theorem x : f 0 = k 0 := by
          simp [f, k]
    ''')
    # an exclusion acts on its own part: `uses` on the statement, `proofUses` on the proof
    assert a.graph.edges["def:f", "lem:x"]["kinds"] == frozenset({"proof"})
    assert a.graph.edges["def:k", "lem:x"]["kinds"] == frozenset({"statement"})


# -- 5. prose references are links ---------------------------------------------------------------
PROSE_CYCLE = '''
    @[blueprint "def:seq" (statement := /-- A sequence; its limit is given by \\cref{thm:lim}. -/)]
    def seq (n : Nat) : Nat := n

    @[blueprint "lem:bound" (proof := /-- See \\cref{thm:lim} and \\ref{nowhere}. -/)]
    theorem bound : True := trivial

    @[blueprint "thm:lim" (statement := /-- The limit of \\cref{def:seq}. -/)
      (proof := /-- By \\cref{lem:bound}. -/)]
    theorem lim : seq 0 = 0 := by
      sorry_using [bound]
'''


def test_prose_only_cycle_is_no_cycle_and_no_finding(tmp_path):
    a = A(PROSE_CYCLE)
    assert not a.cycles and not a.findings
    assert a.state("def:seq") == "proved" and a.state("lem:bound") == "proved"
    assert a.leaves == ["thm:lim"]
    assert set(a.graph.predecessors("def:seq")) == set()
    assert [w.code for w in a.warnings] == ["dangling-link"]
    f = tmp_path / "prose.lean"
    f.write_text(textwrap.dedent(PROSE_CYCLE))
    r = harness("plan", str(f), "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["findings"] == [] and [w["code"] for w in data["warnings"]] == ["dangling-link"]


def test_lint_crefs_is_opt_in_parity(tmp_path):
    src = textwrap.dedent('''
        @[blueprint "lem:p"] theorem p : True := trivial
        @[blueprint "lem:q"] theorem q : True := trivial
        @[blueprint "thm:r" (proof := /-- By \\cref{lem:p} and \\cref{lem:q}. -/)]
        theorem r : True := by
          sorry_using [p]
        @[blueprint "thm:s" (proof := /-- Nothing cited. -/)]
        theorem s : True := by
          sorry_using [p]
    ''')
    a = analyse(parse_text(src, "lint.lean"))
    assert not a.findings
    msgs = sorted(f.message for f in lint_crefs(a))
    assert msgs == ["the proof of `thm:s` uses `lem:p` but its prose does not \\cref it",
                    "the proof prose of `thm:r` cites \\cref{lem:q}, which its proof does not use"]
    f = tmp_path / "lint.lean"
    f.write_text(src)
    assert harness("status", str(f)).returncode == 0
    r = harness("status", str(f), "--lint", "crefs", "--json")
    assert r.returncode == 1
    assert sorted(x["code"] for x in json.loads(r.stdout)["findings"]) == ["lint-crefs"] * 2


# -- property: body edits never touch another command's bytes -----------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_BODIES = st.sampled_from([
    "by\n  sorry", "by\n  /-- a proof docstring -/\n  simp", "trivial", "by\n  sorry_using [x0]",
    "by\n  -- blueprint_comment /-- not a command -/\n  exact trivial", "by admit",
])
_OTHERS = st.sampled_from([
    "blueprint_comment /--\n\\begin{lemma}\\label{inf:{i}}\\uses{lem:x0}text\\end{lemma}\n-/",
    "blueprint_comment\n/-- plain remark {i} -/", "open Nat in\n#check Nat.succ",
    "set_option maxHeartbeats 400000", "-- a comment {i}", "/-! module doc {i} -/",
])
_NEW = st.sampled_from(["by\n  exact trivial", "by\n  sorry", "by\n  /-- why -/\n  trivial",
                        "by\n  trivial -- blueprint_comment /-- in a comment -/"])


@st.composite
def _files(draw) -> str:
    parts = ["import Architect\n"]
    for i in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            parts.append(draw(_OTHERS).replace("{i}", str(i)))
        label = draw(st.sampled_from([f"lem:x{i}", "lem:shared"]))
        parts.append(f'@[blueprint "{label}"]\ntheorem x{i} : True := {draw(_BODIES)}')
        if draw(st.booleans()):
            parts.append(draw(_OTHERS).replace("{i}", str(i)))
    return "\n\n".join(parts) + "\n"


@settings(max_examples=120, deadline=None)
@given(_files(), st.data())
def test_random_body_edits_never_change_another_commands_bytes(text, data):
    bp = parse_text(text, "p.lean")
    assert render(bp) == text.encode()
    decls = [c for c in bp.commands if c.decl is not None]
    for _ in range(data.draw(st.integers(1, 3))):
        target = data.draw(st.sampled_from(decls)).decl
        s, e = target.body_span.start, target.body_span.end
        assert "\nblueprint_comment" not in text[s:e]  # a body never absorbs the command
        new = replace_body(bp, target.key, data.draw(_NEW))
        assert new[:s] == text[:s] and new.endswith(text[e:])
        bp2 = parse_text(new, "p.lean")
        before = [(c.kind, c.span.slice(text)) for c in bp.commands if c.decl is not target]
        after = [(c.kind, c.span.slice(new)) for c in bp2.commands
                 if c.decl is None or c.decl.name != target.name]
        assert after == before
        text, bp = new, bp2
        decls = [c for c in bp.commands if c.decl is not None]


def test_gate_scope_sees_a_changed_blueprint_comment():
    from harness.gate import fingerprint as fp
    from harness.gate.scope import check_scope
    from harness.gate.tokens import lex

    def side(t: str):
        return parse_text(t, "g.lean"), fp.Normaliser(t, lex(t))

    base = textwrap.dedent(COMMENTED).lstrip("\n")
    b, bn = side(base)
    assert check_scope(b, bn, *side(replace_body(b, "lem:a", "by\n  trivial")), {"lem:a"}) == []
    n, nn = side(base.replace("Everyone knows this", "Nobody knows this"))
    problems = check_scope(b, bn, n, nn, {"lem:a"})
    assert [p.message for p in problems] == [
        "`blueprint_comment` command is outside the allowed nodes (new or changed; helpers go "
        "directly before an allowed node)"]


def test_gate_allow_on_a_shared_label_allows_every_part():
    from harness.gate.scope import resolve_allowed

    bp = P(SHARED.format(right="sorry"))
    assert resolve_allowed(bp, {"thm:two"}) == {"S.two_left", "S.two_right"}
    assert resolve_allowed(bp, {"S.two_right"}) == {"S.two_right"}


def test_has_proof_decides_whether_body_uses_are_proof_uses():
    a = A('''
        @[blueprint "def:f"] def f (n : Nat) : Nat := n
        @[blueprint "def:g"] def g (n : Nat) : Nat := f n
        @[blueprint "def:h" (hasProof := true)] def h (n : Nat) : Nat := f n
        @[blueprint "def:e" (uses := [-f])] def e (n : Nat) : Nat := f n
        @[blueprint "lem:t" (hasProof := false)] theorem t : f 0 = 0 := by
          simp [g]
    ''')
    kinds = {(u, v): sorted(k) for u, v, k in a.graph.edges(data="kinds")}
    assert kinds[("def:f", "def:g")] == ["statement"]  # a definition has no proof part
    assert kinds[("def:f", "def:h")] == ["proof"]
    assert ("def:f", "def:e") not in kinds  # the exclusion applies to the merged uses
    assert kinds[("def:g", "lem:t")] == ["statement"]


def test_replace_body_on_a_shared_label_asks_for_the_part():
    import pytest

    bp = P(SHARED.format(right="sorry"))
    with pytest.raises(KeyError, match=r"label `thm:two` is shared by 2 declarations "
                                       r"\(S.two_left, S.two_right\): name one"):
        replace_body(bp, "thm:two", "by\n  rfl")


def test_informal_uses_of_unknown_labels_are_warnings():
    a = A('''
        blueprint_comment /--
        \\begin{lemma}\\label{lem:i}\\uses{lem:ghost}Text.\\end{lemma}
        -/
    ''')
    assert not a.findings
    assert [w.message for w in a.warnings] == [
        "\\uses{lem:ghost} in informal node `lem:i` names no node or label"]
