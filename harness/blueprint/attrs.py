"""Reading the `blueprint` attribute: `@[blueprint "label" (field := value) …]`.

Field values are doc comments (`/-- … -/`), string literals, lists (`[a, "b", -c]`), booleans or
numbers; unknown fields are kept raw in ``BlueprintAttr.fields``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from harness.blueprint.cursor import Scanner
from harness.blueprint.lexer import IDENT, strip_guillemets
from harness.blueprint.model import BlueprintAttr, Decl, Span

DeclLookup = Callable[[str], "Decl | None"]  # a name as written -> this file's declaration

BLUEPRINT_ENTRY = re.compile(r"blueprint\??(?![\w'])")
_PUNCT = re.compile(r"[()\[\]{}⟨⟩,]")
_FIELD = re.compile(r"\(\s*([A-Za-z_][A-Za-z_0-9]*)\s*:=")
LIST_FIELDS = {"uses": "uses", "proofUses": "proof_uses"}
TEXT_FIELDS = {"statement": "statement", "proof": "proof", "title": "title",
               "latexEnv": "latex_env", "latexLabel": "latex_label", "discussion": "discussion"}
BOOL_FIELDS = {"notReady": "not_ready", "hasProof": "has_proof"}
# LeanArchitect's options: `syntax blueprintOption` in Architect/Attribute.lean (statement,
# hasProof, proof, uses, proofUses, title, notReady, discussion, latexEnv, latexLabel;
# hanwenzhu/LeanArchitect 21433ee, lines 41-58). Forks add more (dashboard options), so an
# unknown one is an error only when it is a near miss of a real one (a typo loses the field).
OPTIONS = (*TEXT_FIELDS, *LIST_FIELDS, *BOOL_FIELDS)


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


def parse_blueprint(p: Scanner, start: int, end: int, attr_span: Span) -> BlueprintAttr:
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
        if name not in OPTIONS:
            _unknown_option(p, i + fm.group(0).index(name), name, attr.label or None)
        v_start = p.skip_trivia(fm.end(), close - 1)
        v_end = p.trim_end_text(v_start, close - 1)
        raw = text[v_start:v_end]
        if name in attr.fields:
            p.finding("duplicate-field", i, f"field `{name}` given twice in `blueprint` attribute",
                      attr.label or None)
        attr.fields[name] = raw
        _assign(p, attr, name, v_start, v_end)
        i = p.skip_ws(close, end)
    if attr.latex_label:  # options are read after the positional label: the last one wins
        attr.label = attr.latex_label  # (Architect/Attribute.lean, `elabBlueprintConfig`)
    return attr


def _unknown_option(p: Scanner, at: int, name: str, label: str | None) -> None:
    from harness.didyoumean import suggest

    best = suggest(name, OPTIONS, cutoff=0.75)
    if best is not None:  # a typo: the field would be silently lost
        raise p.error(at, f"unknown `blueprint` option `{name}` (did you mean `{best}`?)")
    p.warn("unknown-option", at, f"`blueprint` option `{name}` is not one of LeanArchitect's ("
           + ", ".join(OPTIONS) + "): kept, not read", label)


def _region_end(p: Scanner, i: int) -> int:
    r = p.region_at.get(i)
    if r is None:
        raise p.error(i, "malformed string in `blueprint` attribute")
    return r.end


def _assign(p: Scanner, attr: BlueprintAttr, name: str, v_start: int, v_end: int) -> None:
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


def tag_command(p: Scanner, at: int, end: int, lookup: DeclLookup) -> dict[str, str]:
    """LeanArchitect nodes added after the fact: `attribute [blueprint "l" …] foo bar`. A
    target declared in this file (``lookup``) gets the attribute; the others are returned,
    label -> name (declared in another module)."""
    tagged: dict[str, str] = {}
    m = p.masked
    i = p.skip_ws(at + len("attribute"), end)
    if not m.startswith("[", i):
        return tagged
    close = p.match_bracket(i, "attribute list `[`")
    entries = split_entries(m, i + 1, close - 1, p.text)
    blueprints = [(s, e) for s, e in entries if BLUEPRINT_ENTRY.match(m, p.skip_ws(s, e))]
    if not blueprints:
        return tagged
    targets = [t for t in m[close:end].split() if t != "in"]
    for s, e in blueprints:
        for target in targets:
            attr = parse_blueprint(p, p.skip_ws(s, e), e, Span(at, end))
            d = lookup(strip_guillemets(target))
            if d is None:
                tagged[attr.label or target] = target
            elif d.blueprint is not None:
                p.finding("duplicate-attribute", at,
                          f"`{d.name}` already has a `blueprint` attribute")
            else:
                attr.label = attr.label or d.name or target
                d.blueprint = attr
    return tagged


def find_decl(decls: Sequence[Decl], namespaces: Sequence[str], name: str) -> Decl | None:
    """The declaration of ``decls`` a name written in ``namespaces`` refers to (latest first)."""
    ns = list(namespaces)
    for k in range(len(ns), -1, -1):
        full = ".".join([*ns[:k], name])
        for d in reversed(decls):
            if d.name == full:
                return d
    return None


TO_ADDITIVE = re.compile(r"to_additive(?![\w'?!])")
# Mathlib's `ToAdditive.nameDict` (Mathlib/Tactic/ToAdditive/GuessName.lean): the common words
_NAME_DICT = {
    "one": ["Zero"], "mul": ["Add"], "smul": ["VAdd"], "inv": ["Neg"], "div": ["Sub"],
    "prod": ["Sum"], "hmul": ["HAdd"], "hsmul": ["HVAdd"], "hdiv": ["HSub"], "hpow": ["HSMul"],
    "finprod": ["Finsum"], "tprod": ["TSum"], "pow": ["NSMul"], "npow": ["NSMul"],
    "zpow": ["ZSMul"], "mabs": ["Abs"], "monoid": ["Add", "Monoid"],
    "submonoid": ["Add", "Submonoid"], "group": ["Add", "Group"],
    "subgroup": ["Add", "Subgroup"], "semigroup": ["Add", "Semigroup"], "unit": ["Add", "Unit"],
    "units": ["Add", "Units"], "commute": ["Add", "Commute"], "powers": ["Multiples"],
    "zpowers": ["ZMultiples"], "multipliable": ["Summable"],
}
_CASE_SPLIT = re.compile(r"_|[^_]+?(?:(?<=[a-z0-9])(?=[A-Z])|(?=_)|$)")


def guess_additive(name: str) -> str:
    """The additive name `to_additive` generates for ``name`` when none is given: Mathlib's
    word-by-word `guessName` on the last component (without its abbreviation fixes)."""
    *ns, last = name.split(".")
    out: list[str] = []
    for part in _CASE_SPLIT.findall(last):
        words = _NAME_DICT.get(part.lower())
        if not words:
            out.append(part)
            continue
        if not part[0].isupper():  # `decapitalizeFirstLike`: keep the input's case
            head = words[0]
            k = 0
            while k < len(head) and head[k].isupper():
                k += 1
            words = [head[:k].lower() + head[k:], *words[1:]]
        out.extend(words)
    return ".".join([*ns, "".join(out)])


def to_additive(p: Scanner, start: int, end: int, attr_span: Span, source: str | None
                ) -> tuple[BlueprintAttr | None, str | None]:
    """`@[to_additive existing? name? "doc"? (attr := …, blueprint "l" …) …]`: the blueprint
    attribute it applies to both declarations, and the additive declaration's name."""
    m = p.masked
    i = p.skip_ws(start + len("to_additive"), end)
    explicit: str | None = None
    found: BlueprintAttr | None = None
    while i < end:
        if m.startswith("(", i):
            close = p.match_bracket(i, "`to_additive` option")
            fm = _FIELD.match(m, i)
            if fm is not None and fm.group(1) == "attr":
                for s, e in split_entries(m, fm.end(), close - 1, p.text):
                    s = p.skip_ws(s, e)
                    if BLUEPRINT_ENTRY.match(m, s):
                        found = parse_blueprint(p, s, e, attr_span)
            i = p.skip_ws(close, end)
            continue
        r = p.region_at.get(i)
        if r is not None:  # the additive docstring
            i = p.skip_ws(r.end, end)
            continue
        im = IDENT.match(p.text, i)
        if im is None or im.end() > end:
            break
        word = strip_guillemets(im.group(0))
        if word != "existing" and explicit is None:
            explicit = word
        i = p.skip_ws(im.end(), end)
    if found is None or source is None:
        return found, None
    if explicit is None:
        return found, guess_additive(source)
    if explicit.startswith("_root_."):
        return found, explicit[len("_root_."):]
    parent = source.rsplit(".", 1)[0] if "." in source else ""
    return found, f"{parent}.{explicit}" if parent and "." not in explicit else explicit
