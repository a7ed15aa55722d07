"""One source text seen three ways, and the scanning primitives the parser is built on.

- ``text``: the real text; ``masked``: comments and literals blanked (structure is found here,
  so nothing in a comment or string is ever taken for code); ``cmask``: only comments blanked
  (where a span may end or a body begin: a trailing string literal belongs to the body).
- positions are Lean's (1-based line, 0-based column); errors are one-line InputErrors.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from pathlib import Path
from typing import Protocol

from harness.blueprint.lexer import Region, mask_regions, regions
from harness.blueprint.model import Finding, Pos, line_starts, pos_from_starts
from harness.errors import InputError

_WS = re.compile(r"\s*")
_SPACES = re.compile(r"\s+")
_BRACKETS = re.compile(r"[\[\]()]")
_EXIT = re.compile(r"^#exit\b", re.M)


class Scanner(Protocol):
    """The narrow interface the parser's helper modules (attrs, informal, labels, body) take:
    the text in its two views, the regions, positions, the scanning primitives and the findings
    sink. Not the parser itself: its scopes and declarations stay its own (a helper that needs
    a declaration gets a lookup function). :class:`Source` is the one implementation."""

    text: str
    masked: str
    starts: list[int]  # line start offsets (a `Pos` back to an offset)
    region_at: dict[int, Region]  # comments and literals by start offset
    doc_at: dict[int, Region]  # doc comments and module docs by start offset

    def pos(self, offset: int) -> Pos: ...
    def error(self, offset: int, message: str) -> InputError: ...
    def finding(self, code: str, offset: int, message: str, label: str | None = None
                ) -> None: ...
    def warn(self, code: str, offset: int, message: str, label: str | None = None) -> None: ...
    def skip_ws(self, i: int, end: int) -> int: ...
    def skip_ws_text(self, i: int, end: int) -> int: ...
    def skip_trivia(self, i: int, end: int) -> int: ...
    def trim_end_text(self, start: int, end: int) -> int: ...
    def match_bracket(self, i: int, what: str) -> int: ...


class Source:
    def __init__(self, text: str, path: Path | None, bom: bool) -> None:
        self.text = text
        self.path = path
        self.bom = bom
        self.regs: list[Region] = regions_to_exit(text, path)
        self.masked = mask_regions(text, self.regs)
        # comments blanked but literals kept: where a span may end or a body begin
        self.cmask = mask_regions(text, [r for r in self.regs if r.kind != "string"
                                         and r.kind != "char"])
        self.starts = line_starts(text)
        self.region_at = {r.start: r for r in self.regs}
        self.doc_at = {r.start: r for r in self.regs if r.kind in ("doc_comment", "module_doc")}
        self.doc_starts = sorted(self.doc_at)
        self.doc_by_end = {r.end: r for r in self.doc_at.values()}
        self.doc_ends = sorted(self.doc_by_end)
        self.comments = [r for r in self.regs if r.kind.endswith("comment") or r.kind == "module_doc"]
        self.comment_ends = [r.end for r in self.comments]
        self.findings: list[Finding] = []
        self.warnings: list[Finding] = []  # worth saying, but not a finding (exit 0)
        self._brackets: dict[int, int] = {}  # `@[` brackets are matched more than once

    # -- helpers ---------------------------------------------------------------------------
    def pos(self, offset: int) -> Pos:
        return pos_from_starts(self.starts, offset)

    def error(self, offset: int, message: str) -> InputError:
        p = self.pos(offset)
        return InputError(self.path, p.line, p.col, message)

    def finding(self, code: str, offset: int, message: str, label: str | None = None) -> None:
        self.findings.append(Finding(code, message, self._display, self.pos(offset), label))

    def warn(self, code: str, offset: int, message: str, label: str | None = None) -> None:
        self.warnings.append(Finding(code, message, self._display, self.pos(offset), label))

    @property
    def _display(self) -> str:
        return str(self.path) if self.path is not None else "<input>"

    def skip_ws(self, i: int, end: int) -> int:
        """Skip whitespace and comments (not literals)."""
        return min(_WS.match(self.cmask, i).end(), end)

    def skip_to_code(self, i: int, end: int) -> int:
        """Skip whitespace and comments, but stop at a doc comment (it belongs to a command)."""
        j = self.skip_ws(i, end)
        k = bisect_left(self.doc_starts, i)
        if k < len(self.doc_starts) and self.doc_starts[k] < j:
            return self.doc_starts[k]
        return j

    def skip_trivia(self, i: int, end: int) -> int:
        """Skip whitespace and ordinary comments; stop at code, a literal or a doc comment."""
        while True:
            i = self.skip_ws_text(i, end)
            r = self.region_at.get(i)
            if r is None or r.kind not in ("line_comment", "block_comment"):
                return i
            i = min(r.end, end)

    def skip_ws_text(self, i: int, end: int) -> int:
        """Like :meth:`skip_ws` but on the real text (does not jump over comments/literals)."""
        return min(_WS.match(self.text, i).end(), end)

    def trim_end_text(self, start: int, end: int) -> int:
        t = self.text
        while end > start and t[end - 1].isspace():
            end -= 1
        return end

    def match_bracket(self, i: int, what: str) -> int:
        """Offset just past the bracket closing the one at ``i`` (on the masked text)."""
        hit = self._brackets.get(i)
        if hit is not None:
            return hit
        depth = 0
        for mm in _BRACKETS.finditer(self.masked, i):
            ch = mm.group(0)
            if ch in "[(":
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    self._brackets[i] = mm.end()
                    return mm.end()
        raise self.error(i, f"unterminated {what}")

    def trim_end(self, start: int, end: int) -> int:
        """Back over trailing whitespace and comments (a trailing literal stays in the span)."""
        m = self.cmask
        while end > start and m[end - 1].isspace():
            end -= 1
        return end

    def clean(self, start: int, end: int) -> str:
        """Source text of a range with comments removed and whitespace collapsed."""
        parts, last = [], start
        k = bisect_left(self.comment_ends, start)
        for r in self.comments[k:]:
            if r.start >= end:
                break
            parts.append(self.text[last:max(r.start, start)])
            last = min(r.end, end)
        parts.append(self.text[last:end])
        return _SPACES.sub(" ", " ".join(parts)).strip()


def regions_to_exit(text: str, path: object) -> list[Region]:
    """Lexical regions; after a column-0 `#exit` Lean reads nothing, so neither do we (the rest
    becomes one blank region, whatever it contains)."""
    for m in _EXIT.finditer(text):
        try:
            regs = regions(text[:m.start()], path)
        except InputError:
            continue  # this `#exit` is inside a comment or a literal
        rest = text.find("\n", m.end())
        if rest == -1:
            return regs
        return [*regs, Region("after_exit", rest, len(text))]
    return regions(text, path)
