"""Labels: declarations sharing one are the parts of one node; Lean names must be unique."""

from __future__ import annotations

from harness.blueprint.cursor import Scanner
from harness.blueprint.model import Decl


def check_labels(p: Scanner, decls: list[Decl]) -> None:
    """Declarations sharing a label are one node (LeanArchitect README, "Multiple Lean
    declarations"; Architect/Output.lean merges them by `getLeanNamesOfLatexLabel`): each
    is a part. Parts of unrelated kinds (a definition and a theorem) are allowed, but are
    worth a warning. A Lean name declared twice is an error Lean reports too."""
    by_label: dict[str, list[Decl]] = {}
    names: dict[str, Decl] = {}
    for d in decls:
        if d.blueprint is not None:
            by_label.setdefault(d.blueprint.label, []).append(d)
        if d.name is not None:
            first_n = names.get(d.name)
            if first_n is not None:
                p.finding("duplicate-name", p.starts[d.name_pos.line - 1] + d.name_pos.col,
                          f"`{d.name}` is declared twice (first at {first_n.name_pos})",
                          d.label)
            else:
                names[d.name] = d
    for label, parts in by_label.items():
        if len(parts) < 2:
            continue
        for d in parts:
            d.shared = d.name is not None  # an unnamed part keeps the label as its key
        if len({d.kind.is_proof for d in parts}) > 1:
            first, other = parts[0], next(d for d in parts if d.kind.is_proof
                                          != parts[0].kind.is_proof)
            span = other.blueprint.span  # type: ignore[union-attr]
            at = p.text.find(f'"{label}"', span.start, span.end)  # the shared label itself
            p.warn("label-collision", at if at >= 0 else span.start,
                   f"label `{label}` is shared by `{first.kind.value} {first.name}` and "
                   f"`{other.kind.value} {other.name}`: one node with both as parts",
                   label)
