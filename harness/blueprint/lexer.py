"""Comment- and literal-aware scanning of Lean source.

The parser never looks at raw text for structure: it looks at :func:`mask`, the same text with every
comment and string/char literal blanked (newlines kept, so offsets and positions are unchanged).
:func:`regions` gives the blanked regions themselves (doc comments carry blueprint field values).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.errors import InputError

# Things that change lexical state. Order matters: `--` before `-`, `/-` before `/`.
_INTERESTING = re.compile(r'--|/-|"|\'|«|\br(#*)"')
_BLOCK_TOKENS = re.compile(r"/-|-/")
_STRING_BODY = re.compile(r'(?:[^"\\]|\\.)*"', re.S)
_CHAR_LIT = re.compile(r"'(?:\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)|[^\\'\n])'")
_NOT_NEWLINE = re.compile(r"[^\n\r]")


@dataclass(frozen=True, slots=True)
class Region:
    kind: str  # "line_comment", "block_comment", "doc_comment", "module_doc", "string", "char"
    start: int
    end: int


def _is_ident_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_'!?." or "\u2080" <= ch <= "\u209c"


# -- Lean's identifier characters (``isIdFirst``/``isIdRest``/``isLetterLike``, src/Lean/Syntax.lean
#    and src/Init/Meta.lean in leanprover/lean4); shared with harness.gate.tokens
def is_letter_like(c: str) -> bool:
    v = ord(c)
    return ((0x3B1 <= v <= 0x3C9 and v != 0x3BB) or (0x391 <= v <= 0x3A9 and v not in (0x3A0, 0x3A3))
            or 0x3CA <= v <= 0x3FB or 0x1F00 <= v <= 0x1FFE or 0x2100 <= v <= 0x214F
            or 0x1D49C <= v <= 0x1D59F)


def is_subscript_alnum(c: str) -> bool:
    v = ord(c)
    return 0x2080 <= v <= 0x2089 or 0x2090 <= v <= 0x209C or 0x1D62 <= v <= 0x1D6A or v == 0x2C7C


def is_id_first(c: str) -> bool:
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or c == "_" or is_letter_like(c)


def is_id_rest(c: str) -> bool:
    return is_id_first(c) or ("0" <= c <= "9") or c in "'!?" or is_subscript_alnum(c)


# -- the token rule. Lean has no separate lexer: at a token start `tokenFnAux` (leanprover/lean4
# src/Lean/Parser/Basic.lean) reads `"` as a string, `'` (not followed by `'`) as a character, a
# digit as a number, and otherwise the *longest* prefix found in the token table (a trie of every
# token core, Mathlib and the file's imports declare) or an identifier, whichever is longer;
# comments are only seen by `whitespace`, i.e. *between* tokens. So `{ x // -1 < x }` written
# `//-1` is the token `//` then `-1`, never a comment. TABLE_TOKENS are the declared tokens that
# contain a character which, read alone, would open a comment (`--`, `/-`) or a literal (`'`, `"`):
#   core, src/Init/Notation.lean and src/Lean/Parser/Term.lean: `×'` (PProd), `\/`, `/\`, `<->`,
#   `<-`, `->`, `//` (subtype), `-[` (Int.negSucc, `-[n+1]`);
#   Mathlib: `''` and `⁻¹'` (Set.image/preimage, Mathlib/Data/Set/Defs.lean), `∑'`/`∏'` (tsum/tprod,
#   Mathlib/Topology/Algebra/InfiniteSum/Defs.lean), `∘'` (Function.dcomp,
#   Mathlib/Logic/Function/Defs.lean).
# IMPORT_TOKENS exist only when Mathlib is imported: where reading one or not would change what is
# a character literal (`f ∘'"'`), the place is undecidable from the text alone.
IMPORT_TOKENS = frozenset({"''", "⁻¹'", "∑'", "∏'", "∘'"})
TABLE_TOKENS = frozenset({"×'", "\\/", "/\\", "<->", "<-", "->", "//", "-[", "⁻¹"}) | IMPORT_TOKENS
_TABLE_BY_FIRST: dict[str, list[str]] = {}
for _t in sorted(TABLE_TOKENS, key=len, reverse=True):
    _TABLE_BY_FIRST.setdefault(_t[0], []).append(_t)
# single-character tokens we know exist and know no longer token (but TABLE_TOKENS) extends with
# an opener: a comment or literal glued to any *other* symbol is a place we cannot decide
KNOWN_SYMBOLS = frozenset("!#$%&*+,-./:;<=>?@\\^|~()[]{}`"
                          "→←↔×∧∨¬∀∃λ≤≥≠∣∘·⟨⟩▸⊆⊂⊇⊃∈∉∪∩⁻¹∑∏⋃⋂≃≅≡⊢⊤⊥∅′″•∙⦃⦄⟦⟧‖√∞ᶜ∂∫⨆⨅⊔⊓≫≪⊗⊕∗⋆"
                          "⇑↑↥⁅⁆⌊⌋⌈⌉∆∇⊣⋯…≺≻≼≽⊊⊋∖∤⟶⟹⥤≌⋙⊠⊞⊘⊖⊙⨯∐⨁⨂≈∼⇒⇔↦⟪⟫«»∃!ᵀᴴ⁺⁰²³")


def table_match(text: str, i: int) -> int:
    """Length of the longest TABLE_TOKENS token at ``i`` (0: none)."""
    for tok in _TABLE_BY_FIRST.get(text[i], ()):
        if text.startswith(tok, i):
            return len(tok)
    return 0


def _is_symbol(c: str) -> bool:
    return not (c.isspace() or is_id_rest(c) or c in '"«»')


def covering_token_end(text: str, s: int, lo: int) -> int | None:
    """If Lean reads the character at ``s`` as part of a longer token that starts before it (in
    the run of symbols glued to it, not before ``lo``), the offset where that token ends; None if
    ``s`` is a token start. Raises ValueError where the run holds a symbol whose tokens we do not
    know (a notation from some import could swallow the opener), or where a Mathlib-only token
    decides whether a character literal starts: we cannot decide."""
    r = s
    while r > lo and _is_symbol(text[r - 1]):
        r -= 1
    j = r
    while j < s:
        n = table_match(text, j)
        if n == 0:
            if text[j] not in KNOWN_SYMBOLS:
                raise ValueError(f"`{text[j]}`, a symbol whose tokens we do not know")
            n = 1
        elif text[j:j + n] in IMPORT_TOKENS and j + n > s and text[s] == "'" \
                and _CHAR_LIT.match(text, s):
            raise ValueError(f"`{text[j:j + n]}`, a token only when Mathlib is imported")
        j += n
    return j if j > s else None


def in_identifier(text: str, s: int, lo: int) -> bool:
    """The character at ``s`` continues an identifier (`h'`, `foo!'`): the run of identifier
    characters before it holds a letter (`isIdFirst`), not just `!`/`?`/digits (`!'a'` is the
    token `!` then a character literal)."""
    r = s
    while r > lo and is_id_rest(text[r - 1]):
        r -= 1
    return any(is_id_first(c) for c in text[r:s]) or (s > lo and text[s - 1] in "».")


def _error(text: str, offset: int, path: object, message: str) -> InputError:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1)
    return InputError(str(path) if path is not None else None, line, col, message)


def regions(text: str, path: object = None) -> list[Region]:
    """Comments and literals in file order. Raises InputError on unterminated ones."""
    out: list[Region] = []
    i = 0
    n = len(text)
    search = _INTERESTING.search
    while i < n:
        m = search(text, i)
        if m is None:
            break
        s = m.start()
        tok = m.group(0)
        if tok in ("--", "/-", "'"):  # no declared token holds a `"`
            try:
                covered = covering_token_end(text, s, i)
            except ValueError as err:
                raise _error(text, s, path, f"cannot decide how Lean reads `{tok}` glued to "
                             f"{err} (a longer token may swallow it): put a space between "
                             "them") from None
            if covered is not None:
                i = covered
                continue
        if tok == "--":
            e = text.find("\n", s)
            e = n if e == -1 else e
            out.append(Region("line_comment", s, e))
            i = e
        elif tok == "/-":
            e = _block_end(text, s, path)
            if text.startswith("/--", s) and not text.startswith("/--/", s):
                kind = "doc_comment"
            elif text.startswith("/-!", s):
                kind = "module_doc"
            else:
                kind = "block_comment"
            out.append(Region(kind, s, e))
            i = e
        elif tok == '"' or tok.startswith("r"):
            if tok.startswith("r"):
                if s > 0 and _is_ident_char(text[s - 1]):
                    i = s + 1  # `for"`: an identifier ending in r, then a string
                    continue
                hashes = m.group(1) or ""
                close = '"' + hashes
                e = text.find(close, m.end())
                if e == -1:
                    raise _error(text, s, path, "unterminated raw string literal")
                out.append(Region("string", s, e + len(close)))
                i = e + len(close)
            else:
                if s > 0 and text[s - 1] == "!":  # s!"…{code}…": braces hold code
                    e = _interpolated_end(text, s, path)
                else:
                    sm = _STRING_BODY.match(text, s + 1)
                    if sm is None:
                        raise _error(text, s, path, "unterminated string literal")
                    e = sm.end()
                out.append(Region("string", s, e))
                i = e
        elif tok == "'":
            if text.startswith("''", s):  # Mathlib's image `f '' s`: one token
                i = s + 2
                continue
            if in_identifier(text, s, i):
                i = s + 1  # a prime inside an identifier (`h'`, `foo'`)
                continue
            cm = _CHAR_LIT.match(text, s)
            if cm is not None:
                out.append(Region("char", s, cm.end()))
                i = cm.end()
            else:
                i = s + 1  # `'` used as syntax (e.g. `f '' s`), not a literal
        else:  # «quoted identifier»: skip so that `--` or `"` inside it is not lexed
            e = text.find("»", s + 1)
            if e == -1 or "\n" in text[s:e]:
                raise _error(text, s, path, "unterminated «quoted» identifier")
            i = e + 1
    return out


_INTERP = re.compile(r'\\.|[{}"\']', re.S)


def _interpolated_end(text: str, start: int, path: object) -> int:
    """End of an interpolated string (`s!"a {f "x"} b"`): inside `{…}` is code, where quotes
    and char literals (`'"'`) nest; outside, an unescaped `"` closes the string."""
    depth = 0
    i = start + 1
    while True:
        m = _INTERP.search(text, i)
        if m is None:
            raise _error(text, start, path, "unterminated string literal")
        tok = m.group(0)
        i = m.end()
        if tok.startswith("\\"):
            continue
        if tok == "{":
            depth += 1
        elif tok == "}":
            depth = max(0, depth - 1)
        elif tok == '"':
            if depth == 0:
                return i
            sm = _STRING_BODY.match(text, i)  # a plain string inside the code
            if sm is None:
                raise _error(text, m.start(), path, "unterminated string literal")
            i = sm.end()
        elif depth > 0:  # `'`: a char literal inside the code, or a prime
            cm = _CHAR_LIT.match(text, m.start())
            if cm is not None and not _is_ident_char(text[m.start() - 1]):
                i = cm.end()


def _block_end(text: str, start: int, path: object) -> int:
    depth = 0
    i = start
    finder = _BLOCK_TOKENS.search
    while True:
        m = finder(text, i)
        if m is None:
            raise _error(text, start, path, "unterminated comment (missing `-/`)")
        if m.group(0) == "/-":
            depth += 1
            i = m.end()
        else:
            # `/-/` is not a closer of the comment it opens
            depth -= 1
            i = m.end()
            if depth == 0:
                return i


def mask_regions(text: str, regs: list[Region]) -> str:
    """``text`` with every region's characters (but not line breaks) replaced by spaces."""
    if not regs:
        return text
    parts: list[str] = []
    last = 0
    sub = _NOT_NEWLINE.sub
    for r in regs:
        parts.append(text[last:r.start])
        parts.append(sub(" ", text[r.start:r.end]))
        last = r.end
    parts.append(text[last:])
    return "".join(parts)


def mask(text: str, path: object = None) -> str:
    """Same length as ``text``; comments and literals blanked. Raises InputError if unterminated."""
    return mask_regions(text, regions(text, path))


IDENT_ATOM = r"(?:«[^»\n]*»|[^\W\d][\w'!?\u2080-\u209c]*)"
IDENT = re.compile(IDENT_ATOM + r"(?:\." + IDENT_ATOM + r")*")


def strip_guillemets(name: str) -> str:
    """`«foo».bar` -> `foo.bar` (Lean prints plain atoms without the quotes)."""
    return name.replace("«", "").replace("»", "")
