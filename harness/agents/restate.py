"""Restate's contract (stage 1's compile repair) and refine's (the audit fix-up), on a new text.

Only the allowed declarations may change: for restate, the statements Lean rejected; for refine,
the nodes the audit findings name. Everything else — other declarations with their proofs, and
the text between declarations — stays byte-identical, so a partly proved file can be repaired.
A refine may also add placeholder nodes (a finding about a missing result): lemma/theorem
blueprint nodes whose body is `sorry`/`sorry_using` and whose name no untouched declaration
after them mentions — never a definition or instance, which would change what the untouched
statements mean; the text around them may gain blank lines, nothing else.
"""

from __future__ import annotations

import re
from typing import Any

from harness.agents.contracts import statement_violations
from harness.blueprint.dag import analyse
from harness.blueprint.model import BodyStatus, Blueprint, DeclKind
from harness.blueprint.parse import parse_text
from harness.errors import HarnessError

_IDENT = re.compile(r"[^\W\d][\w.'!?₀-₉]*")

# why a declaration may change, by step: restate (Lean's errors) or refine (audit findings)
_REASON = {"restate": ("Lean reported no error in it", "the statements Lean rejects"),
           "refine": ("no audit finding names it", "the nodes the audit findings name")}


def restate_problems(old: Blueprint, lean: str, allowed: set[str], *, step: str = "restate"
                     ) -> list[str]:
    """The restate contract on a new text. Only the ``allowed`` declarations (the nodes Lean
    rejected; for ``step="refine"``, the nodes the audit findings name) may change; everything
    else — other declarations with their proofs, and the text between declarations — stays
    byte-identical. A restated theorem keeps its proof or has it
    reset to a `sorry`/`sorry_using` placeholder (never a new proof: proofs go through stage
    2's gate); a restated node keeps its label. The new text must parse, add no plan finding,
    and its restated declarations use no forbidden construct. Unlike construct, a partly
    proved file is fine: its complete proofs are simply kept."""
    try:
        new = parse_text(lean, old.path)
    except HarnessError as err:
        return [err.line()]
    old_keys = {d.key for d in old.decls}
    # a refine may add placeholder nodes (a finding about a missing result); restate may not
    added = [nd for nd in new.decls if nd.key not in old_keys] if step == "refine" else []
    kept = [nd for nd in new.decls if nd.key in old_keys] if step == "refine" else new.decls
    if [d.key for d in kept] != [d.key for d in old.decls]:
        gone = sorted(old_keys - {d.key for d in new.decls})
        new_keys = sorted({d.key for d in new.decls} - old_keys)
        return ["the declarations must stay the same, in the same order"
                + (" (new placeholder nodes may be added)" if step == "refine" else "")
                + (f"; missing: {', '.join(gone)}" if gone else "")
                + (f"; new: {', '.join(new_keys)}" if new_keys and step != "refine" else "")]
    pairs = list(zip(old.decls, kept))
    restated = [(d.label or d.key) in allowed or d.key in allowed for d, _ in pairs]
    touched = [pair for pair, r in zip(pairs, restated) if r]
    unnamed = [nd for (_, nd), r in zip(pairs, restated) if not r]
    why, only = _REASON[step]
    problems = [f"{d.label or d.key} changed, but {why}: change only {only}"
                for (d, nd), r in zip(pairs, restated) if not r
                and old.text[d.span.start:d.span.end] != new.text[nd.span.start:nd.span.end]]
    if not problems and _blank_lines(outside(old, [d for d, _ in touched]), added) != \
            _blank_lines(_outside_without(new, [nd for _, nd in touched], added), added):
        problems.append("text between the declarations changed (an `open`, `variable`, "
                        "`set_option`, …): keep everything but the rejected statements "
                        "byte-identical")
    problems += _added_problems(new, added, unnamed)
    for d, nd in touched:
        name = d.label or d.key
        problems += [f"{name}: {v}" for v in
                     statement_violations(new.text[nd.span.start:nd.span.end])]
        if nd.label != d.label:
            problems.append(f"{name}: keep its blueprint attribute and label")
        if d.kind.is_proof and _body(old, d) != _body(new, nd) and nd.status not in (
                BodyStatus.SORRY, BodyStatus.SORRY_USING):
            problems.append(f"{name}: keep its proof as it is, or reset it to a `sorry` "
                            f"placeholder if it no longer fits; a {step} writes no new proof")
        if d.kind.is_definition and not nd.status.is_complete \
                and nd.status != BodyStatus.NO_BODY:
            problems.append(f"{name}: definition is incomplete (definitions must be complete)")
    before = {_unplaced(f.line()) for f in analyse(old).findings}
    problems += [f.line() for f in analyse(new).findings if _unplaced(f.line()) not in before]
    return problems


def outside(bp: Blueprint, decls: list[Any]) -> list[str]:
    """The text of ``bp`` around ``decls`` (in file order), in pieces; the file's final
    newline aside (a fenced answer loses it; the caller puts it back)."""
    out, at = [], 0
    for d in decls:
        out.append(bp.text[at:d.span.start])
        at = d.span.end
    return out + [bp.text[at:].rstrip("\n")]


def _outside_without(bp: Blueprint, decls: list[Any], added: list[Any]) -> list[str]:
    """:func:`outside` of ``decls`` with the ``added`` declarations cut out: the pieces on
    either side of an added one join (blank lines around it do not count)."""
    if not added:
        return outside(bp, decls)
    new = {id(d) for d in added}
    cut = sorted([*decls, *added], key=lambda d: d.span.start)
    pieces = outside(bp, cut)
    out = [pieces[0]]
    for d, piece in zip(cut, pieces[1:]):
        if id(d) in new:
            out[-1] = out[-1].rstrip() + "\n\n" + piece.lstrip()
        else:
            out.append(piece)
    return out


def _blank_lines(pieces: list[str], loose: list[Any]) -> list[str]:
    """Exact pieces; with nodes added, runs of blank lines count as one blank line."""
    return [re.sub(r"\n\s*\n", "\n\n", p) for p in pieces] if loose else pieces


def _added_problems(new: Blueprint, added: list[Any], unnamed: list[Any]) -> list[str]:
    """A declaration a refine adds: only a lemma/theorem blueprint node with a placeholder body
    (a definition, instance, notation … would change what the untouched statements mean), no
    forbidden construct, and a name no untouched declaration after it mentions (it would be
    shadowed there: the same text, another meaning)."""
    problems = []
    for nd in added:
        name = nd.label or nd.key
        problems += [f"{name}: {v}" for v in
                     statement_violations(new.text[nd.span.start:nd.span.end])]
        if nd.kind not in (DeclKind.THEOREM, DeclKind.LEMMA) or not nd.is_node:
            problems.append(f"{name}: a refine may add only lemma/theorem blueprint nodes "
                            "(@[blueprint \"label\" ...]) with a placeholder body")
            continue
        if nd.status not in (BodyStatus.SORRY, BodyStatus.SORRY_USING):
            problems.append(f"{name}: a new node's body is a `sorry`/`sorry_using` placeholder "
                            "(a refine writes no proof)")
        names = {n for n in (nd.name, nd.short_name) if n}
        names |= {n.rsplit(".", 1)[-1] for n in names}
        for d in unnamed:
            if d.span.start > nd.span.start and names & set(
                    _IDENT.findall(new.text[d.span.start:d.span.end])):
                problems.append(f"{name}: {d.label or d.key} (unchanged) mentions its name; "
                                "choose a name nothing after it uses")
                break
    return problems


def _body(bp: Blueprint, d: Any) -> str:
    return bp.text[d.body_span.start:d.body_span.end] if d.body_sep else ""


def _unplaced(line: str) -> str:
    """A finding without its FILE:LINE:COL (a restate moves the lines below it)."""
    return line.split(": ", 1)[-1]
