"""Token-level rules of the static filter that read a few tokens around one keyword.

Each answers "is this occurrence harmless?" from Lean's grammar as written in its source (cited
per rule); anything it cannot read as the one harmless shape is refused (the forbidden scan turns a
non-empty answer into a finding). Lean re-checks what it decides (docs/trust.md); these are a fast
first filter.
"""

from __future__ import annotations

from harness.gate.tokens import Tok

# set_option's value is one `num`, `str` or identifier (`true`/`false`), then `in` for a scoped
# use (leanprover/lean4 src/Lean/Parser/Command.lean `set_option`, Term.lean `set_option … in`)
_OPEN_WORDS = frozenset({"scoped", "hiding", "renaming", "→", "(", ")"})
# tokens that may start a tactic (where an external-program tactic would run)
_TACTIC_LEADS = frozenset({"by", ";", "<;>", "·", ".", "(", "=>", "|", "first", "try", "all_goals",
                           "any_goals", "focus", "repeat", "iterate", "on_goal", "case", "next"})
# a tactic configuration term (`simp (config := …)`) is elaborated and *evaluated*
# (`Lean.Elab.Tactic.elabConfig` / `declare_config_elab`, src/Lean/Elab/Tactic/Config.lean): only a
# literal structure instance is accepted
_CONFIG_OK = frozenset({"{", "}", "(", ")", ",", ":", "=", ".", "true", "false"})


def lean_nat(text: str) -> int | None:
    """A Lean natural-number literal's value (``400000``, ``00``, ``0x0``, ``0b1``, ``0o7``);
    None when ``text`` is not one (then it is not a limit we can vouch for)."""
    t = text.replace("_", "") if text[:1].isdigit() else text
    try:
        if t[:2].lower() in ("0x", "0b", "0o") and len(t) > 2:
            return int(t[2:], {"x": 16, "b": 2, "o": 8}[t[1].lower()])
        return int(t, 10) if t.isdigit() else None
    except ValueError:
        return None


def raw_in(tok: Tok, text: str) -> bool:
    """The keyword `in` — not the quoted identifier `«in»`, which Lean reads as a name."""
    return tok.kind == "ident" and text[tok.start:tok.end] == "in"


def glued_assign(toks: list[Tok], k: int) -> bool:
    """``toks[k]`` is followed by `:=` (two glued tokens `:` `=`)."""
    return (k + 2 < len(toks) and toks[k + 1].value == ":" and toks[k + 2].value == "="
            and toks[k + 2].start == toks[k + 1].end)


def scoped_in(toks: list[Tok], k: int, text: str) -> bool:
    """`open A B in …` / `set_option o v in …`: the `in` comes right after the command's own
    arguments. A later `in` on the line (`open Classical open Nat in`, `for x in`) does not
    scope it: Lean reads a persistent command there."""
    if toks[k].value == "set_option":
        return k + 3 < len(toks) and toks[k + 1].kind == "ident" and raw_in(toks[k + 3], text) \
            and toks[k + 2].kind in ("num", "ident", "str")
    j = k + 1
    while j < len(toks) and not raw_in(toks[j], text):
        u = toks[j]
        if not (u.kind == "ident" or u.value in _OPEN_WORDS) or u.value in ("open", "set_option"):
            return False
        j += 1
    return j < len(toks) and j > k + 1


def prefix_scoped(toks: list[Tok], k: int, head: int, text: str, words: frozenset[str]) -> bool:
    """A `cmd … in` prefix before a declaration keyword at ``head``: its own `in` comes before
    the next prefix command (`open A open B in` leaves `open A` persistent)."""
    if toks[k].value in ("open", "set_option"):
        return scoped_in(toks, k, text)
    j = k + 1
    while j < len(toks) and toks[j].start < head:
        if raw_in(toks[j], text):
            return True
        if toks[j].value in words:
            return False
        j += 1
    return False


def option_problem(toks: list[Tok], k: int, ok, caps: dict[str, int]) -> str | None:
    """Why `set_option` at ``k`` is refused (None: an allowed option with a sane value)."""
    nxt = toks[k + 1] if k + 1 < len(toks) else None
    opt = nxt.value if nxt is not None and nxt.kind == "ident" else ""
    val_tok = toks[k + 2] if k + 2 < len(toks) else None
    val = val_tok.value if val_tok is not None else ""
    if not ok.match(opt):
        return f"option `{opt}` is not allowed"
    after = toks[k + 3] if k + 3 < len(toks) else None
    glued = after is not None and val_tok is not None and after.start == val_tok.end
    if opt in caps:
        n = lean_nat(val)
        cap = caps[opt]
        if n is None or n == 0 or n > cap or glued:
            return (f"`{opt} {val}{'…' if glued else ''}` disables or unbounds the limit (or is "
                    f"not a plain number): give a positive literal up to {cap}, e.g. "
                    "`set_option maxHeartbeats 400000 in`")
    elif val not in ("true", "false") or glued:
        if not (val_tok is not None and val_tok.kind in ("num", "str") and not glued):
            return f"option `{opt}` takes `true`/`false` or a literal here, not `{val}`"
    return None


def config_problem(toks: list[Tok], k: int) -> str | None:
    """`(config := …)`: refused unless a literal structure instance (`{ decide := true }`)."""
    depth = 1  # inside the `(` before `config`
    j = k + 3
    while j < len(toks):
        u = toks[j]
        if u.value == "(":
            depth += 1
        elif u.value == ")":
            depth -= 1
            if depth == 0:
                return None
        if not (u.kind == "num" or u.value in _CONFIG_OK
                or (u.kind == "ident" and "." not in u.value)):
            return (f"`{u.value}` in a tactic configuration: Lean evaluates `(config := …)` at "
                    "compile time; write a literal structure instance (`{ field := true, … }`) "
                    "or the `+field`/`-field` flags")
        j += 1
    return "unterminated `(config := …)`"


def tactic_position(toks: list[Tok], k: int, text: str) -> bool:
    """``toks[k]`` can be read as a tactic: first on its line, or after `by`/`;`/`<;>`/`·`/… —
    not an argument (`exact smt`), a binder (`intro smt`) or a hypothesis name (`have smt :`)."""
    t = toks[k]
    line_start = text.rfind("\n", 0, t.start) + 1
    if not text[line_start:t.start].strip():
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        return not (nxt is not None and nxt.value in (":", ",", ")", "]"))
    return k > 0 and toks[k - 1].value in _TACTIC_LEADS
