"""Normalised fingerprints: what a statement, a definition, a context and a header *say*.

Normal form of a source range: its Lean tokens (:mod:`harness.gate.tokens`, comments dropped,
string literals kept verbatim with CRLF read as LF, as Lean reads them), separated by one space
wherever the source had whitespace or a comment between them and by nothing where it had none —
Lean 4 gives meaning to the *presence* of whitespace (``x[i]`` vs ``x [i]``, ``f.1`` vs ``f .1``),
never to its amount. Two exceptions drop the space because no Lean token can form across them:
after an opening bracket and before a closing bracket or a comma.

So re-indenting, re-wrapping, CRLF and comment edits keep a fingerprint; changing, adding, removing
or gluing any token changes it. Fingerprints are SHA-256 hex digests of the normal form prefixed
with a tag, so a statement and a definition with the same text never collide.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left

from harness.blueprint.model import Blueprint, CommandKind, Decl, Span
from harness.gate.tokens import Lexed, Tok

_OPENERS = frozenset("([{⟨⦃")
_CLOSERS = frozenset(")]}⟩⦄,")
# commands between declarations that change how later statements elaborate (beyond the
# namespace/section/open/variable/universe/set_option scope the parser already tracks)
CONTEXT_SAFE_KEYWORDS = frozenset({"#check", "#synth", "#reduce", "#where", "#help", "/-!"})


def digest(tag: str, text: str) -> str:
    return hashlib.sha256(f"{tag}\0{text}".encode("utf-8")).hexdigest()


class Normaliser:
    """Normal forms of ranges of one text (tokens looked up by offset)."""

    def __init__(self, text: str, lexed: Lexed) -> None:
        self.text = text
        self.toks: list[Tok] = [t for t in lexed.tokens if not t.in_string]
        self.starts = [t.start for t in self.toks]

    def tokens(self, start: int, end: int) -> list[Tok]:
        i = bisect_left(self.starts, start)
        j = bisect_left(self.starts, end)
        return self.toks[i:j]

    def normal(self, start: int, end: int, *, layout: bool = False) -> str:
        """``layout``: keep the line structure — a line break, then the next token's column —
        wherever the source broke a line: `do` and tactic blocks mean something else when a
        line is re-indented (a definition's value can change)."""
        out: list[str] = []
        prev: Tok | None = None
        for t in self.tokens(start, end):
            if t.end > end:
                break
            src = self.text[t.start:t.end].replace("\r\n", "\n")
            if prev is not None and t.start > prev.end:
                if layout and "\n" in self.text[prev.end:t.start]:
                    col = t.start - (self.text.rfind("\n", 0, t.start) + 1)
                    out.append("\n" + " " * col)
                elif not (prev.value in _OPENERS or t.value in _CLOSERS):
                    out.append(" ")
            out.append(src)
            prev = t
        return "".join(out)

    def span(self, span: Span) -> str:
        return self.normal(span.start, span.end)


def _collapse(text: str) -> str:
    return " ".join(text.replace("\r\n", "\n").split())


def statement_text(norm: Normaliser, d: Decl) -> str:
    """What a theorem claims: modifiers, attributes, and from the keyword (instance priority and
    name included) through the signature, up to `:=`."""
    sig = norm.normal(d.head_span.start, d.signature_span.end)
    attrs = " ".join(_collapse(a) for a in d.attributes)
    return "\n".join([" ".join(d.modifiers), attrs, sig])


def definition_text(norm: Normaliser, d: Decl) -> str:
    """A definition's whole declaration: its body is what the statements using it mean."""
    whole = norm.normal(d.head_span.start, d.span.end)
    attrs = " ".join(_collapse(a) for a in d.attributes)
    return "\n".join([" ".join(d.modifiers), attrs, whole])


def layout_text(norm: Normaliser, d: Decl) -> str:
    """A definition's whole declaration with its line structure (see ``Normaliser.normal``)."""
    attrs = " ".join(_collapse(a) for a in d.attributes)
    return "\n".join([" ".join(d.modifiers), attrs,
                      norm.normal(d.head_span.start, d.span.end, layout=True)])


def layout_fp(norm: Normaliser, d: Decl) -> str:
    return digest("layout", layout_text(norm, d))


def statement_fp(norm: Normaliser, d: Decl) -> str:
    return digest("statement", statement_text(norm, d))


def definition_fp(norm: Normaliser, d: Decl) -> str:
    return digest("definition", definition_text(norm, d))


def informal_fp(d: Decl) -> str | None:
    if d.blueprint is None or d.blueprint.statement is None:
        return None
    return digest("informal", _collapse(d.blueprint.statement))


def header_text(norm: Normaliser, bp: Blueprint) -> str:
    """Imports and leading options; the module doc (a comment) is not part of it."""
    return norm.span(bp.header_span)


def header_fp(norm: Normaliser, bp: Blueprint) -> str:
    return digest("header", header_text(norm, bp))


class Contexts:
    """The context in force at each declaration: the parser's scope (namespace, section, open,
    variable, universe, set_option, `… in` prefixes) plus every other non-declaration command
    before it (attribute, include/omit, export, notation …) — an over-approximation: such a
    command is counted even after its section ended."""

    def __init__(self, norm: Normaliser, bp: Blueprint) -> None:
        self.norm = norm
        header_opts = [c for c in bp.commands if c.kind == CommandKind.SET_OPTION
                       and c.span.end <= bp.header_span.end]
        self.header_opts = len(header_opts)
        self.extra_before: dict[int, tuple[str, ...]] = {}
        acc: list[str] = []
        for c in bp.commands:
            if c.decl is not None:
                self.extra_before[id(c.decl)] = tuple(acc)
            elif c.kind in (CommandKind.ATTRIBUTE, CommandKind.OTHER) \
                    and c.keyword not in CONTEXT_SAFE_KEYWORDS:
                acc.append(norm.span(c.span))

    def lines(self, d: Decl) -> list[str]:
        scope = list(d.scope.commands)
        # the header's options are fingerprinted with the header; do not repeat them here
        k = 0
        while k < self.header_opts and k < len(scope) and scope[k].startswith("set_option"):
            k += 1
        extra = self.extra_before.get(id(d), ())
        return [*(_collapse(s) for s in scope[k:]), "--", *extra]

    def text(self, d: Decl) -> str:
        return "\n".join(self.lines(d))

    def fp(self, d: Decl) -> str:
        return digest("context", self.text(d))
