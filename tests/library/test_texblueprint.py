"""The leanblueprint LaTeX reader, on short snippets quoted from real blueprints (pfr,
sphere-eversion, FLT, carleson; see each test)."""

from __future__ import annotations

from pathlib import Path

from harness.library.texblueprint import (Deps, dependencies, parse_tex, read_blueprint,
                                          strip_comments, theorem_kinds)

# teorth/pfr blueprint/src/chapter/distance.tex (01c9b66), lines 5-21, abridged
PFR = r"""
\begin{lemma}[Negation preserves entropy]\label{neg-ent}
  \lean{ProbabilityTheory.entropy_neg}\leanok
  If $X$ is $G$-valued, then $\bbH[-X]=\bbH[X]$.
\end{lemma}

\begin{proof}
  \uses{relabeled-entropy}\leanok Immediate from \Cref{relabeled-entropy}.
\end{proof}

\begin{lemma}[Shearing preserves entropy]\label{shear-ent}
  \lean{ProbabilityTheory.condEntropy_add_right, ProbabilityTheory.condEntropy_add_left}\leanok
  If $X,Y$ are $G$-valued, then $\bbH[X \pm Y | Y]=\bbH[X|Y]$.
\end{lemma}

\begin{proof}
  \uses{neg-ent,chain-rule}\leanok Immediate from \Cref{neg-ent}.
\end{proof}
"""

# leanprover-community/sphere-eversion blueprint/src/loops.tex (ded8fda), lines 13-16, 29-33,
# 173-176, 297-299, abridged: statement-level \uses, and a proof placed later with \proves
SPHERE = r"""
\begin{definition}
  \label{def:loop}
  \lean{Loop, Loop.average, Loop.support}
  \leanok
  A loop is a map defined on the circle.
\end{definition}
\begin{proposition}
  \label{prop:∃_loops}
  \lean{exist_loops}
  \uses{def:loop}
  \leanok
\end{proposition}
\begin{proposition}
  \label{prop:surrounded_by_open}
  \uses{def:loop}
  \lean{surrounded_of_convexHull}\leanok
\end{proposition}
\begin{lemma}\label{lem:caratheodory}\lean{eq_pos_convex_span_of_mem_convexHull}\end{lemma}
\begin{proof}
  Something unrelated. % \uses{def:loop} is a comment, not a use
\end{proof}
\begin{proof}[Proof of \Cref{prop:surrounded_by_open}]\proves{prop:surrounded_by_open}
  \leanok
  \uses{lem:caratheodory,lem:unknown}
\end{proof}
"""


def test_statement_and_proof_uses_map_to_lean_names():
    nodes, proves = parse_tex(PFR, "distance.tex")
    assert [n.labels for n in nodes] == [["neg-ent"], ["shear-ent"]]
    assert nodes[1].lean == ["ProbabilityTheory.condEntropy_add_right",
                             "ProbabilityTheory.condEntropy_add_left"]
    assert nodes[0].leanok and nodes[0].proof_uses == ["relabeled-entropy"]
    assert nodes[1].uses == [] and nodes[1].proof_uses == ["neg-ent", "chain-rule"]
    assert proves == []
    deps = dependencies(nodes)
    # a label with no node here (`chain-rule`, `relabeled-entropy`) adds nothing
    assert deps["ProbabilityTheory.condEntropy_add_left"] == Deps(
        (), ("ProbabilityTheory.entropy_neg",))
    assert deps["ProbabilityTheory.entropy_neg"] == Deps((), ())


def test_proves_attaches_a_later_proof_and_comments_are_not_read(tmp_path: Path):
    src = tmp_path / "blueprint" / "src"
    src.mkdir(parents=True)
    (src / "loops.tex").write_text(SPHERE, encoding="utf-8")
    deps = dependencies(read_blueprint(src))
    assert deps["exist_loops"].statement == ("Loop", "Loop.average", "Loop.support")
    assert deps["surrounded_of_convexHull"] == Deps(
        ("Loop", "Loop.average", "Loop.support"), ("eq_pos_convex_span_of_mem_convexHull",))
    # the proof right after the lemma has only a commented-out \uses
    assert deps["eq_pos_convex_span_of_mem_convexHull"] == Deps((), ())
    assert deps["Loop.average"] == Deps((), ())  # a node's own names are not its dependencies


def test_proves_across_files_and_declared_environments(tmp_path: Path):
    # ImperialCollegeLondon/FLT blueprint/src/chapter/ch03freyreduction.tex (071d16b),
    # lines 251-254: a proof naming what it proves, in another file than the statement
    (tmp_path / "a.tex").write_text(
        "\\newtheorem{mystery}{Mystery}\n"
        "\\begin{mystery}\\label{hardly_ramified_reducible}\\lean{GaloisRep.reducible}"
        "\\end{mystery}\n"
        "\\begin{theorem}\\label{hardly_ramified_lifts}\\lean{GaloisRep.lifts}\\end{theorem}\n")
    (tmp_path / "b.tex").write_text(
        "\\begin{proof}\n  \\proves{hardly_ramified_reducible}\n"
        "  \\uses{hardly_ramified_lifts,\n    hardly_ramified_spreads_out}\n\\end{proof}\n")
    assert theorem_kinds((tmp_path / "a.tex").read_text()) == {"mystery"}
    deps = dependencies(read_blueprint(tmp_path))
    assert deps["GaloisRep.reducible"] == Deps((), ("GaloisRep.lifts",))
    assert deps["GaloisRep.lifts"] == Deps((), ())


def test_line_numbers_survive_comment_stripping():
    # fpvandoorn/carleson blueprint/src/chapter/main.tex (bd23c8a), lines 306-309, abridged
    text = ("% a comment \\begin{lemma}\n50\\% of it\n\\begin{theorem}[metric space Carleson]\n"
            "\\label{metric-space-Carleson}\n\\uses{linearised-metric-Carleson,int-continuous}\n"
            "\\leanok\n\\lean{metric_carleson}\n\\end{theorem}\n")
    assert strip_comments(text).count("\n") == text.count("\n")
    (node,), _ = parse_tex(text, "main.tex")
    assert (node.line, node.kind, node.lean) == (3, "theorem", ["metric_carleson"])
    assert node.uses == ["linearised-metric-Carleson", "int-continuous"]


def test_a_label_inside_a_displayed_equation_names_the_equation_not_the_node():
    # fpvandoorn/carleson blueprint/src/chapter/main.tex (bd23c8a), lines 872-879, abridged
    text = ("\\begin{lemma}[kernel summand]\n\\label{kernel-summand}\n\\leanok\n"
            "\\lean{dist_mem_Icc_of_Ks_ne_zero, enorm_Ks_le}\n"
            "    \\begin{equation}\\label{supp-Ks}\n"
            "      \\frac{1}{4} D^{s-1} \\leq \\rho(x,y) \\leq \\frac{1}{2} D^s\\, .\n"
            "    \\end{equation}\n\\end{lemma}\n"
            "\\begin{theorem}\\label{t}\\lean{t}\\uses{supp-Ks, kernel-summand}\\end{theorem}\n")
    nodes, _ = parse_tex(text)
    assert nodes[0].labels == ["kernel-summand"] and nodes[0].leanok
    assert dependencies(nodes)["t"].statement == ("dist_mem_Icc_of_Ks_ne_zero", "enorm_Ks_le")
