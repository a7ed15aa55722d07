"""Diff discipline against a base: only the allowed nodes' bodies change, plus new helper lemmas
inserted directly before an allowed node.

Commands are compared by normal form (:mod:`harness.gate.fingerprint`), so whitespace, CRLF and
comment edits are not changes; blueprint attribute fields (doc-comment values the normal form does
not see) are compared as text. An allowed node may change its body and its informal `proof`
field, nothing else. A helper is a new, complete (`sorry`-free) `theorem`/`lemma` with a fresh name
and fresh label, at most the `simp` attribute, inserted in the contiguous block right before an
allowed node. Everything else — a deleted, moved or edited command, a new `def`/`instance`, a
helper far from its node — is out of scope.

Split mode (``splits``: base keys of allowed nodes the repair role may split): the block before
such a node may also hold *placeholder nodes* — new `theorem`/`lemma`s with a fresh name and a
fresh blueprint label, a `statement :=`, no other attribute, and the canonical placeholder body
(`sorry` / `sorry_using [..]`, optionally after `by`) naming only declarations before them. If it
does, the node's new body must itself be such a placeholder, naming only its new placeholders
(or helper lemmas) and declarations that already came before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from harness.blueprint.deps import Resolver
from harness.blueprint.model import Blueprint, BodyStatus, Command, CommandKind, Decl, DeclKind
from harness.errors import UsageError
from harness.gate.fingerprint import Normaliser
from harness.gate.forbidden import claims_proved

HELPER_KINDS = (DeclKind.THEOREM, DeclKind.LEMMA, DeclKind.EXAMPLE)
# attributes a helper may carry, with why each is harmless: every one only adds the helper to a
# proof-automation database, so it can change what later *proofs* find (and Lean checks those),
# never what a statement means
HELPER_ATTR_REASONS: dict[str, str] = {
    "simp": "adds a rewrite rule to `simp`", "grind": "adds a rule to `grind`",
    "norm_cast": "adds a cast lemma to `norm_cast`/`push_cast`",
    "push_cast": "adds a rule to `push_cast`", "fun_prop": "adds a rule to `fun_prop`",
    "gcongr": "adds a congruence rule to `gcongr`", "ext": "adds an extensionality rule to `ext`",
    "aesop": "adds a rule to `aesop`", "continuity": "adds a rule to `continuity`",
    "measurability": "adds a rule to `measurability`", "bound": "adds a rule to `bound`",
}
HELPER_ATTRS = frozenset(HELPER_ATTR_REASONS)
HELPER_MODIFIERS = frozenset({"private", "protected"})
# `… in` prefixes a prover may put directly before the node it proves (or a helper), each scoped
# by `in` to that one declaration and unable to change what its statement means (with Lean, the
# elaborated-type hash confirms it). Anywhere else — before a node nobody may edit — a new
# prefix is a lock failure like any other context change (docs/trust.md "The static filter").
SAFE_PREFIX = re.compile(
    r"^(?:set_option (?P<opt>maxHeartbeats|synthInstance\.maxHeartbeats|maxRecDepth|"
    r"synthInstance\.maxSize|maxSynthPendingDepth) (?P<n>\S+) in"
    r"|set_option linter\.[A-Za-z0-9_.]+ (?:true|false) in"
    r"|open (?:scoped )?Classical in)(?: |$)")
SAFE_PREFIX_DOC = ("`set_option maxHeartbeats N in` (also `synthInstance.maxHeartbeats`, "
                   "`maxRecDepth`, `synthInstance.maxSize`, `maxSynthPendingDepth`, each up to a "
                   "cap), `set_option linter.… true/false in`, `open Classical in` and "
                   "`open scoped Classical in`")


def strip_safe_prefixes(normal: str) -> str:
    """A normal form without its leading :data:`SAFE_PREFIX` prefixes (limits: positive and
    within :data:`harness.gate.forbidden.LIMIT_CAPS`)."""
    from harness.gate.forbidden import LIMIT_CAPS, lean_nat

    while (m := SAFE_PREFIX.match(normal)) is not None:
        if m.group("n") is not None:
            n = lean_nat(m.group("n"))
            if not n or n > LIMIT_CAPS[m.group("opt")]:
                break
        normal = normal[m.end():]
    return normal


def safe_prefix_line(line: str) -> bool:
    """A context line (``Decl.scope.commands``) that is one such prefix."""
    return strip_safe_prefixes(" ".join(line.split())) == ""


_SORRY = frozenset({"sorry", "admit", "sorry_using", "sorryAx"})


@dataclass(frozen=True, slots=True)
class ScopeProblem:
    offset: int  # in the new text
    key: str | None
    message: str


def resolve_allowed(base: Blueprint, allow: set[str]) -> set[str]:
    """Allowed labels or Lean names -> base declaration keys (UsageError for unknown ones)."""
    keys: set[str] = set()
    for a in allow:
        hit = [d for d in base.decls if d.key == a or d.name == a or d.short_name == a]
        if not hit:  # a label shared by several declarations allows every part
            keys.update(d.key for d in base.decls if d.label == a)
            if not any(d.label == a for d in base.decls):
                raise UsageError(f"--allow {a}: no such node in the base blueprint")
            continue
        keys.add(hit[0].key)
    return keys


def _fields(d: Decl, drop: frozenset[str] = frozenset()) -> tuple:
    if d.blueprint is None:
        return ()
    return tuple(sorted((k, " ".join(v.split())) for k, v in d.blueprint.fields.items()
                        if k not in drop))


class _Side:
    def __init__(self, bp: Blueprint, norm: Normaliser, allowed: set[str]) -> None:
        self.bp, self.norm, self.allowed = bp, norm, allowed
        self.sigs = [self.sig(c) for c in bp.commands]

    def sig(self, c: Command) -> tuple:
        d = c.decl
        if d is not None and d.key in self.allowed:
            return ("allowed", d.key)
        if c.kind == CommandKind.BLUEPRINT_COMMENT:  # its text is a comment the tokens skip
            return ("cmd", " ".join(c.span.slice(self.bp.text).split()))
        # a definition keeps its line structure: re-indenting a `do` block changes its value
        layout = d is not None and d.kind.is_definition
        return ("cmd", self.norm.normal(c.span.start, c.span.end, layout=layout),
                _fields(d) if d else ())


def check_scope(base: Blueprint, base_norm: Normaliser, new: Blueprint, new_norm: Normaliser,
                allowed: set[str], *, splits: set[str] | frozenset[str] = frozenset()
                ) -> list[ScopeProblem]:
    """``allowed`` and ``splits`` hold base keys (see :func:`resolve_allowed`)."""
    b = _Side(base, base_norm, allowed)
    n = _Side(new, new_norm, allowed)
    problems: list[ScopeProblem] = []
    base_names = {d.name for d in base.decls if d.name}
    base_labels = {d.label for d in base.decls if d.label}
    new_names_seen: set[str] = set()
    matched_allowed: set[str] = set()
    placeholders: set[str] = set()  # split nodes with new placeholder nodes before them
    block: dict[str, list[Decl]] = {}  # split node key -> the declarations inserted before it
    ops = SequenceMatcher(None, b.sigs, n.sigs, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            for i, j in zip(range(i1, i2), range(j1, j2)):
                bd, nd = base.commands[i].decl, new.commands[j].decl
                if bd is not None and nd is not None and bd.key in allowed:
                    matched_allowed.add(bd.key)
                    problems += _allowed_node(bd, base_norm, nd, new_norm)
            continue
        anchor = base.commands[i1] if i1 < len(base.commands) else None
        helpers_ok = (tag == "insert" and anchor is not None and anchor.decl is not None
                      and anchor.decl.key in allowed)
        for j in range(j1, j2):
            c = new.commands[j]
            split_key = anchor.decl.key if helpers_ok else None  # type: ignore[union-attr]
            if split_key in splits and c.decl is not None:
                block.setdefault(split_key, []).append(c.decl)
            if split_key in splits and is_placeholder(c.decl, new_norm):
                placeholders.add(split_key)
                problems += _placeholder(c, new, base_names, base_labels, new_names_seen)
            elif helpers_ok:
                problems += _helper(c, new_norm, base_names, base_labels, new_names_seen,
                                    anchor.decl.key)  # type: ignore[union-attr]
            else:
                what = _describe(c)
                problems.append(ScopeProblem(c.span.start, c.decl.key if c.decl else None,
                                             f"{what} is outside the allowed nodes "
                                             "(new or changed; helpers go directly before an "
                                             "allowed node)"))
        if tag in ("delete", "replace"):
            at = new.commands[j1].span.start if j1 < len(new.commands) else len(new.text)
            for i in range(i1, i2):
                c = base.commands[i]
                if tag == "replace" and i - i1 < j2 - j1:
                    continue  # reported as changed above
                line = base.pos_of(c.span.start).line
                problems.append(ScopeProblem(at, c.decl.key if c.decl else None,
                                             f"{_describe(c)} (base line {line}) was removed"))
    for key in sorted(allowed - matched_allowed):
        problems.append(ScopeProblem(0, key, f"allowed node `{key}` is missing or moved"))
    for key in sorted(placeholders & matched_allowed):
        problems += _split_body(new, new_norm, key, block[key], base_names)
    return problems


def _describe(c: Command) -> str:
    if c.decl is not None:
        d = c.decl
        return f"`{d.kind.value} {d.name or d.key}`"
    return f"`{c.keyword}` command"


def _allowed_node(bd: Decl, bn: Normaliser, nd: Decl, nn: Normaliser) -> list[ScopeProblem]:
    out = []
    before_b = strip_safe_prefixes(bn.normal(bd.span.start, bd.body_span.start))
    before_n = strip_safe_prefixes(nn.normal(nd.span.start, nd.body_span.start))
    if before_b != before_n or bd.body_sep != nd.body_sep:
        out.append(ScopeProblem(nd.span.start, nd.key, "only the body of an allowed node may "
                                "change (its attributes, modifiers or statement changed); "
                                f"allowed before it: {SAFE_PREFIX_DOC}"))
    if _fields(bd, frozenset({"proof"})) != _fields(nd, frozenset({"proof"})):
        out.append(ScopeProblem(nd.blueprint.span.start if nd.blueprint else nd.span.start, nd.key,
                                "blueprint fields other than `proof` changed"))
    return out


def _helper(c: Command, norm: Normaliser, base_names: set[str], base_labels: set[str],
            seen: set[str], anchor: str) -> list[ScopeProblem]:
    d = c.decl
    at = c.span.start
    if d is None:
        return [ScopeProblem(at, None, f"`{c.keyword}` command inserted before `{anchor}`: only "
                             "helper lemmas may be added")]
    out = _fresh(d, at, "helper", "helpers must be theorems, lemmas or examples", base_names,
                 base_labels, seen)
    has_sorry = any(t.value in _SORRY or t.value.endswith(".sorryAx")
                    for t in norm.tokens(d.body_span.start, d.span.end) if t.kind == "ident")
    if not claims_proved(d, norm) or has_sorry or not d.status.is_complete:
        out.append(ScopeProblem(at, d.key, f"helper `{d.name or d.key}` must be complete "
                                "(no sorry/admit)"))
    bad_attrs = [a for a in d.attributes if (a.split() or [""])[0] not in HELPER_ATTRS]
    if bad_attrs:
        out.append(ScopeProblem(at, d.key, f"helper attribute(s) {', '.join(bad_attrs)} not "
                                "allowed (allowed: " + ", ".join(f"`{a}`" for a in
                                                                 sorted(HELPER_ATTRS)) + ")"))
    bad_mods = [m for m in d.modifiers if m not in HELPER_MODIFIERS]
    if bad_mods:
        out.append(ScopeProblem(at, d.key, f"helper modifier(s) {', '.join(bad_mods)} not allowed"))
    return out


def _fresh(d: Decl, at: int, what: str, kinds_rule: str, base_names: set[str],
           base_labels: set[str], seen: set[str]) -> list[ScopeProblem]:
    """A new declaration (helper or placeholder): a theorem/lemma with a name and a label that
    neither the base nor an earlier new declaration has. Records its name and label in seen."""
    out = []
    if d.kind not in HELPER_KINDS:
        out.append(ScopeProblem(at, d.key, f"{what} `{d.name or d.key}` is a `{d.kind.value}`: "
                                f"{kinds_rule}"))
    if not d.name and d.kind != DeclKind.EXAMPLE:
        out.append(ScopeProblem(at, d.key, f"{what} has no name"))
    elif d.name in base_names or d.name in seen:
        out.append(ScopeProblem(at, d.key, f"{what} name `{d.name}` is already declared"))
    if d.label is not None and (d.label in base_labels or d.label in seen):
        out.append(ScopeProblem(at, d.key, f"{what} reuses the label `{d.label}`"))
    for x in (d.name, d.label):
        if x:
            seen.add(x)
    return out


# ----------------------------------------------------------------------------- split mode

def is_placeholder(d: Decl | None, norm: Normaliser) -> bool:
    """A declaration whose body is the canonical placeholder (`sorry` / `sorry_using [..]`)."""
    return (d is not None and d.body_sep == ":=" and not claims_proved(d, norm)
            and d.status in (BodyStatus.SORRY, BodyStatus.SORRY_USING))


def _placeholder(c: Command, new: Blueprint, base_names: set[str], base_labels: set[str],
                 seen: set[str]) -> list[ScopeProblem]:
    d = c.decl
    assert d is not None
    at, who = c.span.start, f"placeholder `{d.name or d.key}`"
    out = _fresh(d, at, "placeholder", "a split adds theorems or lemmas only", base_names,
                 base_labels, seen)
    if d.blueprint is None:
        out.append(ScopeProblem(at, d.key, f"{who} needs a @[blueprint \"label\"] attribute"))
    elif not (d.blueprint.statement or "").strip():
        out.append(ScopeProblem(at, d.key, f"{who} needs a `statement := /-- … -/`"))
    if d.attributes:
        out.append(ScopeProblem(at, d.key, f"placeholder attribute(s) {', '.join(d.attributes)} "
                                "not allowed (only `blueprint`)"))
    bad_mods = [m for m in d.modifiers if m not in HELPER_MODIFIERS]
    if bad_mods:
        out.append(ScopeProblem(at, d.key, f"placeholder modifier(s) {', '.join(bad_mods)} "
                                "not allowed"))
    out += _names_before(new, d, "placeholder", lambda e: True)
    return out


def _names_before(new: Blueprint, d: Decl, what: str, ok) -> list[ScopeProblem]:
    """Every `sorry_using` name of ``d`` resolves to a declaration before it accepted by ``ok``."""
    out = []
    r = Resolver(new)
    for name in d.sorry_using:
        hit = r.resolve(name, d)
        if hit is None or hit.span.start >= d.span.start or not ok(hit):
            out.append(ScopeProblem(d.body_span.start, d.key, f"{what} `{d.name or d.key}`: "
                                    f"`sorry_using` names `{name}`, which is not "
                                    + ("a declaration before it" if what == "placeholder" else
                                       "one of its new placeholders or an existing declaration "
                                       "before it")))
    return out


def _split_body(new: Blueprint, norm: Normaliser, key: str, helpers: list[Decl],
                base_names: set[str]) -> list[ScopeProblem]:
    nd = new.by_key(key)
    if not is_placeholder(nd, norm):
        return [ScopeProblem(nd.body_span.start, key, f"split node `{key}`: with new placeholder "
                             "nodes before it, its body must be `sorry_using [..]` naming them")]
    mine = {id(h) for h in helpers}  # the placeholders and helpers inserted before the node
    return _names_before(new, nd, "split node",
                         lambda e: id(e) in mine or (e.name is not None and e.name in base_names))
