"""Reading the `blueprint` attribute: `@[blueprint "label" (field := value) …]`.

Field values are doc comments (`/-- … -/`), string literals, lists (`[a, "b", -c]`), booleans or
numbers; unknown fields are kept raw in ``BlueprintAttr.fields``.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from harness.blueprint.lexer import IDENT, strip_guillemets
from harness.blueprint.model import BlueprintAttr, Decl, Span

if TYPE_CHECKING:
    from harness.blueprint.parse import _Parser

BLUEPRINT_ENTRY = re.compile(r"blueprint\??(?![\w'])")
_PUNCT = re.compile(r"[()\[\]{}⟨⟩,]")
_FIELD = re.compile(r"\(\s*([A-Za-z_][A-Za-z_0-9]*)\s*:=")
LIST_FIELDS = {"uses": "uses", "proofUses": "proof_uses"}
TEXT_FIELDS = {"statement": "statement", "proof": "proof", "title": "title",
               "latexEnv": "latex_env", "latexLabel": "latex_label", "discussion": "discussion"}
BOOL_FIELDS = {"notReady": "not_ready", "hasProof": "has_proof"}


def split_entries(masked: str, start: int, end: int, text: str | None = None
                  ) -> list[tuple[int, int]]:
    """Comma-separated entries at bracket depth 0 (found on the masked text), trimmed of the
    whitespace of ``text`` (the real text, so a string entry is not trimmed away)."""
    out: list[tuple[int, int]] = []
    depth = 0
    last = start
    for m in _PUNCT.finditer(masked, start, end):
        ch = m.group(0)
        if ch in "([{⟨":
            depth += 1
        elif ch in ")]}⟩":
            depth -= 1
        elif depth == 0:
            out.append((last, m.start()))
            last = m.start() + 1
    out.append((last, end))
    src = masked if text is None else text
    trimmed = []
    for s, e in out:
        while s < e and src[s].isspace():
            s += 1
        while e > s and src[e - 1].isspace():
            e -= 1
        if e > s:
            trimmed.append((s, e))
    return trimmed


def _unquote(raw: str) -> str:
    try:
        return json.loads(raw)
    except ValueError:
        return raw[1:-1]


def parse_blueprint(p: _Parser, start: int, end: int, attr_span: Span) -> BlueprintAttr:
    text, masked = p.text, p.masked
    i = start + len("blueprint")
    if masked.startswith("?", i):
        i += 1
    i = p.skip_ws_text(i, end)
    label = ""
    if i < end and text[i] == '"':
        j = _region_end(p, i)
        label = _unquote(text[i:j])
        i = p.skip_ws(j, end)
    attr = BlueprintAttr(label=label, span=attr_span)
    while i < end:
        fm = _FIELD.match(masked, i)
        if fm is None:
            raise p.error(i, "malformed `blueprint` attribute: expected `(field := value)`")
        close = p.match_bracket(i, "`blueprint` attribute field")
        if close > end:
            raise p.error(i, "unterminated `blueprint` attribute field")
        name = fm.group(1)
        v_start = p.skip_trivia(fm.end(), close - 1)
        v_end = p.trim_end_text(v_start, close - 1)
        raw = text[v_start:v_end]
        if name in attr.fields:
            p.finding("duplicate-field", i, f"field `{name}` given twice in `blueprint` attribute",
                      attr.label or None)
        attr.fields[name] = raw
        _assign(p, attr, name, v_start, v_end)
        i = p.skip_ws(close, end)
    return attr


def _region_end(p: _Parser, i: int) -> int:
    r = p.region_at.get(i)
    if r is None:
        raise p.error(i, "malformed string in `blueprint` attribute")
    return r.end


def _assign(p: _Parser, attr: BlueprintAttr, name: str, v_start: int, v_end: int) -> None:
    text = p.text
    raw = text[v_start:v_end]
    if name in TEXT_FIELDS:
        r = p.doc_at.get(v_start)
        if r is not None:
            value = text[r.start + 3:r.end - 2].strip()
        elif raw.startswith('"'):
            value = _unquote(raw)
        else:
            value = raw.strip()
        setattr(attr, TEXT_FIELDS[name], value)
    elif name in LIST_FIELDS:
        if not (raw.startswith("[") and raw.endswith("]")):
            raise p.error(v_start, f"`{name}` must be a list `[…]`")
        items = []
        for s, e in split_entries(p.masked, v_start + 1, v_end - 1, text):
            item = text[s:e].strip()
            neg = item.startswith("-")
            body = item[1:].strip() if neg else item
            if body.startswith('"'):
                body = "label:" + _unquote(body)
            elif IDENT.fullmatch(body):
                body = strip_guillemets(body)
            items.append(("-" if neg else "") + body)
        setattr(attr, LIST_FIELDS[name], items)
    elif name in BOOL_FIELDS:
        if raw not in ("true", "false"):
            raise p.error(v_start, f"`{name}` must be `true` or `false`")
        setattr(attr, BOOL_FIELDS[name], raw == "true")


def tag_command(p: _Parser, at: int, end: int) -> None:
    """LeanArchitect nodes added after the fact: `attribute [blueprint "l" …] foo bar`."""
    m = p.masked
    i = p.skip_ws(at + len("attribute"), end)
    if not m.startswith("[", i):
        return
    close = p.match_bracket(i, "attribute list `[`")
    entries = split_entries(m, i + 1, close - 1, p.text)
    blueprints = [(s, e) for s, e in entries if BLUEPRINT_ENTRY.match(m, p.skip_ws(s, e))]
    if not blueprints:
        return
    targets = [t for t in m[close:end].split() if t != "in"]
    for s, e in blueprints:
        for target in targets:
            attr = parse_blueprint(p, p.skip_ws(s, e), e, Span(at, end))
            d = _lookup(p, strip_guillemets(target))
            if d is None:
                p.tagged[attr.label or target] = target
            elif d.blueprint is not None:
                p.finding("duplicate-attribute", at,
                          f"`{d.name}` already has a `blueprint` attribute")
            else:
                attr.label = attr.label or d.name or target
                d.blueprint = attr


def _lookup(p: _Parser, name: str) -> Decl | None:
    """The declaration of this file a name in the current namespaces refers to (latest first)."""
    ns = list(p.scopes.current([]).namespaces)
    for k in range(len(ns), -1, -1):
        full = ".".join([*ns[:k], name])
        for d in reversed(p.decls):
            if d.name == full:
                return d
    return None
