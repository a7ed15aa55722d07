"""Check one node with a candidate body (what prover agents call in a loop).

The check file is the blueprint text up to the node's declaration, the candidate ``helpers``
inserted just before it, the node with its body replaced, then ``#print axioms`` for the node and
each helper. Everything after the node is dropped (later declarations cannot matter to it). A file
may end inside open namespaces/sections, so nothing needs closing.

Message positions are mapped back: ``region`` says where a message landed (``body``/``helpers``
carry ``candidate_line``/``candidate_col`` inside the candidate text; ``head``/``decl``/``context``
positions are rewritten to the user's file). Certification failures raise CannotCertify exactly as
in :mod:`harness.lean.verdict`.
"""

from __future__ import annotations

from pathlib import Path

from harness.blueprint.model import Blueprint, Decl, line_starts, pos_from_starts
from harness.errors import CannotCertify, HarnessError, UsageError
from harness.lean.messages import AxiomReport, LeanPos, parse_axioms
from harness.lean.run import DEFAULT_MEM_MB, DEFAULT_TIMEOUT_S
from harness.lean.toolchain import Toolchain
from harness.lean.compile import compile_text
from harness.lean.verdict import (
    LocatedMessage, NodeVerdict, match_report, root_name, verdict_for,
)


def _decl(bp: Blueprint, label_or_key: str) -> Decl:
    try:
        return bp.by_key(label_or_key)
    except KeyError:
        found = bp.by_name(label_or_key)
        if found is None:
            raise UsageError(f"{bp.display_path}: no node or declaration {label_or_key!r}") from None
        return found


def helper_decls(helpers: str, namespace: str) -> list[Decl]:
    """Declarations in the helper text, with names qualified by the node's namespace."""
    if not helpers.strip():
        return []
    from harness.blueprint.parse import parse_text

    try:
        hbp = parse_text(helpers, "<helpers>")
    except HarnessError:
        return []  # Lean will report the problem in the helpers region
    out = []
    for d in hbp.decls:
        if d.name and namespace and not d.name.startswith("_root_."):
            d.name = f"{namespace}.{d.name}"
        elif d.name and d.name.startswith("_root_."):
            d.name = d.name[len("_root_."):]
        out.append(d)
    return out


def build_check_text(bp: Blueprint, decl: Decl, body: str, helpers: str) -> tuple[str, dict[str, int]]:
    """The check text and the offsets of its parts (helpers, head, body, tail, axioms)."""
    if not decl.body_sep:
        raise UsageError(f"{bp.display_path}:{decl.pos.line}:{decl.pos.col}: {decl.key} has no "
                         "body to replace")
    text = bp.text
    prefix = text[:decl.span.start]
    htext = helpers.strip("\n") + "\n\n" if helpers.strip() else ""
    head = text[decl.span.start:decl.body_span.start]
    tail = text[decl.body_span.end:decl.span.end]
    marks = {"helpers": len(prefix)}
    marks["head"] = marks["helpers"] + len(htext)
    marks["body"] = marks["head"] + len(head)
    marks["tail"] = marks["body"] + len(body)
    marks["end"] = marks["tail"] + len(tail)
    return prefix + htext + head + body + tail + "\n\n", marks


def check_node(tc: Toolchain, workspace: Path, bp: Blueprint, label_or_key: str, body: str,
               helpers: str = "", *, timeout_s: float = DEFAULT_TIMEOUT_S,
               mem_mb: int | None = DEFAULT_MEM_MB) -> NodeVerdict:
    decl = _decl(bp, label_or_key)
    check, marks = build_check_text(bp, decl, body, helpers)
    hdecls = helper_decls(helpers, decl.scope.namespace)
    targets = ([decl] if decl.name else []) + [h for h in hdecls if h.name]
    first_axiom_line = check.count("\n") + 1
    by_line = {first_axiom_line + i: d for i, d in enumerate(targets)}
    check += "".join(f"#print axioms {root_name(d.name)}\n" for d in targets)
    messages, _res = compile_text(tc, workspace, check, stem=f"node-{Path(bp.display_path).stem}",
                                  timeout_s=timeout_s, mem_mb=mem_mb,
                                  module=tc.module_of(bp.path))

    starts = line_starts(check)
    hstart, shift = marks["helpers"], marks["head"] - marks["helpers"]
    helper_text = check[marks["helpers"]:marks["head"]]
    located: list[LocatedMessage] = []
    reports: dict[int, AxiomReport] = {}
    axiom_errors = False
    for m in messages:
        lm = LocatedMessage(**{**m.model_dump(), "file": bp.display_path})
        if m.pos.line in by_line:
            target = by_line[m.pos.line]
            rep = parse_axioms(m)
            if rep is not None and match_report(target, rep):
                reports[id(target)] = rep
                continue
            axiom_errors = axiom_errors or m.is_error or rep is not None
            lm.region = "axioms"
            located.append(lm)
            continue
        if not 1 <= m.pos.line <= len(starts):
            lm.region = "file"
            located.append(lm)
            continue
        off = starts[m.pos.line - 1] + m.pos.col
        if off < hstart:
            lm.region = "context"
        elif off < marks["head"]:
            lm.region = "helpers"
            _candidate(lm, helper_text, off - hstart)
        elif marks["body"] <= off < marks["tail"] or (off == marks["tail"] and m.is_error):
            lm.region = "body"
            _candidate(lm, body, off - marks["body"])
        elif off < marks["body"]:
            lm.region = "head"
            _user_pos(lm, bp, off - shift)
        else:  # after the candidate body: the original tail of the declaration
            lm.region = "decl"
            _user_pos(lm, bp, min(decl.body_span.end + off - marks["tail"], decl.span.end))
        located.append(lm)

    node_report = reports.get(id(decl))
    if decl.name and node_report is None and not axiom_errors and not any(
            m.is_error for m in located if m.region != "context"):
        raise CannotCertify(f"{bp.display_path}:{decl.pos.line}:{decl.pos.col}: Lean gave no axiom "
                            f"report for {decl.name}")
    extra = [a for h in hdecls if id(h) in reports for a in reports[id(h)].forbidden]
    return verdict_for(decl, located, node_report, line=decl.pos.line, axiom_errors=axiom_errors,
                       extra_forbidden=extra)


def _candidate(lm: LocatedMessage, text: str, rel: int) -> None:
    p = pos_from_starts(line_starts(text), max(0, min(rel, len(text))))
    lm.candidate_line, lm.candidate_col = p.line, p.col


def _user_pos(lm: LocatedMessage, bp: Blueprint, offset: int) -> None:
    p = bp.pos_of(max(0, offset))
    lm.pos = LeanPos(line=p.line, col=p.col)
    lm.end_pos = None  # the end may lie in the candidate; the start is what matters
