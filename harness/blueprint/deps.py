"""Dependencies of each declaration, without Lean.

Statement-deps come from the signature (names) and `uses`; proof-deps from the body (names),
`proofUses` and `sorry_using`. Prose `\\cref`/`\\ref` are links, not dependencies (LeanArchitect
infers dependencies from Lean only): :mod:`harness.blueprint.links`.
Names resolve the way Lean does for the common cases: the current namespace and its parents, the
declaration's own namespace prefix, `open`ed namespaces, and `_root_`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from harness.blueprint.lexer import IDENT, strip_guillemets
from harness.blueprint.model import Blueprint, Decl, DeclKind, Finding
from harness.blueprint.names import (
    Locals, Notation, decl_locals, is_named_argument, notations, type_head,
)

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
    """Maps written names to declarations with Lean's rules (lean4 src/Lean/ResolveName.lean,
    `ResolveName.resolveGlobalName`): the current namespace and its parents (first match wins),
    the exact name, `_root_`, every `open`ed namespace; and, when no prefix of the written name
    is a declaration, trailing components are projections (`foo.mp`, `h.symm`: the constant is
    `foo`, the `loop p (s::projs)` step there)."""

    def __init__(self, *blueprints: Blueprint,
                 visible: Callable[[Blueprint, Blueprint], bool] | None = None) -> None:
        """``visible(a, b)``: may file ``a`` use Lean names of file ``b`` (does it import it)?
        None: every name is visible. Labels are global either way (LeanArchitect's labels
        are project-wide)."""
        self.visible = visible
        self._alts: dict[str, list[Decl]] = {}  # a name declared in several files
        self.by_name: dict[str, Decl] = {}
        self.by_label: dict[str, Decl] = {}
        # labels that name no declaration of ours but are known: `attribute [blueprint]` on
        # Mathlib declarations, and `\label{…}` equations inside the prose
        self.known_labels: set[str] = prose_labels(*blueprints)
        self.blueprints = blueprints
        self.file_of: dict[int, Blueprint] = {}
        for bp in blueprints:
            self.known_labels.update(bp.tagged)
            self.known_labels.update(bp.prose_labels)  # `blueprint_comment`: informal nodes
            for d in bp.decls:
                self.file_of[id(d)] = bp
        for d in (d for bp in blueprints for d in bp.decls):
            if d.name is not None:
                first = self.by_name.setdefault(d.name, d)
                if first is not d:
                    self._alts.setdefault(d.name, [first]).append(d)
            if d.blueprint is not None:
                self.by_label.setdefault(d.blueprint.label, d)
        # last atoms, so a token that cannot be ours is rejected with a few set lookups
        self.tails = {n.rsplit(".", 1)[-1] for n in self.by_name}
        self._type_heads: dict[int, Decl | None] = {}
        self._notations: list[tuple[Notation, Blueprint, set[str]]] | None = None
        self._instances: dict[str, list[Decl]] | None = None

    def resolve(self, written: str, d: Decl, prefixes: list[str] | None = None) -> Decl | None:
        hit = self.resolve_dotted(written, d, prefixes)
        return hit[0] if hit is not None else None

    def resolve_dotted(self, written: str, d: Decl, prefixes: list[str] | None = None
                       ) -> tuple[Decl, list[str]] | None:
        """The declaration a written name refers to and the projections applied to it."""
        name = strip_guillemets(written) if "«" in written else written
        root = name.startswith("_root_.")
        if root:
            name = name[len("_root_."):]
        atoms = name.split(".")
        tails = self.tails
        if not any(a in tails for a in atoms):
            return None  # cannot be one of ours (a local, a Mathlib name)
        pre = prefixes if prefixes is not None else self._prefixes(d)
        for k in range(len(atoms), 0, -1):
            if atoms[k - 1] not in tails:
                continue
            cand = ".".join(atoms[:k]) if k < len(atoms) else name
            hit = self.get(cand, d) if root else self.lookup(cand, pre, d.scope.opens, d)
            if hit is not None:
                return hit, atoms[k:]
        return None

    def get(self, full: str, d: Decl) -> Decl | None:
        """The declaration named ``full`` that ``d`` can see: one of an imported file (when
        ``visible`` is known), or one earlier in its own file — Lean's environment holds only
        what was declared before (members of one `mutual` block see each other)."""
        hit = self.by_name.get(full)
        if hit is None:
            return None
        src = self.file_of.get(id(d))
        if src is None:
            return hit
        for cand in self._alts.get(full, (hit,)):
            f = self.file_of.get(id(cand))
            if f is src:
                if cand.span.start < d.span.start or (
                        cand.group is not None and cand.group == d.group):
                    return cand
            elif f is None or self.visible is None or self.visible(src, f):
                return cand
        return None

    def later(self, written: str, d: Decl) -> Decl | None:
        """A declaration of ``d``'s own file after it that ``written`` would name (for the
        message of a forward reference, which Lean rejects as an unknown identifier)."""
        name = strip_guillemets(written).removeprefix("_root_.")
        src = self.file_of.get(id(d))
        for p in self._prefixes(d):
            hit = self.by_name.get(f"{p}.{name}" if p else name)
            if hit is not None and self.file_of.get(id(hit)) is src:
                return hit
        return None

    def lookup(self, name: str, prefixes: list[str], opens: tuple[str, ...], d: Decl
               ) -> Decl | None:
        for p in prefixes:
            hit = self.get(f"{p}.{name}" if p else name, d)
            if hit is not None:
                return hit
        for o in opens:
            hit = self.get(f"{o}.{name}", d)
            if hit is not None:
                return hit
        return None

    @staticmethod
    def _prefixes(d: Decl) -> list[str]:
        """The namespaces a declaration's text is elaborated in, innermost first. `theorem
        P.init.le` inside `namespace NS` is elaborated inside `namespace NS.P.init` (lean4
        src/Lean/Elab/Declaration.lean, `expandDeclNamespace?`), so it sees `NS.P.init.x`,
        `NS.P.x`, `NS.x` and `x`; a `_root_.` name opens no namespace."""
        ns = list(d.scope.namespaces)
        short = d.short_name
        if short and "." in short:
            plain = strip_guillemets(short) if "«" in short else short
            if not plain.startswith("_root_."):
                ns.extend(plain.split(".")[:-1])
        return [".".join(ns[:i]) for i in range(len(ns), -1, -1)]

    def type_of(self, d: Decl) -> Decl | None:
        """Our declaration heading ``d``'s type (`S` for `def p : S a := …`), if any."""
        key = id(d)
        if key not in self._type_heads:
            bp = self.file_of.get(key)
            head = type_head(bp.masked_text(), d) if bp is not None else None
            self._type_heads[key] = self.resolve(head, d) if head else None
        return self._type_heads[key]

    def get_decl(self, cand: Decl, d: Decl) -> bool:
        """May ``d`` see ``cand`` (imported, or earlier in its own file)?"""
        f, src = self.file_of.get(id(cand)), self.file_of.get(id(d))
        if f is src:
            return cand.span.start < d.span.start
        return f is None or src is None or self.visible is None or self.visible(src, f)

    def instances(self) -> dict[str, list[Decl]]:
        """Our instances by their class as written (`Fact` for `instance : Fact (p.Prime)`).
        Lean finds an instance by its class, not its name: a declaration that uses the class
        after the instance may rest on it (and, through it, on the nodes it is built from)."""
        if self._instances is None:
            self._instances = {}
            for bp in self.blueprints:
                for d in bp.decls:
                    if d.kind is DeclKind.INSTANCE and (head := type_head(bp.masked_text(), d)):
                        self._instances.setdefault(head, []).append(d)
        return self._instances

    def field(self, owner: Decl | None, projs: list[str], d: Decl) -> Decl | None:
        """`owner.f` for field notation `x.f` with `x : owner …` (lean4 src/Lean/Elab/App.lean,
        `resolveLValAux`)."""
        if owner is None or owner.name is None or not projs:
            return None
        return self.get(f"{owner.name}.{projs[0]}", d)

    def notations(self) -> list[tuple[Notation, Blueprint, set[str]]]:
        """Every notation of the known files with the declarations its expansion names."""
        if self._notations is None:
            self._notations = []
            for bp in self.blueprints:
                m = bp.masked_text()
                for n in notations(bp):
                    near = _decl_near(bp, n.command.span.start)
                    keys: set[str] = set()
                    if near is not None:
                        pre = _namespace_prefixes(near)  # the command's own namespace
                        for tok, _ in tokens_in(m, *n.expansion):
                            hit = self.resolve(tok, near, pre)
                            if hit is not None:
                                keys.add(hit.key)
                    if keys:
                        self._notations.append((n, bp, keys))
        return self._notations


def _namespace_prefixes(d: Decl) -> list[str]:
    ns = list(d.scope.namespaces)
    return [".".join(ns[:i]) for i in range(len(ns), -1, -1)]


def _decl_near(bp: Blueprint, offset: int) -> Decl | None:
    """The scope a command at ``offset`` sees: that of the next declaration (else the last)."""
    for d in bp.decls:
        if d.span.start >= offset:
            return d
    return bp.decls[-1] if bp.decls else None


def tokens_in(masked: str, start: int, end: int) -> list[tuple[str, int]]:
    """Identifier tokens in a masked range with their offsets (`.foo` accesses skipped)."""
    out = []
    for m in IDENT.finditer(masked, start, end):
        s = m.start()
        if s > 0 and (masked[s - 1] in ".'" or masked[s - 1].isdigit()):  # `4.5e-9`
            continue
        out.append((m.group(0), s))
    return out


def names_in(masked: str, start: int, end: int) -> list[str]:
    """Identifier tokens in a masked range (field accesses like `.foo` are skipped)."""
    return [t for t, _ in tokens_in(masked, start, end)]


def has_proof_part(d: Decl) -> bool:
    """LeanArchitect's `hasProof`: the option, else a `proof` text, else "was a theorem"
    (Architect/Attribute.lean, `hasProof`). Without a proof part every use, the body's
    included, is a statement use (`mkNode` / `Node.inferUses`: `statementUsed ∪ proofUsed`)."""
    b = d.blueprint
    if b is not None and b.has_proof is not None:
        return b.has_proof
    if b is not None and b.proof is not None:
        return True
    return d.kind.is_proof


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

    nots = [(n, nbp, keys) for n, nbp, keys in r.notations() if nbp is bp or not n.local]
    insts = r.instances()

    def add_names(d: Decl, target: set[str], start: int, end: int, in_body: bool,
                  loc: Locals) -> None:
        prefixes = r._prefixes(d)
        for tok, s in tokens_in(masked, start, end):
            if s in loc.sites or is_named_argument(masked, s, s + len(tok), in_body=in_body):
                continue
            for inst in insts.get(tok, ()):  # a use of a class an instance of ours provides
                if inst is not d and r.get_decl(inst, d):
                    target.add(inst.key)
            first = tok.split(".", 1)[0]
            b = loc.at(strip_guillemets(first) if "«" in first else first, s)
            if b is not None:  # a local: `x.f` is field notation on its type
                if b.type_head and "." in tok:
                    owner = r.resolve(b.type_head, d, prefixes)
                    hit = r.field(owner, tok.split(".")[1:], d)
                    if hit is not None and hit is not d:
                        target.add(hit.key)
                continue
            res = r.resolve_dotted(tok, d, prefixes)
            if res is None:
                continue
            hit, projs = res
            if hit is not d:
                target.add(hit.key)
            if projs:  # `p.f` on a constant `p : S`: also `S.f`
                fld = r.field(r.type_of(hit), projs, d)
                if fld is not None and fld is not d:
                    target.add(fld.key)
        for n, nbp, keys in nots:  # a notation is usable after its command
            if (nbp is not bp or n.command.span.start < d.span.start) and \
                    n.occurs(masked, start, end):
                target.update(k for k in keys if k != d.key)

    for d in bp.decls:
        dd = DeclDeps()
        loc = decl_locals(masked, d)
        add_names(d, dd.statement, d.signature_span.start, d.signature_span.end, False, loc)
        add_names(d, dd.proof, d.body_span.start, d.body_span.end, True, loc)
        for name in d.sorry_using:
            hit = r.resolve(name, d)
            if hit is None:
                later = r.later(name, d)
                where = (f"declared only later in this file (line {later.pos.line}; Lean sees "
                         "earlier declarations only)" if later is not None else
                         "declared neither in this file nor in its imports")
                findings.append(Finding("dangling-name", f"`sorry_using` names `{name}`, which "
                                        f"is {where}", path, bp.pos_of(d.body_span.start),
                                        d.label))
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
        if not has_proof_part(d):  # before `-x` exclusions: they apply to the merged set
            dd.statement |= dd.proof
            dd.proof = set()
        if bpa is not None:
            for items, target in ((bpa.uses, dd.statement), (bpa.proof_uses, dd.statement
                                  if not has_proof_part(d) else dd.proof)):
                for item in items:  # `-x` excludes an inferred dependency
                    if item.startswith("-"):
                        body = item[1:]
                        hit = (r.by_label.get(body[len("label:"):]) if body.startswith("label:")
                               else r.resolve(body, d))
                        if hit is not None:
                            target.discard(hit.key)
        deps[d.key] = dd
    return deps, findings
