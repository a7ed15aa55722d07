"""Which constants a proof mentions, read from its text as Lean's name resolution would (pure).

The premise benchmark's gold set is the corpus declarations a proof mentions. An identifier in a
proof is not always a constant:

- names the proof binds (`fun x`, `intro h`, `obtain ⟨a, b⟩`, `have h :`, `with x hx`,
  `| succ n ih =>`, …) and the theorem's own binders shadow constants of the same name;
- a case tag (`| zero =>`), a named argument (`(μ := μ)`) or a structure-instance field
  (`mgf_le := …` in a `where`) is not a reference;
- `c.f` where `c` is a constant is generalized field notation on `c`: Lean resolves the longest
  prefix that is a declaration and reads the rest as projections (lean4 `src/Lean/ResolveName.lean`,
  `resolveGlobalName`: `| [] => loop p (s::projs)`), so `exp_pos.le` mentions `exp_pos`;
  `h.trans` on a local `h` mentions nothing we can name without types.

:func:`resolve` follows `resolveGlobalName`'s order: the enclosing namespaces innermost first,
then the root and the opened namespaces (a `protected` name is never found by its last
component alone, not through `open` and not inside its own namespace), then the projection
fallback.
"""

from __future__ import annotations

import re

from harness.library.names import IDENT, KEYWORDS, identifiers

_ID = r"[^\W\d][\w'!?\u2080-\u209c]*"
# binders a tactic or term introduces: the keyword, then the text up to where the bound names end
# (a lookahead, so that two `fun`s on one line are both read)
_BINDING = re.compile(
    r"(?<![\w'.])(?:fun|λ|intro|intros|rintro|obtain|rename_i|ext|ext1|choose!?|by_cases|"
    r"by_contra!?|contrapose!?|set|generalize|next|case)[ \t]+(?=(?P<b>[^\n]*))")
# `have h x : T :=` names `h` (and `x`); `suffices T by` and `have : T` name nothing
_HAVE = re.compile(r"(?<![\w'.])(?:(?:have|haveI|let|letI|replace)[ \t]+(?P<b>" + _ID
                   + r"(?:[ \t]+" + _ID + r")*)[ \t]*(?=[:(\[{⦃])|suffices[ \t]+(?P<s>" + _ID
                   + r")[ \t]*(?=:))")
_WITH = re.compile(r"(?<![\w'.])with[ \t]+(?=(?P<b>[^\n]*))")
_ALT = re.compile(r"^\s*\|\s*(?P<b>[^\n]*?)=>", re.M)  # `| succ n ih =>`: tag and locals
_FIELD = re.compile(r"^\s*(?P<n>" + _ID + r")(?:\s+" + _ID + r")*\s*:=", re.M)  # `where` fields
_NAMED = re.compile(r"[({,]\s*(?P<n>" + _ID + r")\s*:=")  # `(μ := μ)`, `{ x := 1 }`
_STOP = re.compile(r"=>|↦|:=|<;>|;|·|(?<![\w'])(?:using|from|at|in|by)(?![\w'])|:")


def _bound_part(text: str) -> str:
    """The part of a binding clause that holds the names: up to `=>`, `:=`, `:`, `using`, …;
    type ascriptions inside parentheses (`fun (h : p x) =>`) are cut out first."""
    text = re.sub(r":[^()⟨⟩\[\]{}]*(?=[)\]}])", "", text)
    m = _STOP.search(text)
    return text[:m.start()] if m else text


def local_names(body: str, binders: set[str] = frozenset()) -> set[str]:
    """Names a proof binds (and the theorem's own binder names): never constants inside it."""
    out = set(binders)
    for rx in (_BINDING, _WITH, _ALT):
        for m in rx.finditer(body):
            out.update(re.findall(_ID, _bound_part(m.group("b"))))
    for m in _HAVE.finditer(body):
        out.update((m.group("b") or m.group("s")).split())
    return out - KEYWORDS


def not_references(body: str) -> set[str]:
    """Identifiers in positions that are not references: case tags, named arguments and
    structure-instance fields."""
    out = {m.group("n") for rx in (_FIELD, _NAMED) for m in rx.finditer(body)}
    for m in _ALT.finditer(body):
        words = re.findall(_ID, m.group("b"))
        if words:
            out.add(words[0])
    return out


def mentions(body: str, binders: set[str] = frozenset()) -> list[str]:
    """Identifiers of a (masked) proof that may name constants, in order, each once; a dotted
    identifier whose head is a local (`h.trans`, `hx.le`) is dropped."""
    locs = local_names(body, binders)
    skip = not_references(body) | locs
    out: list[str] = []
    for ident in dict.fromkeys(identifiers(body)):
        head = ident.removeprefix("@").split(".", 1)[0]
        if ident in skip or head in locs:
            continue
        out.append(ident)
    return out


def resolve(ident: str, namespace: str, opens: tuple[str, ...], names: set[str],
            protected: set[str]) -> str | None:
    """The declaration ``ident`` names from ``namespace`` with ``opens``, or None."""
    ident = ident.removeprefix("@")
    parts = ident.split(".")
    for k in range(len(parts), 0, -1):  # the projection fallback: `c.f.g` -> `c.f` -> `c`
        got = _resolve_exact(".".join(parts[:k]), namespace, opens, names, protected)
        if got:
            return got
    return None


def _resolve_exact(ident: str, namespace: str, opens: tuple[str, ...], names: set[str],
                   protected: set[str]) -> str | None:
    if ident.startswith("_root_."):
        ident = ident.removeprefix("_root_.")
        return ident if ident in names else None
    atomic = "." not in ident
    ns = namespace.split(".") if namespace else []
    for i in range(len(ns), 0, -1):
        c = ".".join([*ns[:i], ident])
        # a `protected` name is not found by its last component, not even inside its own
        # namespace (ResolveName.lean, `resolveQualifiedName`: `!id.isAtomic || !isProtected`)
        if c in names and not (atomic and c in protected):
            return c
    if ident in names:
        return ident
    for o in opens:
        c = f"{o}.{ident}"
        if c in names and not (atomic and c in protected):
            return c
    return None


__all__ = ["IDENT", "local_names", "mentions", "not_references", "resolve"]
