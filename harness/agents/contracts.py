"""What a role may hand back, checked before any Lean time is spent on it.

These are early, cheap rejections with a clear reason for the model; the gate (harness/gate) stays
the only authority on acceptance. The lists are rendered into the prompts (``{{FORBIDDEN}}``) so
that a prompt never allows what the gate rejects.
"""

from __future__ import annotations

import re

from harness.blueprint.lexer import mask
from harness.errors import InputError
from harness.gate import forbidden as gate
from harness.gate import scope

# token -> why. Built from the gate's own lists (harness.gate.forbidden) so that the prompts and
# the early check can never allow what the gate rejects; checked on comment/string-masked text.
def _from(words: frozenset[str], why: str) -> dict[str, str]:
    return {w: why for w in sorted(words)}


FORBIDDEN_IN_STATEMENTS: dict[str, str] = {
    "axiom": "a new axiom can prove anything",
    "opaque": "hides a value from the kernel",
    "unsafe": "escapes the kernel's checks",
    **_from(gate.NATIVE, "trusts compiled code instead of the kernel"),
    **_from(gate.COMPILER, "swaps a definition's code for unchecked code"),
    **_from(gate.METAPROGRAM, "defines syntax or runs code at compile time"),
    "#eval": "runs arbitrary code while compiling",
    "#exit": "stops checking: everything after it goes unchecked",
    "#print": "its output can imitate the gate's axiom report",
    "+native": "skips the kernel's decision check",
    "+kernel": "skips the elaborator's decision check",
}

# the gate rejects these in a body only (a parameter may be called `stop`); in a final answer
# a search tactic must be replaced by the `Try this:` suggestion it prints
BODY_ONLY: dict[str, str] = {
    w: ("a search, not a proof: use the `Try this:` suggestion it prints instead"
        if w.endswith("?") else "stops elaboration: the rest of the proof goes unchecked")
    for w in sorted(gate.BODY_SORRY_WORDS)}

FORBIDDEN_IN_PROOFS: dict[str, str] = {
    **_from(gate.SORRY_WORDS | gate.ALWAYS_SORRY, "a placeholder, not a proof"),
    **BODY_ONLY,
    **FORBIDDEN_IN_STATEMENTS,
    "import": "a new import changes the whole environment",
    **_from(frozenset({"export", "include", "omit", "open_private"}),
            "changes what later statements mean"),
    "instance": "a new instance can change what the locked statements mean",
    "attribute": "changes declarations after the fact",
    "set_option": "only `set_option maxHeartbeats N in` (N > 0) and similar resource/linter/"
                  "pretty-printer options are allowed",
    **gate.EXTERNAL_TACTICS,
}

_ATOM = r"(?<![\w.'!?#+])"
_END = r"(?![\w'!?])"
_SET_OPTION = re.compile(r"(?<![\w.'])set_option\s+([\w.]+)\s+(\S+)")


def _pattern(tokens: dict[str, str]) -> re.Pattern[str]:
    alts = sorted(tokens, key=len, reverse=True)
    return re.compile(_ATOM + "(" + "|".join(re.escape(t) for t in alts) + ")" + _END)


_PROOF_RE = _pattern(FORBIDDEN_IN_PROOFS)
_STATEMENT_RE = _pattern(FORBIDDEN_IN_STATEMENTS)


def render_list(tokens: dict[str, str]) -> str:
    """Markdown bullet list for the prompts, one line per reason."""
    groups: dict[str, list[str]] = {}
    for t, why in tokens.items():
        groups.setdefault(why, []).append(f"`{t}`")
    return "\n".join(f"- {', '.join(ts)}: {why}" for why, ts in groups.items())


def _scan(text: str, pattern: re.Pattern[str]) -> list[str]:
    try:
        masked = mask(text)
    except InputError as err:
        return [f"unterminated comment or literal ({err.message})"]
    seen: list[str] = []
    for m in pattern.finditer(masked):
        if m.group(1) not in seen:
            seen.append(m.group(1))
    return seen


def _allowed_option(masked: str, at: int) -> bool:
    m = _SET_OPTION.match(masked, at)
    return bool(m and gate.OPTION_OK.match(m.group(1))
                and not ("axHeartbeats" in m.group(1) and not gate.lean_nat(m.group(2))))


def proof_violations(body: str, helpers: str = "", *, final: bool = True) -> list[str]:
    """Reasons a proof candidate (body + helpers) is rejected outright; empty if none.

    ``final=False`` (``check_candidate``: exploring) lets the body-only words through — `exact?`
    is how a model finds a lemma; only a submitted answer must be free of them."""
    text = body + "\n" + helpers
    try:
        masked = mask(text)
    except InputError as err:
        return [f"unterminated comment or literal ({err.message})"]
    bodies: list[tuple[int, int]] | None = None  # helper bodies, offsets in ``text``
    out: list[str] = []
    for m in _PROOF_RE.finditer(masked):
        t = m.group(1)
        if t == "set_option" and _allowed_option(masked, m.start()):
            continue
        if t in TACTIC_ONLY and not _tactic_position(masked, m.start(), m.end()):
            continue  # a hypothesis or argument named like the tactic (`have smt : …`)
        if t in BODY_ONLY:
            if not final:
                continue
            if m.start() > len(body):  # in the helpers: the gate only looks at their bodies
                if bodies is None:
                    bodies = _helper_bodies(helpers, len(body) + 1)
                if bodies and not any(a <= m.start() < b for a, b in bodies):
                    continue
        msg = f"`{t}` is not allowed in a proof: {FORBIDDEN_IN_PROOFS[t]}"
        if msg not in out:
            out.append(msg)
    return out + helper_violations(helpers)


TACTIC_ONLY = frozenset({"smt"})  # forbidden as a tactic only (harness.gate.rules)
_TACTIC_LEADS = ("by", ";", "<;>", "·", ".", "(", "=>", "|", "<|>", "try", "all_goals",
                 "any_goals", "first")


def _tactic_position(masked: str, start: int, end: int) -> bool:
    """As the gate reads it (gate.rules.tactic_position): first on its line or after a tactic
    combinator, and not followed by `:`/`,`/`)`/`]` (a name, not a tactic)."""
    before = masked[masked.rfind("\n", 0, start) + 1:start].rstrip()
    after = masked[end:].lstrip()
    if after[:1] in (":", ",", ")", "]"):
        return False
    return not before or before.endswith(_TACTIC_LEADS)


def _helper_bodies(helpers: str, shift: int) -> list[tuple[int, int]]:
    """The body spans of the helper declarations (empty when they do not parse: then every
    occurrence counts, and helper_violations reports the parse error)."""
    from harness.blueprint.parse import parse_text

    try:
        hbp = parse_text(helpers, "<helpers>")
    except InputError:
        return []
    return [(d.body_span.start + shift, d.span.end + shift) for d in hbp.decls if d.body_sep]


# what the gate's scope check admits before a node (harness.gate.scope)
HELPER_KINDS = frozenset(k.value for k in scope.HELPER_KINDS)
HELPER_ATTRS = scope.HELPER_ATTRS
HELPER_MODIFIERS = scope.HELPER_MODIFIERS


def helper_violations(helpers: str) -> list[str]:
    """Helpers must be complete theorems/lemmas, `@[simp]` at most, `private`/`protected` at most,
    and nothing else (no definitions, no commands) — the gate's scope rule."""
    if not helpers.strip():
        return []
    from harness.blueprint.parse import parse_text

    try:
        hbp = parse_text(helpers, "<helpers>")
    except InputError as err:
        return [f"the helpers do not parse: {err.line()}"]
    out: list[str] = []
    for c in hbp.commands:
        d = c.decl
        where = f"helpers {c.pos.line}:{c.pos.col}"
        if d is None:
            out.append(f"{where}: `{c.keyword}` is not allowed among helpers (only theorems "
                       "and lemmas)")
            continue
        if d.kind.value not in HELPER_KINDS:
            out.append(f"{where}: helper `{d.short_name}` is a `{d.kind.value}`; helpers must be "
                       "theorems, lemmas or examples")
        if d.blueprint is not None:
            out.append(f"{where}: helper lemmas of a proof must not carry a blueprint attribute")
        bad = [a for a in d.attributes if (a.split() or [""])[0] not in HELPER_ATTRS]
        if bad:
            out.append(f"{where}: attribute(s) {', '.join(bad)} not allowed on a helper "
                       f"(allowed: {', '.join(sorted(HELPER_ATTRS))})")
        mods = [m for m in d.modifiers if m not in HELPER_MODIFIERS]
        if mods:
            out.append(f"{where}: modifier(s) {', '.join(mods)} not allowed on a helper")
    return out


def statement_violations(text: str) -> list[str]:
    """Reasons a blueprint text from construct/repair is rejected outright; empty if none."""
    found = _scan(text, _STATEMENT_RE)
    return [f"`{t}` is not allowed: {FORBIDDEN_IN_STATEMENTS[t]}" if t in FORBIDDEN_IN_STATEMENTS
            else t for t in found]
