"""Which identifiers of a declaration can name a global constant, the way Lean decides.

Pure text analysis on the masked source (comments and literals blanked), modelling the parts of
Lean's name resolution that decide whether a token is a *dependency*:

- local binders shadow globals: `resolveName` tries the local context before
  `resolveGlobalName` (leanprover/lean4 src/Lean/Elab/Term.lean, `resolveLocalName`). Binders are
  the declaration's own parameters, `variable`s in scope, `fun`/`∀`/`∃`/big-operator binders,
  `intro`/`obtain`/`rintro`/`choose`/`set`/`have`/`let`/`with` patterns, match arms and
  set-builder variables; each is in scope from where it is bound to the end of the declaration
  (an approximation of Lean's lexical scoping that errs on the side of "local").
- `x.f` on a local `x : S …` is field notation: the constant `S.f` (lean4
  src/Lean/Elab/App.lean, `resolveLValAux`: the head constant of the type, then `.f`; Lean also
  searches parent structures, `findMethod?`, which is not modelled here).
- a name followed by `:=` is a named argument, structure-instance field or `let`/`have` binder,
  never a reference.
- `notation`/`local notation`/`infix`… whose expansion mentions a declaration: a use of the
  notation is a use of that declaration (Lean elaborates the expansion in its place).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness.blueprint.lexer import IDENT, strip_guillemets
from harness.blueprint.model import Blueprint, Command, Decl, DeclKind

# Words that start a run of binders. `rcases`/`cases`/`induction` bind after `with`, not before.
_BINDER_KW = re.compile(
    r"(?<![\w.'!?])(fun|λ|∀|∃!?|Π|Σ'?|∑|∏|⨆|⨅|⋃|⋂|∫⁻?|intro|intros|rintro|obtain|choose|set|let|"
    r"have|ext|funext|by_cases|by_contra!?|with|generalizing|rename_i|next|case)(?![\w'!?])")
_TACTIC_KW = {"intro", "intros", "rintro", "obtain", "choose", "set", "ext", "funext",
              "by_cases", "by_contra", "by_contra!", "with", "generalizing", "rename_i", "next",
              "case", "let", "have"}
# identifiers that end a binder run (they are syntax, not names being bound)
_STOP_WORDS = {"using", "at", "with", "from", "in", "only", "then", "else", "do", "by", "fun",
               "if", "generalizing", "where", "hiding", "renaming", "λ", "this"}
_ASSIGN_KW = {"let", "have", "set", "obtain"}
_ARM = re.compile(r"(?m)(?:^[ \t]*|(?<=with)[ \t]*)\|(?!\|)([^|\n]*?)=>")
_SET_BUILDER = re.compile(r"\{\s*(" + IDENT.pattern + r"(?:\s+" + IDENT.pattern + r")*)\s*"
                          r"(?::[^|}\n]*)?\|(?!\|)")
_OPEN = "([{⦃⟨"
_CLOSE = {"(": ")", "[": "]", "{": "}", "⦃": "⦄", "⟨": "⟩"}
_NOTATION_KW = {"notation", "notation3", "infix", "infixl", "infixr", "prefix", "postfix"}
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_GENERIC_ATOMS = set("()[]{}|‖,.:;+-*/=<>^!?#$%&~@`'")


@dataclass(slots=True)
class Binder:
    name: str
    at: int  # offset from which the binder is in scope (-1: everywhere in the declaration)
    type_head: str | None = None  # `S` for `(x : S a b)`


@dataclass(slots=True)
class Locals:
    """The local names of one declaration, by first atom."""

    binders: dict[str, list[Binder]] = field(default_factory=dict)
    # where names are being bound (`let c`, a structure's field `M :`): never references
    sites: set[int] = field(default_factory=set)

    def add(self, b: Binder) -> None:
        self.binders.setdefault(b.name, []).append(b)

    def typed(self) -> None:
        """An untyped binder takes the type of a typed one of the same name in the declaration:
        `obtain ⟨f', hf'⟩ := h` with `h : ∃ f' : S n, …` binds `f' : S n` (the pattern echoes
        the binder it destructs; Lean knows the type from `h`, the text only from the name)."""
        for bs in self.binders.values():
            heads = [b.type_head for b in bs if b.type_head]
            if heads:
                for b in bs:
                    if b.type_head is None:
                        b.type_head = heads[0]

    def at(self, name: str, offset: int) -> Binder | None:
        """The innermost binder of ``name`` in scope at ``offset`` (the latest bound before it)."""
        best = None
        for b in self.binders.get(name, ()):
            if b.at <= offset and (best is None or b.at >= best.at):
                best = b
        return best


def _match_close(m: str, i: int, end: int) -> int:
    """Offset just past the bracket closing the one at ``i`` (any of `([{⦃⟨`), or ``end``."""
    stack = [_CLOSE[m[i]]]
    j = i + 1
    while j < end:
        c = m[j]
        if c in _CLOSE:
            stack.append(_CLOSE[c])
        elif c == stack[-1]:
            stack.pop()
            if not stack:
                return j + 1
        elif c in ")]}⦄⟩":
            return j + 1  # unbalanced: stop here
        j += 1
    return end


def _top_colon(m: str, start: int, end: int) -> int:
    """The first `:` (not `:=`) at bracket depth 0 in ``m[start:end]``, or -1."""
    depth = 0
    for j in range(start, end):
        c = m[j]
        if c in _CLOSE:
            depth += 1
        elif c in ")]}⦄⟩":
            depth -= 1
        elif c == ":" and depth == 0 and not m.startswith(":=", j) and m[j - 1] != ":":
            return j
    return -1


def _idents(m: str, start: int, end: int) -> list[tuple[str, int]]:
    out = []
    for mm in IDENT.finditer(m, start, end):
        s = mm.start()
        if s > 0 and (m[s - 1] in ".'@" or m[s - 1].isdigit()):  # `4.5e-9`: a literal
            continue
        out.append((mm.group(0), s))
    return out


def _head(m: str, start: int, end: int) -> str | None:
    mm = IDENT.search(m, start, end)
    return strip_guillemets(mm.group(0)) if mm else None


def _group(m: str, i: int, close: int, at: int, out: Locals) -> None:
    """A bracketed binder group `(x y : T)`, `{x}`, `[inst : C]`, `⟨x, hx⟩`, `(h | h')`."""
    opener = m[i]
    inner_end = close - 1
    colon = _top_colon(m, i + 1, inner_end)
    if colon >= 0:
        head = _head(m, colon + 1, inner_end)
        for name, _ in _idents(m, i + 1, colon):
            if name != "_":
                out.add(Binder(strip_guillemets(name), at, head))
    elif opener != "[":  # `[Foo α]` is an anonymous instance: it binds no name
        for name, _ in _idents(m, i + 1, inner_end):
            if name not in _STOP_WORDS and name != "rfl":
                out.add(Binder(strip_guillemets(name), at))


def scan_binders(m: str, i: int, end: int, out: Locals, *, at: int | None = None,
                 tactic: bool = False, multiline: bool = False) -> int:
    """Consume a run of binders starting at ``i``; return where it stopped. Bare names
    followed by `: T` (`∃ f' : S n,`, `fun x : S =>`, `have h : S :=`) get `S` as type."""
    bare: list[Binder] = []
    while i < end:
        c = m[i]
        if c == "\n" and not multiline:
            return i
        if c.isspace() or c == "@" or (tactic and c in "|-"):
            i += 1
            continue
        if c in _CLOSE:
            close = _match_close(m, i, end)
            _group(m, i, close, i if at is None else at, out)
            i = close
            continue
        mm = IDENT.match(m, i)
        if mm is None or mm.group(0) in _STOP_WORDS:
            break
        name = mm.group(0)
        if name != "_" and name != "rfl":
            b = Binder(strip_guillemets(name), i if at is None else at)
            out.add(b)
            bare.append(b)
        i = mm.end()
    if bare and m.startswith(":", i) and not m.startswith(":=", i):
        head = _head(m, i + 1, min(end, _line_end(m, i)))
        for b in bare:
            b.type_head = head
    return i


def _line_end(m: str, i: int) -> int:
    j = m.find("\n", i)
    return len(m) if j == -1 else j


def _indent(m: str, i: int) -> int:
    """The indentation of the line holding offset ``i``."""
    ls = m.rfind("\n", 0, i) + 1
    j = ls
    while j < len(m) and m[j] in " \t":
        j += 1
    return j - ls


def _scope_start(m: str, i: int, end: int, indent: int) -> int | None:
    """Where the names of a `let`/`have`/`set`/`obtain` whose head ends at ``i`` come into
    scope: after the value that follows its `:=` (`let c := c s; c`: the middle `c` is the
    global one). None when the head has no `:=` (`have h : P` with the proof below)."""
    after = _stop(m, i, end, indent, assign=True)
    return None if after is None else _stop(m, after, end, indent, assign=False) or end


def _stop(m: str, i: int, end: int, indent: int, *, assign: bool) -> int | None:
    """Scanning from ``i`` at bracket depth 0: with ``assign``, just past the first `:=`;
    else the end of the term (a `;`, a closing bracket, a line no deeper than ``indent``)."""
    depth = 0
    j = i
    while j < end:
        c = m[j]
        if c in _CLOSE:
            depth += 1
        elif c in ")]}⦄⟩":
            depth -= 1
            if depth < 0:
                return None if assign else j
        elif depth == 0:
            if assign and c == ":" and m.startswith(":=", j):
                return j + 2
            if c == ";":
                return None if assign else j
            if c == "\n":
                k = j + 1
                while k < end and m[k] in " \t\n":
                    k += 1
                if k >= end or _indent(m, k) <= indent:
                    return None if assign else j
        j += 1
    return None if assign else end


def decl_locals(masked: str, d: Decl) -> Locals:
    """Every local name of ``d``: parameters, `variable`s, and binders in its text."""
    out = Locals()
    for cmd in d.scope.commands:
        if cmd.startswith("variable"):
            scan_binders(cmd, len("variable") + (cmd.startswith("variables")), len(cmd), out,
                         at=-1, multiline=True)
    sig = d.signature_span
    scan_binders(masked, sig.start, sig.end, out, at=-1, multiline=True)
    start, end = sig.start, d.body_span.end
    for mm in _BINDER_KW.finditer(masked, start, end):
        kw = mm.group(1)
        if kw in _ASSIGN_KW:  # `let c := c s`: the right-hand `c` is the global one
            run = Locals()
            stop = scan_binders(masked, mm.end(), end, run, tactic=True)
            after = _scope_start(masked, stop, end, _indent(masked, mm.start()))
            for bs in run.binders.values():
                for b in bs:
                    if after is not None:
                        b.at = after
                    out.add(b)
            if after is not None:
                out.sites.update(s for _, s in _idents(masked, mm.end(), stop))
            continue
        scan_binders(masked, mm.end(), end, out, tactic=kw in _TACTIC_KW)
    for mm in _ARM.finditer(masked, start, end):
        pat = _idents(masked, mm.start(1), mm.end(1))
        dotted = masked[mm.start(1):mm.end(1)].lstrip().startswith(".")
        for name, s in pat if dotted else pat[1:]:  # the first is the constructor
            out.add(Binder(strip_guillemets(name), s))
    for mm in _SET_BUILDER.finditer(masked, start, end):
        for name, s in _idents(masked, mm.start(1), mm.end(1)):
            out.add(Binder(strip_guillemets(name), s))
    if d.kind in (DeclKind.STRUCTURE, DeclKind.CLASS) and d.body_sep == "where":
        _fields(masked, d.body_span.start, d.body_span.end, out)
    out.typed()
    return out


_FIELD = re.compile(r"(?m)^[ \t]+(" + IDENT.pattern + r"(?:[ \t]+" + IDENT.pattern +
                    r")*)[ \t]*(?=[:({\[⦃])(?!::)")


def _fields(m: str, start: int, end: int, out: Locals) -> None:
    """A structure's field names (`M : ℝ`, `hM : 0 < M`, `(a b : T)`): within the structure
    they are its fields, not globals of the same name (`Params.M`, not `Defs.M`)."""
    for mm in _FIELD.finditer(m, start, end):
        for name, s in _idents(m, mm.start(1), mm.end(1)):
            if name in ("where", "extends", "deriving"):
                break
            out.add(Binder(strip_guillemets(name), -1))
            out.sites.add(s)


def is_named_argument(masked: str, start: int, end: int, *, in_body: bool = True) -> bool:
    """The token at ``start:end`` is a named argument `(n := 0)`, a structure-instance field
    (`{ x := 1, y := 2 }`, `{ s with x := 1 }`, `where` fields on their own line) or a
    `let`/`have` name: followed by `:=` and preceded by `(`, `{`, `,`, `with` or a line start.
    (`theorem t : P := …` ends its signature with `P :=`: that `P` is a reference.)"""
    j = end
    n = len(masked)
    while j < n and masked[j] in " \t":
        j += 1
    if not masked.startswith(":=", j) or masked.startswith(":==", j):
        return False
    k = start - 1
    while k >= 0 and masked[k] in " \t":
        k -= 1
    if k >= 0 and masked[k] == "\n":
        return in_body  # a `where` field; in a signature, `P :=` on its own line is the type
    if k < 0 or masked[k] in "({,⟨":
        return True
    return masked.endswith("with", 0, k + 1)


def type_head(masked: str, d: Decl) -> str | None:
    """The head constant of a declaration's type (`S` in `def P : S a := …`), if written."""
    sig = d.signature_span
    colon = _top_colon(masked, sig.start, sig.end)
    return _head(masked, colon + 1, sig.end) if colon >= 0 else None


@dataclass(slots=True)
class Notation:
    atom: str  # the most distinctive literal atom of the notation
    expansion: tuple[int, int]  # offsets of the expansion (after `=>`) in the masked text
    command: Command
    word: bool  # the atom is identifier-like: match it with word boundaries
    local: bool  # `local notation` / `scoped notation`: not visible to importing files

    def occurs(self, masked: str, start: int, end: int) -> bool:
        j = masked.find(self.atom, start, end)
        while j != -1:
            if not self.word or (_boundary(masked, j - 1) and
                                 _boundary(masked, j + len(self.atom))):
                return True
            j = masked.find(self.atom, j + 1, end)
        return False


def _boundary(m: str, i: int) -> bool:
    return i < 0 or i >= len(m) or not (m[i].isalnum() or m[i] in "_'.")


def notations(bp: Blueprint) -> list[Notation]:
    """`notation`/`infix`… commands of a file with an `=>` expansion and a usable atom."""
    out: list[Notation] = []
    m = bp.masked_text()
    for c in bp.commands:
        if c.keyword not in _NOTATION_KW:
            continue
        arrow = m.find("=>", c.span.start, c.span.end)
        if arrow == -1:
            continue
        atoms = [a.strip() for a in _STRING.findall(bp.text, c.span.start, arrow)]
        atoms = [a for a in atoms if a and not all(ch in _GENERIC_ATOMS for ch in a)]
        if not atoms:
            continue
        atom = max(atoms, key=len)
        word = atom[0].isalnum() or atom[0] == "_"
        head = m[c.span.start:c.span.end].split(c.keyword, 1)[0]
        local = "local" in head.split() or "scoped" in head
        out.append(Notation(atom, (arrow + 2, c.span.end), c, word, local))
    return out
