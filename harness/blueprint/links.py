"""Prose references: `\\ref`, `\\cref`, `\\Cref` in a node's statement, proof or title.

LeanArchitect infers dependencies from Lean (the constants a declaration uses, plus `uses` /
`proofUses`, Architect/Attribute.lean `mkStatementPart`/`mkProofPart`) and passes the prose
through as LaTeX: a reference in the prose is a *link* for the reader, never a DAG edge. Links
are kept (node JSON, the graph, the prover's context); a link to a label that exists nowhere is
a warning. LeanMarathon's dialect additionally demands that a proof's prose `\\cref`s exactly its
lemma/theorem proof dependencies: that is the opt-in lint :func:`lint_crefs` (`--lint crefs`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.blueprint.model import Finding

if TYPE_CHECKING:
    from harness.blueprint.dag import Analysis

_REF = re.compile(r"\\([cC]ref|ref|autoref|eqref)\{([^}]*)\}")
LINTS = ("crefs",)


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


def link_warnings(a: Analysis) -> list[Finding]:
    """A link to a label that is neither a node nor a `\\label` anywhere: a warning (exit 0)."""
    out = []
    for key in a.own:
        d = a.decl(key)
        for link in a.links.get(key, []):
            if not link.resolved:
                out.append(Finding("dangling-link", f"\\{link.macro}{{{link.target}}} in the "
                                   f"{link.where} of `{key}` names no node or label",
                                   file_of(a, key), d.pos, d.label))
    return out


def file_of(a: Analysis, key: str) -> str:
    """The file a vertex is declared in (in directory mode the analysis's own path is the
    directory, which is no place to point a reader to)."""
    return a.graph.nodes[key].get("file") or a.blueprint.display_path


def lint_crefs(a: Analysis) -> list[Finding]:
    """LeanMarathon's parity rule (findings): the proof prose of each lemma/theorem node links
    exactly its lemma/theorem proof dependencies (definitions are exempt both ways), and every
    link resolves."""
    out: list[Finding] = []

    def proof_node(k: str) -> bool:
        return k in a.graph and a.decl(k).is_node and a.decl(k).kind.is_proof

    for key in a.own:
        d = a.decl(key)
        if not d.is_node:
            continue
        path = file_of(a, key)
        links = a.links.get(key, [])
        for link in links:
            if not link.resolved:
                out.append(Finding("lint-crefs", f"\\{link.macro}{{{link.target}}} in the "
                                   f"{link.where} of `{key}` names no node", path, d.pos, key))
        if not d.kind.is_proof:
            continue
        cited = {lk.target for lk in links if lk.where == "proof" and proof_node(lk.target)}
        used = {u for u in a.graph.predecessors(key)
                if "proof" in a.graph.edges[u, key]["kinds"] and proof_node(u)}
        for u in sorted(used - cited):
            out.append(Finding("lint-crefs", f"the proof of `{key}` uses `{u}` but its prose "
                               f"does not \\cref it", path, d.pos, key))
        for c in sorted(cited - used):
            out.append(Finding("lint-crefs", f"the proof prose of `{key}` cites \\cref{{{c}}}, "
                               "which its proof does not use", path, d.pos, key))
    return out


def run_lints(a: Analysis, lints: list[str] | None) -> list[Finding]:
    out: list[Finding] = []
    for name in dict.fromkeys(lints or []):
        if name == "crefs":
            out += lint_crefs(a)
    return out
