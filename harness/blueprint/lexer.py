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
            if s > 0 and _is_ident_char(text[s - 1]):
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
