"""A declaration's body: where its signature ends (`:=`, `where`, the first `|` arm) and what
its body is (proof, `sorry`, `sorry_using [...]`, definition, none). Found on the masked text
of the :class:`~harness.blueprint.cursor.Scanner` the parser passes in.
"""

from __future__ import annotations

import re

from harness.blueprint.cursor import Scanner
from harness.blueprint.lexer import strip_guillemets
from harness.blueprint.model import BodyStatus, DeclKind, Span

_SEPARATOR = re.compile(r"[()\[\]{}⟨⟩⦃⦄]|:=|(?<![\w.'])(?:where|let|have)(?![\w'!?])|\|")
_BODY_MARK = re.compile(r"(?<![\w.'!?])(sorry_using|sorry|admit)(?![\w'!?])")
_OPENERS = "([{⟨⦃"
_CLOSERS = ")]}⟩⦄"


def separator(p: Scanner, kind: DeclKind, start: int, end: int) -> tuple[str, int, int]:
    """Find `:=`, `where` or the first `|` arm at bracket depth 0."""
    m = p.masked
    opened: list[int] = []  # where each open bracket is (an unbalanced one is reported)
    binders = 0  # `let x := …` / `have h := …` in a statement own the next `:=`
    for mm in _SEPARATOR.finditer(m, start, end):
        tok = mm.group(0)
        if tok in _OPENERS:
            opened.append(mm.start())
        elif tok in _CLOSERS:
            if not opened:
                raise p.error(mm.start(), f"unbalanced `{tok}` in the signature: no "
                                 f"`{_OPENERS[_CLOSERS.index(tok)]}` to close")
            want = _CLOSERS[_OPENERS.index(m[opened[-1]])]
            if tok != want:
                raise p.error(mm.start(), f"`{tok}` closes `{m[opened[-1]]}` (opened at "
                                 f"{p.pos(opened[-1])}): expected `{want}`")
            opened.pop()
        elif not opened:
            s = mm.start()
            if tok in ("let", "have"):
                binders += 1
                continue
            if tok == ":=":
                if binders:
                    binders -= 1
                    continue
                return ":=", s, p.skip_ws(mm.end(), end)
            if tok == "where":
                return "where", s, s
            # `|`: a match arm (`| pat => …` on its own line) or an inductive constructor
            if m.startswith("||", s) or (s > 0 and m[s - 1] == "|"):
                continue
            if kind == DeclKind.INDUCTIVE:  # constructors: `| c : T`
                return "|", s, s
            line_head = m[m.rfind("\n", 0, s) + 1:s]
            line_end = m.find("\n", s)
            line = m[s:line_end if line_end != -1 else end]
            if not line_head.strip() and "=>" in line:
                return "|", s, s
    if opened:  # Lean stops at the same place: the declaration has no end
        o = opened[-1]
        raise p.error(o, f"unbalanced `{m[o]}` in the signature: it is never closed "
                         f"(expected `{_CLOSERS[_OPENERS.index(m[o])]}`)")
    return "", end, end


def body_status(p: Scanner, kind: DeclKind, body: Span) -> tuple[BodyStatus, list[str]]:
    text = p.masked[body.start:body.end]
    marks = {mm.group(1): mm for mm in _BODY_MARK.finditer(text)}
    sorry_using: list[str] = []
    if "sorry_using" in marks:
        mm = marks["sorry_using"]
        j = p.skip_ws(body.start + mm.end(), body.end)
        if p.masked.startswith("[", j):
            k = p.match_bracket(j, "`sorry_using [` list")
            inner = p.text[j + 1:k - 1]
            masked_inner = p.masked[j + 1:k - 1]
            if masked_inner != inner:
                p.finding("comment-in-sorry-using", j,
                             "comment or literal inside a `sorry_using [...]` list")
            sorry_using = [strip_guillemets(x.strip()) for x in masked_inner.split(",")
                           if x.strip()]
        return BodyStatus.SORRY_USING, sorry_using
    if "sorry" in marks:
        return BodyStatus.SORRY, sorry_using
    if "admit" in marks:
        return BodyStatus.ADMIT, sorry_using
    stripped = text.strip()
    if kind == DeclKind.AXIOM or (kind == DeclKind.OPAQUE and not stripped):
        return BodyStatus.NO_BODY, sorry_using
    if kind.is_definition:
        return BodyStatus.DEFINITION, sorry_using
    if not stripped or stripped == "by":  # `:= by` with nothing after it
        return BodyStatus.NO_BODY, sorry_using
    return BodyStatus.COMPLETE, sorry_using
