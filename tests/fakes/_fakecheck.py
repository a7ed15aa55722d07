"""`#check (@X)` / `#check @X` for the Lean test doubles: a deterministic "elaborated type".

Real Lean answers ``set_option pp.all true in #check (@X)`` with one information message at the
`#check` token (kind ``[anonymous]``, endPos at the end of `#check`) whose data is
``@X : <type>`` — the type fully explicit, notation unfolded. The fake imitates the part the
gate relies on: the type depends on more than the declaration's own text. Its rule:

* the signature (binders and type, up to the top-level ``:=``/``where``/``|``) is printed as
  ``∀ <binders>, <type>`` (just ``<type>`` without binders), whitespace collapsed;
* every identifier in it that names an *earlier* parameterless ``abbrev``/``def`` (``abbrev B : Nat
  := 32``) — in the file, or in an imported module found in the workspace or under
  ``.lake/packages/*/`` — is replaced by ``(<its body>)``, recursively. So changing an abbrev body,
  even in a dependency the lock does not hash, changes the "elaborated" type of a later statement
  whose own text is unchanged.

An unknown name gives the recorded "Unknown identifier" error at the name.
"""

from __future__ import annotations

import glob
import os
import re

from _fakelean import IDENT, Decl, Msg, _resolve, version_tuple

CHECK = re.compile(r"((?:set_option\s+[\w.]+\s+\S+\s+in\s+)*)(#check)\s+(\(\s*)?(@?)"
                   r"([^\s()@]+)\s*\)?\s*$")
_OPEN = "([{⦃"
_CLOSE = ")]}⦄"
MAX_DEPTH = 6


PRINT = re.compile(r"((?:set_option\s+[\w.]+\s+\S+\s+in\s+)*)(#print)\s+([^\s()@]+)\s*$")


def handle(judge, start: int, chunk: str, ns: str) -> bool:
    """Answer a `#check` command (optionally after `set_option … in`); False if it is none."""
    m = CHECK.fullmatch(chunk.rstrip())
    if m is None:
        p = PRINT.fullmatch(chunk.rstrip())
        if p is None or p.group(3) == "axioms":
            return False
        return _print_value(judge, start + p.start(2), p.group(3), ns)
    at = start + m.start(2)
    token = m.group(5)
    tok_at = start + m.start(5)
    plain = token.replace("«", "").replace("»", "")
    target = _resolve(plain, ns, judge.names)
    if target is None:
        newer = version_tuple() >= (4, 28)
        data = f"Unknown identifier `{token}`" if newer else f"unknown identifier '{token}'"
        kind = "lean.unknownIdentifier._namedError" if version_tuple() >= (4, 22) else "[anonymous]"
        judge.messages.append(Msg("error", tok_at, tok_at + len(token), data, kind))
        return True
    typ = elaborated_type(judge, target)
    judge.messages.append(Msg("information", at, at + len("#check"), f"@{target} : {typ}"))
    return True


def _print_value(judge, at: int, token: str, ns: str) -> bool:
    """`#print X` of a definition: its header and its value. The fake's "elaborated value" is
    the declaration's text after the name with its line structure (lines right-stripped, blank
    lines dropped): re-indenting a `do` block changes it, as it changes the real value."""
    target = _resolve(token.replace("«", "").replace("»", ""), ns, judge.names)
    if target is None:
        judge.messages.append(Msg("error", at, at + 6, f"Unknown constant `{token}`"))
        return True
    d = judge.names[target]
    lines = [ln.rstrip() for ln in d.body.split("\n")]
    value = "\n".join(ln for ln in lines if ln.strip())
    judge.messages.append(Msg("information", at, at + 6, f"{d.kind} {target}{value}"))
    return True


def _split_top(s: str, seps: tuple[str, ...]) -> tuple[str, str | None]:
    """Split ``s`` at the first separator outside brackets (``:`` never matches ``:=``)."""
    depth = 0
    i = 0
    while i < len(s):
        c = s[i]
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif depth == 0:
            for sep in seps:
                if sep == "\n|":  # a match arm: a line that starts with `|`
                    m = re.compile(r"\n[ \t]*\|").match(s, i)
                    if m:
                        return s[:i], s[m.end():]
                elif s.startswith(sep, i) and not (sep == ":" and s.startswith(":=", i)):
                    return s[:i], s[i + len(sep):]
        i += 1
    return s, None


def signature(d: Decl) -> tuple[str, str | None, str | None]:
    """(binders, type or None, body after `:=` or None) from the masked text after the name."""
    sig, body = _split_top(d.body, (":=", " where", "\n|"))
    binders, typ = _split_top(sig, (":",))
    return " ".join(binders.split()), (" ".join(typ.split()) if typ is not None else None), (
        " ".join(body.split()) if body is not None else None)


def _library(judge) -> dict[str, Decl]:
    """Declarations of the imported modules that exist in the workspace (or its packages)."""
    cached = getattr(judge, "_fake_library", None)
    if cached is not None:
        return cached
    from _fakelean import Judge  # the module imports us lazily: no cycle at import time

    out: dict[str, Decl] = {}
    for mod in re.findall(r"^import\s+([\w.]+)", judge.masked, re.M):
        rel = mod.replace(".", os.sep) + ".lean"
        for cand in [rel, *sorted(glob.glob(os.path.join(".lake", "packages", "*", rel)))]:
            if os.path.isfile(cand):
                with open(cand, encoding="utf-8") as fh:
                    out.update(Judge(fh.read()).names)
                break
    judge._fake_library = out
    return out


def _constants(judge, before: Decl) -> dict[str, str]:
    """Parameterless abbrev/def bodies visible at ``before``: name -> body text."""
    consts: dict[str, str] = {}
    for name, d in _library(judge).items():
        binders, _typ, body = signature(d)
        if d.kind in ("abbrev", "def") and not binders and body:
            consts[name] = body
    for d in judge.decls:
        if d is before:
            break
        binders, _typ, body = signature(d)
        if d.kind in ("abbrev", "def") and d.name and not binders and body:
            consts[d.name] = body
    return consts


def _expand(text: str, ns: str, consts: dict[str, str], names: dict, depth: int = 0) -> str:
    if depth >= MAX_DEPTH:
        return text

    def sub(m: re.Match) -> str:
        target = _resolve(m.group(0), ns, names)
        if target in consts:
            return "(" + _expand(consts[target], ns, consts, names, depth + 1) + ")"
        return m.group(0)

    return IDENT.sub(sub, text)


def elaborated_type(judge, name: str) -> str:
    d = judge.names[name]
    binders, typ, _body = signature(d)
    consts = _constants(judge, d)
    names = {**_library(judge), **judge.names}
    if typ is None:
        typ = "Type" if d.kind in ("structure", "inductive", "class") else "?"
    typ = _expand(typ, d.ns, consts, names)
    binders = _expand(binders, d.ns, consts, names)
    return f"∀ {binders}, {typ}" if binders else typ


def redeclared(judge) -> list[Msg]:
    """README rule 18: a declaration whose full name a directly imported workspace module already
    declares fails as Lean's `checkNotAlreadyDeclared` does (leanprover/lean4
    src/Lean/Elab/DeclModifiers.lean: "`X` has already been declared", at the declaration's id).
    So a helper lemma merged into a module can break a module importing it."""
    lib = _library(judge)
    out: list[Msg] = []
    for d in judge.decls:
        if d.name and d.name in lib:
            d.has_error = True
            data = (f"`{d.name}` has already been declared" if version_tuple() >= (4, 28)
                    else f"'{d.name}' has already been declared")
            out.append(Msg("error", d.name_start, d.name_end, data))
    return out
