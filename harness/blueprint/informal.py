"""Informal-only nodes: LaTeX environments inside `blueprint_comment /-- … -/`.

LeanArchitect's `blueprint_comment` command (`Architect/Command.lean`, elab `blueprintComment`)
stores the doc comment's text verbatim in the module's blueprint; leanblueprint then reads it as
LaTeX. An environment such as `\\begin{lemma}[Title]\\label{lem:x}\\uses{a,b} … \\end{lemma}` is a
node of the blueprint with no Lean declaration, and a `\\begin{proof}\\uses{c} … \\end{proof}`
right after it is that node's proof (leanblueprint's `\\uses` in a proof are proof uses). Every
other `\\label{…}` in the comment (sections, equations) is a label a `\\ref` may point to, not a
node.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from harness.blueprint.cursor import Scanner
from harness.blueprint.model import BlueprintAttr, InformalNode, Pos, Span

# leanblueprint's theorem-like environments (its `thms` option) and the usual extras
NODE_ENVS = frozenset({
    "theorem", "lemma", "proposition", "corollary", "definition", "conjecture", "claim",
    "remark", "example", "notation", "assumption", "hypothesis", "axiom", "fact", "problem",
    "question", "observation",
})
_BEGIN = re.compile(r"\\begin\{([A-Za-z]+)(\*?)\}")
_TITLE = re.compile(r"\s*\[([^\]]*)\]")
_LABEL = re.compile(r"\\label\{([^}]*)\}")
_USES = re.compile(r"\\uses\{([^}]*)\}")
_PROOF = re.compile(r"\s*\\begin\{proof\}")


def _labels_of(macro_args: list[str]) -> list[str]:
    return [x.strip() for arg in macro_args for x in arg.split(",") if x.strip()]


def _clean(body: str) -> str:
    return _USES.sub("", _LABEL.sub("", body)).strip()


def informal_nodes(text: str, start: int, end: int, pos: Callable[[int], Pos]
                   ) -> tuple[list[InformalNode], set[str]]:
    """The informal nodes of the comment text ``text[start:end]`` and every `\\label` in it.
    ``pos`` maps an offset of ``text`` to a Lean position."""
    body = text[start:end]
    labels = {x.strip() for x in _LABEL.findall(body) if x.strip()}
    nodes: list[InformalNode] = []
    i = 0
    while True:
        m = _BEGIN.search(body, i)
        if m is None:
            return nodes, labels
        env = m.group(1) + m.group(2)
        close = f"\\end{{{env}}}"
        stop = body.find(close, m.end())
        if stop == -1:  # unbalanced LaTeX is leanblueprint's business, not a node
            i = m.end()
            continue
        inner_start = m.end()
        title = None
        tm = _TITLE.match(body, inner_start)
        if tm is not None:
            title = tm.group(1).strip() or None
            inner_start = tm.end()
        inner = body[inner_start:stop]
        after = stop + len(close)
        own_labels = _LABEL.findall(inner)
        if m.group(1) not in NODE_ENVS or not own_labels:
            i = m.end()  # nested environments (an equation with its label) are scanned too
            continue
        proof = None
        proof_uses: list[str] = []
        pm = _PROOF.match(body, after)
        if pm is not None:
            pstop = body.find("\\end{proof}", pm.end())
            if pstop != -1:
                ptext = body[pm.end():pstop]
                proof = _clean(ptext)
                proof_uses = _labels_of(_USES.findall(ptext))
                after = pstop + len("\\end{proof}")
        attr = BlueprintAttr(
            label=own_labels[0].strip(), statement=_clean(inner), proof=proof, title=title,
            uses=["label:" + x for x in _labels_of(_USES.findall(inner))],
            proof_uses=["label:" + x for x in proof_uses], latex_env=env,
            span=Span(start + m.start(), start + after))
        nodes.append(InformalNode(attr, pos(start + m.start()), pos(start + after),
                                  Span(start + m.start(), start + after)))
        i = after


def blueprint_comment(p: Scanner, at: int, end: int
                      ) -> tuple[int, list[InformalNode], set[str]]:
    """`blueprint_comment /-- … -/`: its own command (never part of the declaration before
    it); LaTeX environments with a `\\label` in it are informal nodes. Returns the end of
    the command (of its comment), its informal nodes and every `\\label` in it."""
    doc = p.doc_at.get(p.skip_ws_text(at + len("blueprint_comment"), end))
    if doc is None or doc.kind != "doc_comment":
        raise p.error(at, "`blueprint_comment` must be followed by a `/-- … -/` comment")
    if p.masked[doc.end:end].strip():
        raise p.error(doc.end, "unexpected text after the `blueprint_comment` comment")
    nodes, labels = informal_nodes(p.text, doc.start + 3, doc.end - 2, p.pos)
    return doc.end, nodes, labels
