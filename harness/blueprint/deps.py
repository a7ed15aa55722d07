"""Dependencies of each declaration, without Lean.

Statement-deps come from the signature (names) and `uses`; proof-deps from the body (names),
`proofUses` and `sorry_using`. Prose `\\cref`/`\\ref` are links, not dependencies (LeanArchitect
infers dependencies from Lean only): :mod:`harness.blueprint.links`.
Names resolve the way Lean does for the common cases: the current namespace and its parents, the
declaration's own namespace prefix, `open`ed namespaces, and `_root_`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness.blueprint.lexer import IDENT, strip_guillemets
from harness.blueprint.model import Blueprint, Decl, Finding

_CREF = re.compile(r"\\([cC]ref|ref|uses)\{([^}]*)\}")
_LABEL = re.compile(r"\\label\{([^}]*)\}")


@dataclass(slots=True)
class DeclDeps:
    statement: set[str] = field(default_factory=set)  # keys of declarations
    proof: set[str] = field(default_factory=set)


def cref_labels(prose: str | None) -> list[str]:
    return [label for _, label in cref_refs(prose)]


def cref_refs(prose: str | None) -> list[tuple[str, str]]:
    """(macro, label) for every `\\cref{a,b}` / `\\Cref{…}` / `\\ref{…}` in the prose."""
    if not prose:
        return []
    out: list[tuple[str, str]] = []
    for m in _CREF.finditer(prose):
        out.extend((m.group(1), x.strip()) for x in m.group(2).split(",") if x.strip())
    return out


def prose_labels(*blueprints: Blueprint) -> set[str]:
    """`\\label{…}`s defined inside the prose (equations): `\\ref`s to them are not nodes."""
    out: set[str] = set()
    for bp in blueprints:
        for d in bp.decls:
            b = d.blueprint
            if b is not None:
                for prose in (b.statement, b.proof):
                    out.update(_LABEL.findall(prose or ""))
    return out


class Resolver:
    """Maps written names to declaration keys, with Lean's namespace rules."""

    def __init__(self, *blueprints: Blueprint) -> None:
        self.by_name: dict[str, Decl] = {}
        self.by_label: dict[str, Decl] = {}
        # labels that name no declaration of ours but are known: `attribute [blueprint]` on
        # Mathlib declarations, and `\label{…}` equations inside the prose
        self.known_labels: set[str] = prose_labels(*blueprints)
        for bp in blueprints:
            self.known_labels.update(bp.tagged)
            self.known_labels.update(bp.prose_labels)  # `blueprint_comment`: informal nodes
        for d in (d for bp in blueprints for d in bp.decls):
            if d.name is not None:
                self.by_name.setdefault(d.name, d)
            if d.blueprint is not None:
                self.by_label.setdefault(d.blueprint.label, d)
        # last atoms, so a token that cannot be ours is rejected with one dict lookup
        self.tails = {n.rsplit(".", 1)[-1] for n in self.by_name}

    def resolve(self, written: str, d: Decl, prefixes: list[str] | None = None) -> Decl | None:
        name = strip_guillemets(written) if "«" in written else written
        if name.startswith("_root_."):
            return self.by_name.get(name[len("_root_."):])
        if name.rsplit(".", 1)[-1] not in self.tails:
            return None  # cannot be one of ours (a local, a Mathlib name, a projection)
        for p in prefixes if prefixes is not None else self._prefixes(d):
            hit = self.by_name.get(f"{p}.{name}" if p else name)
            if hit is not None:
                return hit
        for o in d.scope.opens:
            hit = self.by_name.get(f"{o}.{name}")
            if hit is not None:
                return hit
        return None

    @staticmethod
    def _prefixes(d: Decl) -> list[str]:
        ns = list(d.scope.namespaces)
        out = [".".join(ns[:i]) for i in range(len(ns), -1, -1)]
        if d.name and "." in d.name:  # `theorem Foo.bar` opens `Foo` for its own body
            own = d.name.rsplit(".", 1)[0]
            if own not in out:
                out.insert(0, own)
        return out


def names_in(masked: str, start: int, end: int) -> list[str]:
    """Identifier tokens in a masked range (field accesses like `.foo` are skipped)."""
    out = []
    for m in IDENT.finditer(masked, start, end):
        s = m.start()
        if s > 0 and masked[s - 1] in ".'":
            continue
        out.append(m.group(0))
    return out


def collect(bp: Blueprint, masked: str, resolver: Resolver | None = None
            ) -> tuple[dict[str, DeclDeps], list[Finding]]:
    """Dependencies of every declaration (keyed by ``Decl.key``) and dangling-reference findings.

    ``resolver`` may also know the declarations of imported blueprint files, so that a
    `sorry_using`, `uses` or `\\cref` naming a node of an earlier layer file resolves.
    """
    r = resolver or Resolver(bp)
    deps: dict[str, DeclDeps] = {}
    findings: list[Finding] = []
    path = bp.display_path

    def add_names(d: Decl, target: set[str], tokens: list[str]) -> None:
        prefixes = r._prefixes(d)
        for tok in tokens:
            hit = r.resolve(tok, d, prefixes)
            if hit is not None and hit is not d:
                target.add(hit.key)

    for d in bp.decls:
        dd = DeclDeps()
        add_names(d, dd.statement, names_in(masked, d.signature_span.start, d.signature_span.end))
        add_names(d, dd.proof, names_in(masked, d.body_span.start, d.body_span.end))
        for name in d.sorry_using:
            hit = r.resolve(name, d)
            if hit is None:
                findings.append(Finding("dangling-name", f"`sorry_using` names `{name}`, which is "
                                        "declared neither in this file nor in its imports", path,
                                        bp.pos_of(d.body_span.start), d.label))
            elif hit is not d:
                dd.proof.add(hit.key)
        bpa = d.blueprint
        if bpa is not None:  # prose `\\ref`/`\\cref` are links, not edges: see links.py
            for items, target, fname in ((bpa.uses, dd.statement, "uses"),
                                         (bpa.proof_uses, dd.proof, "proofUses")):
                for item in items:
                    if item.startswith("-"):
                        continue
                    is_label = item.startswith("label:")
                    hit = r.by_label.get(item[len("label:"):]) if is_label else r.resolve(item, d)
                    # a name that is not ours may be a Mathlib constant: Lean checks those
                    if hit is None and is_label and item[len("label:"):] not in r.known_labels:
                        shown = item.removeprefix("label:")
                        findings.append(Finding(
                            "dangling-use", f"`{fname}` of `{bpa.label}` names `{shown}`, which "
                            "is neither in this file nor in its imports", path,
                            bp.pos_of(bpa.span.start), bpa.label))
                    elif hit is not None and hit is not d:
                        target.add(hit.key)
            for items, target in ((bpa.uses, dd.statement), (bpa.proof_uses, dd.proof)):
                for item in items:  # `-x` excludes an inferred dependency
                    if item.startswith("-"):
                        body = item[1:]
                        hit = (r.by_label.get(body[len("label:"):]) if body.startswith("label:")
                               else r.resolve(body, d))
                        if hit is not None:
                            target.discard(hit.key)
        deps[d.key] = dd
    return deps, findings
