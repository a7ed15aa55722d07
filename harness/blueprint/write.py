"""Editing a blueprint by spans: everything outside the edited span stays byte-identical."""

from __future__ import annotations

from harness.blueprint.model import Blueprint, Decl


def render(bp: Blueprint) -> bytes:
    """The file's exact bytes (BOM and line endings as read)."""
    return (b"\xef\xbb\xbf" if bp.bom else b"") + bp.text.encode("utf-8")


def newline_of(text: str) -> str:
    """The file's line ending: CRLF if its first line break is one, else LF."""
    i = text.find("\n")
    return "\r\n" if i > 0 and text[i - 1] == "\r" else "\n"


def find(bp: Blueprint, label_or_key: str) -> Decl:
    """The declaration with this key or Lean name. A label shared by several declarations
    names no single body: the caller must name the part."""
    for d in bp.decls:
        if d.key == label_or_key or d.name == label_or_key:
            return d
    parts = bp.parts(label_or_key)
    if parts:
        raise KeyError(f"label `{label_or_key}` is shared by {len(parts)} declarations "
                       f"({', '.join(d.key for d in parts)}): name one")
    raise KeyError(f"no node or declaration `{label_or_key}`")


def _eol(text: str, nl: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", nl)


def with_body(text: str, d: Decl, new_body: str) -> str:
    """``text`` with ``d``'s body replaced (``d``'s spans must index ``text``)."""
    if not d.body_sep:
        raise ValueError(f"`{d.key}` has no body to replace")
    body = _eol(new_body.strip(), newline_of(text))
    if d.body_sep != ":=" and not body.startswith(("where", "|", ":=")):
        body = ":= " + body
    return text[:d.body_span.start] + body + text[d.body_span.end:]


def with_block_before(text: str, d: Decl, new_text: str) -> str:
    """``text`` with a block inserted before ``d`` (and its doc comment and attributes)."""
    nl = newline_of(text)
    block = _eol(new_text.strip("\r\n"), nl)
    if not block.strip():
        return text
    return text[:d.span.start] + block + nl + nl + text[d.span.start:]


def replace_body(bp: Blueprint, label_or_key: str, new_body: str) -> str:
    """New text with one declaration's body (what follows `:=`) replaced.

    ``new_body`` is the text after `:=` (e.g. ``"by\\n  omega"``); its line endings are converted
    to the file's. Everything else, including the whitespace around the body, is kept.
    """
    return with_body(bp.text, find(bp, label_or_key), new_body)


def insert_before(bp: Blueprint, label_or_key: str, new_text: str) -> str:
    """New text with ``new_text`` (helper declarations) inserted just before a declaration
    (before its doc comment and attributes), separated from it by one blank line."""
    return with_block_before(bp.text, find(bp, label_or_key), new_text)


def apply_edit(bp: Blueprint, label_or_key: str, body: str, helpers: str = "") -> str:
    """Replace a body and insert helpers before the declaration, in one consistent edit."""
    d = find(bp, label_or_key)
    return with_block_before(with_body(bp.text, d, body), d, helpers)
