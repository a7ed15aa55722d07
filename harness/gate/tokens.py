"""A second, independent Lean lexer for the gate.

The parser's lexer (:mod:`harness.blueprint.lexer`) decides structure; this one follows Lean's own
``whitespace``/``tokenFn`` rules (``Lean.Parser.Basic``) as closely as we can without a token table,
and the gate trusts neither alone: :func:`divergence` compares the two views of which characters
are comments or literals, and any disagreement is rejected (a cheat that hides code from one lexer
must hide it from both). Where Lean's rules are uncertain we err towards *more* code, never less.

Lean details that matter for soundness:
- after ``/-`` Lean skips one character before scanning for the end, so ``/-/-`` does not nest;
- ``'`` starts a character literal at a token start unless the next character is ``'``;
- identifiers use Lean's ``isIdFirst``/``isIdRest`` (ASCII letters, Greek except λ Π Σ, the
  letter-like block, subscripts; ``'`` ``!`` ``?`` continue a name);
- an interpolated string (``s!"a{x}"``) contains code between braces: a string literal holding
  ``{`` is re-read as interpolated, and if the two readings end at different places the file is
  ambiguous (rejected); otherwise the code between braces is scanned like any other code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.blueprint.lexer import (IMPORT_TOKENS, KNOWN_SYMBOLS, is_id_first, is_id_rest, is_letter_like,
                                     is_subscript_alnum, table_match)
from harness.blueprint.lexer import regions as parser_regions

__all__ = ["Lexed", "Tok", "divergence", "is_id_first", "is_id_rest", "is_letter_like",
           "is_subscript_alnum", "lex"]


@dataclass(frozen=True, slots=True)
class Tok:
    kind: str  # "ident" | "num" | "sym" | "str" | "char" | "name" (`` `foo `` literal)
    start: int
    end: int
    value: str  # ident: dotted name with «» removed; otherwise the source text
    in_string: bool = False  # code between the braces of an interpolated string


@dataclass(slots=True)
class Lexed:
    text: str
    tokens: list[Tok] = field(default_factory=list)
    hidden: list[tuple[int, int]] = field(default_factory=list)  # comments, in order
    literals: list[tuple[int, int]] = field(default_factory=list)  # string/char literals
    error: tuple[int, str] | None = None  # first lexical error (offset, message)
    module_docs: list[int] = field(default_factory=list)  # `/-!` openers: commands, not comments


class _LexError(Exception):
    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset
        self.message = message


_WS = " \t\r\n"
INTERP_WORDS = frozenset({"throwError", "dbg_trace", "logInfo", "logWarning", "logError"})


class _Lexer:
    def __init__(self, text: str) -> None:
        self.t = text
        self.n = len(text)
        self.out = Lexed(text)
        self.unknown_upto = -1  # end of a glued run of symbols holding one whose tokens we lack

    def undecidable(self, i: int, what: str) -> None:
        """An opener glued to a symbol run we cannot tokenise: Lean may read it otherwise."""
        if i == self.unknown_upto:
            raise _LexError(i, f"cannot decide how Lean reads `{what}` glued to a symbol whose "
                            "tokens are unknown (a longer token may swallow it): put a space "
                            "between them")

    # -- comments ----------------------------------------------------------------------
    def block_end(self, i: int, start: int) -> int:
        """``i`` is just past the opener (and the skipped character); nesting starts at 1."""
        t, n, depth = self.t, self.n, 1
        while i < n:
            c = t[i]
            if c == "-" and i + 1 < n and t[i + 1] == "/":
                depth -= 1
                i += 2
                if depth == 0:
                    return i
            elif c == "/" and i + 1 < n and t[i + 1] == "-":
                depth += 1
                i += 2
            else:
                i += 1
        raise _LexError(start, "unterminated comment")

    def skip_ws(self, i: int) -> int:
        t, n = self.t, self.n
        while i < n:
            c = t[i]
            if c in _WS:
                i += 1
            elif t.startswith("--", i):
                self.undecidable(i, "--")
                j = t.find("\n", i)
                j = n if j == -1 else j
                self.out.hidden.append((i, j))
                i = j
            elif t.startswith("/-", i):
                self.undecidable(i, "/-")
                if t.startswith("/-!", i):
                    self.out.module_docs.append(i)
                # `/--` and `/-!` open doc comments; a plain `/-x` skips x (Lean's quirk): either
                # way the scan for the closing `-/` starts three characters in
                j = self.block_end(i + 3, i)
                self.out.hidden.append((i, j))
                i = j
            else:
                return i
        return i

    # -- literals ------------------------------------------------------------------------
    def string_end(self, i: int) -> int:
        """``i`` at the opening quote; offset just past the closing one (plain reading)."""
        t, n, j = self.t, self.n, i + 1
        while j < n:
            c = t[j]
            if c == '"':
                return j + 1
            j += 2 if c == "\\" else 1
        raise _LexError(i, "unterminated string literal")

    def interp_end(self, i: int, toks: list[Tok]) -> int:
        """Interpolated reading of the string at ``i``: code between braces goes to ``toks``."""
        t, n, j = self.t, self.n, i + 1
        while j < n:
            c = t[j]
            if c == '"':
                return j + 1
            if c == "\\":
                j += 2
            elif c == "{":
                j = self.code(j + 1, toks, until_brace=True) + 1
            else:
                j += 1
        raise _LexError(i, "unterminated interpolated string")

    def raw_start(self, i: int) -> int | None:
        """Offset of the opening quote if a raw string `r#…"` starts at ``i`` (just after `r`)."""
        j = i
        while j < self.n and self.t[j] == "#":
            j += 1
        return j if j < self.n and self.t[j] == '"' else None

    def char_end(self, i: int) -> int:
        t, n = self.t, self.n
        j = i + 1
        if j < n and t[j] == "\\":
            j += 2
            if t[i + 2:i + 3] == "x":
                j += 2
            elif t[i + 2:i + 3] == "u":
                if t[j:j + 1] == "{":
                    k = t.find("}", j)
                    j = k + 1 if k != -1 else n
                else:
                    j += 4
        else:
            j += 1
        if j < n and t[j] == "'":
            return j + 1
        # not a character literal: in Lean either an error or part of a longer token from the
        # token table (Mathlib's preimage `f ⁻¹' s`); read `'` as a symbol, as the parser does
        return -1

    # -- identifiers -----------------------------------------------------------------------
    def ident_end(self, i: int) -> tuple[int, str]:
        t, n = self.t, self.n
        parts: list[str] = []
        while True:
            if t[i] == "«":
                k = t.find("»", i + 1)
                if k == -1:
                    raise _LexError(i, "unterminated «quoted» identifier")
                parts.append(t[i + 1:k])
                i = k + 1
            else:
                j = i + 1
                while j < n and is_id_rest(t[j]):
                    j += 1
                parts.append(t[i:j])
                i = j
            if i + 1 < n and t[i] == "." and (is_id_first(t[i + 1]) or t[i + 1] == "«"):
                i += 1
                continue
            return i, ".".join(parts)

    def number_end(self, i: int) -> int:
        t, n = self.t, self.n
        j = i + 1
        if t[i] == "0" and j < n and t[j] in "xXbBoO":
            j += 1
            while j < n and (t[j].isalnum() or t[j] == "_"):
                j += 1
            return j
        while j < n and ("0" <= t[j] <= "9" or t[j] == "_"):
            j += 1
        if j + 1 < n and t[j] == "." and "0" <= t[j + 1] <= "9":
            j += 1
            while j < n and "0" <= t[j] <= "9":
                j += 1
        if j < n and t[j] in "eE":
            k = j + 1
            if k < n and t[k] in "+-":
                k += 1
            if k < n and "0" <= t[k] <= "9":
                j = k
                while j < n and "0" <= t[j] <= "9":
                    j += 1
        return j

    # -- driver --------------------------------------------------------------------------
    def code(self, i: int, toks: list[Tok], *, until_brace: bool = False) -> int:
        """Lex from ``i``; with ``until_brace`` stop at the unmatched `}` (returns its offset)."""
        t, n = self.t, self.n
        depth = 0
        inner = until_brace
        while True:
            i = self.skip_ws(i)
            if i >= n:
                if until_brace:
                    raise _LexError(i, "unterminated `{` in an interpolated string")
                return i
            c = t[i]
            if c == '"':
                e = self.string_end(i)
                prev = toks[-1] if toks else None
                # only the syntaxes declared with `interpolatedStr` (core: `s!`, `m!`, `f!`,
                # `throwError`, `dbg_trace`, `trace[…]`) read a string as interpolated; anywhere
                # else (`String.length "{"`) Lean's tokenizer reads a plain string literal
                maybe_interp = prev is not None and prev.end == i and prev.kind == "ident" \
                    and prev.value.endswith("!") or prev is not None and (
                        prev.value in INTERP_WORDS or prev.value == "]")
                if maybe_interp and "{" in t[i:e]:
                    sub: list[Tok] = []
                    e2 = self.interp_end(i, sub)
                    if e2 != e:
                        raise _LexError(i, "ambiguous string literal: read as interpolated it ends "
                                        "elsewhere")
                    toks.extend(Tok(x.kind, x.start, x.end, x.value, True) for x in sub)
                if not inner:
                    self.out.literals.append((i, e))
                toks.append(Tok("str", i, e, t[i:e], inner))
                i = e
            elif c == "r" and (q := self.raw_start(i + 1)) is not None:
                close = '"' + "#" * (q - i - 1)
                k = t.find(close, q + 1)
                if k == -1:
                    raise _LexError(i, "unterminated raw string literal")
                e = k + len(close)
                if not inner:
                    self.out.literals.append((i, e))
                toks.append(Tok("str", i, e, t[i:e], inner))
                i = e
            elif "0" <= c <= "9":
                e = self.number_end(i)
                toks.append(Tok("num", i, e, t[i:e], inner))
                i = e
            elif c == "`" and i + 1 < n and (is_id_first(t[i + 1]) or t[i + 1] == "«"):
                e, name = self.ident_end(i + 1)
                toks.append(Tok("name", i, e, name, inner))
                i = e
            elif c == "'" and t[i + 1:i + 2] == "'":
                toks.append(Tok("sym", i, i + 2, "''", inner))
                i += 2
            elif c == "'" and (self.undecidable(i, "'") or (e := self.char_end(i)) > i):
                if not inner:
                    self.out.literals.append((i, e))
                toks.append(Tok("char", i, e, t[i:e], inner))
                i = e
            elif is_id_first(c) or c == "«":
                e, name = self.ident_end(i)
                toks.append(Tok("ident", i, e, name, inner))
                i = e
            else:
                if until_brace:
                    if c == "{":
                        depth += 1
                    elif c == "}":
                        if depth == 0:
                            return i
                        depth -= 1
                w = table_match(t, i) or 1  # Lean's longest-token rule (see lexer.TABLE_TOKENS)
                if t[i:i + w] in IMPORT_TOKENS and self.char_end(i + w - 1) > 0:
                    raise _LexError(i, f"cannot decide how Lean reads `{t[i:i + w]}` here: it is "
                                    "a token only when Mathlib is imported, and otherwise a "
                                    "character literal starts: put a space between them")
                if w == 1 and c not in KNOWN_SYMBOLS:
                    self.unknown_upto = i + 1
                elif self.unknown_upto == i:
                    self.unknown_upto = i + w
                toks.append(Tok("sym", i, i + w, t[i:i + w], inner))
                i += w


def lex(text: str) -> Lexed:
    """Tokens of ``text``; on a lexical error ``error`` is set and ``tokens`` stop there."""
    lx = _Lexer(text)
    try:
        lx.code(0, lx.out.tokens)
    except _LexError as err:
        lx.out.error = (err.offset, err.message)
    return lx.out


def divergence(text: str, lexed: Lexed) -> tuple[int, str] | None:
    """First place where this lexer and the parser's disagree on comments/literals, if any."""
    if lexed.error is not None:
        return lexed.error
    try:
        theirs = sorted((r.start, r.end) for r in parser_regions(text))
    except Exception as err:  # the parser's lexer rejects the text: same verdict, different words
        return (getattr(err, "offset", 0), f"lexers disagree: {err}")
    ours = sorted(lexed.hidden + lexed.literals)
    if ours == theirs:
        return None
    for a, b in zip(ours, theirs):
        if a != b:
            return (min(a[0], b[0]), "the two lexers disagree about a comment or literal here "
                    "(Lean may read code that one of them takes for a comment)")
    extra = ours[len(theirs):] or theirs[len(ours):]
    return (extra[0][0], "the two lexers disagree about a comment or literal here")
