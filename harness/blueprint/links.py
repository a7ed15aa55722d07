"""Prose references: `\\ref`, `\\cref`, `\\Cref` in a node's statement, proof or title.

LeanArchitect infers dependencies from Lean (the constants a declaration uses, plus `uses` /
`proofUses`, Architect/Attribute.lean `mkStatementPart`/`mkProofPart`) and passes the prose
through as LaTeX: a reference in the prose is a *link* for the reader, never a DAG edge. Links
are kept (node JSON, the graph, the prover's context); a link to a label that exists nowhere is
a warning. LeanMarathon's dialect additionally demands that a proof's prose `\\cref`s exactly its
lemma/theorem proof dependencies: that is the opt-in lint `--lint crefs`
(:mod:`harness.blueprint.lints`, above the DAG: it reads a whole analysis).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from harness.blueprint.model import Blueprint, Decl, Finding, InformalNode, Pos

_REF = re.compile(r"\\([cC]ref|ref|autoref|eqref)\{([^}]*)\}")


@dataclass(frozen=True, slots=True)
class Link:
    target: str  # the label as written
    where: str  # statement | proof | title
    macro: str  # cref | Cref | ref | …
    resolved: bool  # a node, or a `\label` the blueprint defines (a section, an equation)

    def as_dict(self) -> dict[str, object]:
        return {"target": self.target, "where": self.where, "macro": self.macro,
                "resolved": self.resolved}


def refs(prose: str | None) -> list[tuple[str, str]]:
    """(macro, label) for every reference in the prose (`\\cref{a,b}` gives two)."""
    if not prose:
        return []
    return [(m.group(1), x.strip()) for m in _REF.finditer(prose)
            for x in m.group(2).split(",") if x.strip()]


def node_links(node, known: set[str]) -> list[Link]:
    """The links of one node (a Decl or an InformalNode) in statement, proof, title order."""
    b = node.blueprint
    if b is None:
        return []
    out: list[Link] = []
    seen: set[tuple[str, str]] = set()
    for where, prose in (("statement", b.statement), ("proof", node.proof_text),
                         ("title", b.title)):
        for macro, label in refs(prose):
            if (where, label) not in seen:
                seen.add((where, label))
                out.append(Link(label, where, macro, label in known))
    return out


def link_pos(bp: Blueprint | None, node: Decl | InformalNode, link: Link) -> Pos:
    """Where ``link`` is written: its first `\\macro{…}` in the part of the node's source its
    prose came from (the `statement`/`proof`/`title` option, else the proof docstrings in the
    body for a proof), as Lean gives positions (line
    1-based, column 0-based in code points: Lean's `mkErrorStringWithPos`, src/Lean/Message.lean,
    prints `Position.column`, which `FileMap.toPosition` counts from 0,
    src/Lean/Data/Position.lean). Not found as written (a string-literal option escapes its
    backslashes): the node's own position."""
    if bp is None:
        return node.pos
    for start, end in (_region(bp, node, link.where), (node.span.start, node.span.end)):
        for m in _REF.finditer(bp.text, start, end):
            if m.group(1) == link.macro and link.target in (x.strip() for x in m.group(2).split(",")):
                return bp.pos_of(m.start())
    return node.pos


def _region(bp: Blueprint, node: Decl | InformalNode, where: str) -> tuple[int, int]:
    """The source offsets of the node's ``where`` prose (the whole node when not known)."""
    b = node.blueprint
    raw = b.fields.get(where) if b is not None else None
    if b is not None and raw:
        at = bp.text.find(raw, b.span.start, b.span.end)
        if at >= 0:
            return at, at + len(raw)
    if isinstance(node, Decl) and where == "proof":  # the proof docstrings in the body
        return node.body_span.start, node.body_span.end
    return node.span.start, node.span.end


def link_warnings(vertices: Iterable[tuple[str, Decl | InformalNode, str, Blueprint | None]],
                  links: dict[str, list[Link]]) -> list[Finding]:
    """A link to a label that is neither a node nor a `\\label` anywhere: a warning (exit 0) at
    the reference itself. ``vertices``: (key, its declaration, its file, that file's parsed
    blueprint) for each vertex of the file analysed."""
    out = []
    for key, d, path, bp in vertices:
        for link in links.get(key, []):
            if not link.resolved:
                out.append(Finding("dangling-link", f"\\{link.macro}{{{link.target}}} in the "
                                   f"{link.where} of `{key}` names no node or label",
                                   path, link_pos(bp, d, link), d.label))
    return out
