"""The static anti-cheat scan: forbidden tokens, on Lean tokens (never inside comments).

Every rule is listed, with why it is dangerous, in ``docs/trust.md``. The scan reports every
occurrence with its *owner* — the lock key of the declaration containing it, ``header`` for the
file header, or the keyword plus a digest of the command's normal form for other commands — so
the gate can allow what the lock already had (a user's own `axiom` stays allowed, a new one does
not) by comparing counts per ``rule|owner``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from harness.blueprint.model import Blueprint, Decl, DeclKind
from harness.blueprint.parse import START_WORDS
from harness.gate.fingerprint import Normaliser, digest
from harness.gate import rules
from harness.gate.rules import config_problem, glued_assign, raw_in, scoped_in, tactic_position
from harness.gate.tokens import Lexed, Tok

SORRY_WORDS = frozenset({"sorry", "admit", "sorry_using"})
BODY_SORRY_WORDS = frozenset({"stop", "exact?", "apply?", "rw?"})  # tactics: only in a body
ALWAYS_SORRY = frozenset({"sorryAx"})
NATIVE = frozenset({"native_decide", "ofReduceBool", "ofReduceNat", "reduceBool", "reduceNat",
                    "trustCompiler", "bv_decide", "decide!",
                    # Std.Tactic.BVDecide: both end in `Lean.ofReduceBool` (the LRAT checker runs
                    # compiled) exactly like `bv_decide`
                    "bv_decide?", "bv_check"})
COMPILER = frozenset({"implemented_by", "extern", "csimp", "never_extract"})
METAPROGRAM = frozenset({
    "macro", "macro_rules", "syntax", "elab", "elab_rules", "declare_syntax_cat", "notation",
    "notation3", "infix", "infixl", "infixr", "prefix", "postfix", "binder_predicate", "simproc",
    "dsimproc", "simproc_decl", "dsimproc_decl", "builtin_simproc", "initialize",
    "builtin_initialize", "unif_hint", "register_option", "register_simp_attr",
    "declare_simp_like_tactic", "run_cmd", "run_tac", "run_elab", "run_meta", "by_elab",
    "grind_pattern", "delab", "app_unexpander"})
HASH_OK = frozenset({"check", "synth", "reduce", "where", "help"})  # `#check` etc. are inert
DECL_WORDS = frozenset({k.value for k in DeclKind} | {
    "namespace", "section", "universe", "variable", "mutual", "import",
    # declaration keywords the parser does not read as declarations (rejected, never ignored):
    # `coinductive` (Lean >= 4.25), Mathlib's `variable?` (one token), `irreducible_def`, `alias`
    "coinductive", "variable?", "irreducible_def", "alias", "seal", "unseal", "universes",
    "variables", "noncomputable", "private", "protected", "public", "nonrec"})
BODY_COMMANDS = frozenset({"end", "export", "attribute", "notation", "open_private", "omit",
                           "include", "add_decl_doc", "assert_not_exists", "compile_inductive"})
COLUMN0_OK = frozenset({"|", "termination_by", "decreasing_by", "where", "deriving", ")", "]",
                        "}", "⟩"})
# code run while the file is elaborated (Lean evaluates these terms; docs/trust.md)
COMPILE_TIME = {"include_str": "`include_str` reads a file while compiling",
                "include_bytes": "`include_bytes` reads a file while compiling"}
BAD_ATTRS = frozenset({"instance", "default_instance", "macro", "tactic", "term_elab",
                       "command_elab", "delab", "app_unexpander", "csimp", "implemented_by",
                       "extern", "export", "init", "builtin_init", "simproc", "never_extract",
                       "env_extension", "local", "scoped", "-instance"})
# options an agent may set (`set_option maxHeartbeats 400000 in`); everything else is rejected
OPTION_OK = re.compile(r"^(maxHeartbeats|synthInstance\.maxHeartbeats|maxRecDepth|"
                       r"synthInstance\.maxSize|maxSynthPendingDepth|simprocs|linter\..*|pp\..*|"
                       r"trace\..*|profiler(\..*)?|diagnostics(\..*)?)$")
# numeric options: a positive literal no larger than this (0 or a huge value disables the limit:
# a hang, or a stack overflow of every later check). Defaults: 200000, 20000, 512, 128, 1.
LIMIT_CAPS = {"maxHeartbeats": 10_000_000, "synthInstance.maxHeartbeats": 1_000_000,
              "maxRecDepth": 100_000, "synthInstance.maxSize": 100_000,
              "maxSynthPendingDepth": 16}
# code-like words only: English ones ("axiom of choice", "sorry") are fine in a title string
_STRING_WORDS = (NATIVE - {"decide!"}) | (COMPILER - {"extern"}) | ALWAYS_SORRY
STRING_WORDS = re.compile(r"(?<![\w'])(" + "|".join(
    re.escape(w) for w in sorted(_STRING_WORDS, key=len, reverse=True)) + r")(?![\w'])")

# tactics that run external programs or compiled code while the file is checked (configurable:
# ``verify(deny_tactics=…)``, ``harness verify --deny-tactic/--allow-tactic``; docs/trust.md §3)
EXTERNAL_TACTICS: dict[str, str] = {
    "polyrith": "calls an external service (SageMath over the network) at check time",
    "plausible": "compiles and runs the goal's code at check time (random testing)",
    "slim_check": "compiles and runs the goal's code at check time (random testing)",
    "llmstep": "calls a language model over the network at check time",
    "hammer": "runs external automated provers at check time",
    "smt": "runs an external SMT solver at check time",
    "egg": "runs an external e-graph program at check time",
}
PREFIX_WORDS = frozenset({"open", "set_option", "variable", "attribute", "include", "omit"})
MODIFIER_WORDS = frozenset({"private", "protected", "noncomputable", "partial", "unsafe",
                            "nonrec", "public", "meta"})
# `attribute [local instance X] in` / `[local simp]` as a declaration's own prefix: scoped to that
# one declaration by `in` (a section around it), so no other statement can see it
SCOPED_ATTRS = frozenset({("local", "instance"), ("local", "simp")})

_PLACEHOLDER = re.compile(r"^(by )?(sorry|sorry_using \[[^\[\]]*\]|sorry_using\[[^\[\]]*\])$")


@dataclass(frozen=True, slots=True)
class Occurrence:
    rule: str
    owner: str
    offset: int
    message: str

    @property
    def group(self) -> str:
        return f"{self.rule}|{self.owner}"


def lock_key(d: Decl, norm: Normaliser) -> str:
    """Stable identity of a declaration: its key, or (anonymous instance/example) a digest."""
    if d.blueprint is not None or d.name:
        return d.key
    from harness.gate.fingerprint import statement_text
    return f"<{d.kind.value} {digest('anon', statement_text(norm, d))[:12]}>"


def claims_proved(d: Decl, norm: Normaliser) -> bool:
    """Anything but the canonical placeholder body (`sorry`, `sorry_using [..]`, optionally after
    `by`) claims to be complete. `by admit`, `by simp; sorry` or `exact sorryAx _` are claims."""
    if d.kind == DeclKind.AXIOM or not d.body_sep:
        return False
    body = norm.span(d.body_span)
    return _PLACEHOLDER.match(body) is None


class _Owners:
    def __init__(self, bp: Blueprint, norm: Normaliser) -> None:
        self.spans: list[tuple[int, int, str, Decl | None]] = []
        for c in bp.commands:
            if c.span.end <= bp.header_span.end:
                owner = "header"
            elif c.decl is not None:
                owner = lock_key(c.decl, norm)
            else:
                owner = f"{c.keyword}#{digest('cmd', norm.span(c.span))[:12]}"
            self.spans.append((c.span.start, c.span.end, owner, c.decl))

    def at(self, offset: int) -> tuple[str, Decl | None]:
        lo, hi = 0, len(self.spans)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.spans[mid][1] <= offset:
                lo = mid + 1
            else:
                hi = mid
        if lo < len(self.spans) and self.spans[lo][0] <= offset:
            return self.spans[lo][2], self.spans[lo][3]
        return "<file>", None


def _last(name: str) -> str:
    name = name[len("_root_."):] if name.startswith("_root_.") else name
    return name.rsplit(".", 1)[-1]


def scan(bp: Blueprint, lexed: Lexed, norm: Normaliser, *,
         deny_tactics: dict[str, str] | None = None) -> list[Occurrence]:
    """Every forbidden occurrence in the file, in file order (``deny_tactics``: the external-
    program tactics, default :data:`EXTERNAL_TACTICS`)."""
    owners = _Owners(bp, norm)
    proved: dict[int, bool] = {}
    toks = lexed.tokens
    out: list[Occurrence] = []
    attr_depth = 0  # inside `@[ … ]` or `attribute [ … ]`
    bracket = 0

    def add(rule: str, tok: Tok, message: str) -> None:
        owner, _ = owners.at(tok.start)
        out.append(Occurrence(rule, owner, tok.start, message))

    deny = EXTERNAL_TACTICS if deny_tactics is None else deny_tactics
    scoped_upto = -1  # inside an allowed `attribute [local …] … in` prefix, up to this offset
    for k, t in enumerate(toks):
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        glued = nxt is not None and nxt.start == t.end
        if t.kind == "ident" and t.value == "attribute":
            _, d0 = owners.at(t.start)
            # the prefix up to its `in`; a further prefix after it is read like any other code
            scoped_upto = max(scoped_upto, _scoped_attribute(toks, k, d0, bp.text))
        if t.kind == "str":
            for m in STRING_WORDS.finditer(t.value):
                add("string", t, f"`{m.group(1)}` inside a string literal")
            continue
        if t.kind == "sym":
            if t.value == "[" and attr_depth:
                bracket += 1
            elif t.value == "]" and attr_depth:
                bracket -= 1
                if bracket == 0:
                    attr_depth = 0
            elif t.value == "@" and glued and nxt.value == "[":
                attr_depth, bracket = 1, 0
            elif t.value == "#" and glued and nxt.kind == "ident":
                word = nxt.value
                if word in ("eval", "eval!"):
                    add("compile-time-code", t, "`#eval` runs arbitrary code while compiling")
                elif word == "exit":
                    add("exit", t, "`#exit` stops Lean: everything after it goes unchecked")
                elif word == "print":
                    add("print", t, "`#print` output can imitate the gate's axiom report")
                elif word not in HASH_OK:
                    add("command", t, f"`#{word}` is not an allowed command")
            elif t.value == "+" and glued and nxt.kind == "ident" and nxt.value in ("native", "kernel"):
                add("decide-escape", t, f"`+{nxt.value}` skips the elaborator's decision check")
            continue
        if t.kind != "ident":
            continue
        if t.start < scoped_upto and t.value in ("attribute", "local", "instance", "simp"):
            continue  # an allowed `attribute [local instance] X in` prefix
        v = t.value
        last = _last(v)
        _, decl = owners.at(t.start)
        if attr_depth and v in BAD_ATTRS:
            if not (v in ("local", "instance", "simp") and scoped_upto > t.start):
                add("attribute", t, f"attribute `{v}` changes elaboration or compilation")
            continue
        if v == "partial" and (decl is None or decl.kind != DeclKind.DEF):
            add("partial", t, "`partial` only belongs on a `def` (a partial theorem is opaque to "
                "the kernel)")
        if v in deny and decl is not None and decl.body_sep and t.start >= decl.body_span.start \
                and bp.text[t.start:t.end] == v and tactic_position(toks, k, bp.text):
            add("external", t, f"`{v}` {deny[v]}; prove the goal with ordinary tactics")
        if last in ALWAYS_SORRY:
            add("sorry", t, f"`{v}` is a sorry in disguise")
        elif v in SORRY_WORDS or (v in BODY_SORRY_WORDS and decl is not None and decl.body_sep
                                  and t.start >= decl.body_span.start):
            if decl is None:
                add("sorry", t, f"`{v}` outside a declaration")
            else:
                key = id(decl)
                if key not in proved:
                    proved[key] = claims_proved(decl, norm)
                if proved[key] or decl.kind.is_definition:
                    add("sorry", t, f"`{v}` in a declaration that claims to be complete")
        elif last in NATIVE or v in NATIVE:
            add("native", t, f"`{v}` trusts compiled code instead of the kernel")
        elif v in ("native", "kernel") and nxt is not None and nxt.value == ":" \
                and k + 2 < len(toks) and toks[k + 2].value == "=" and toks[k + 2].start == nxt.end:
            add("decide-escape", t, f"`{v} := …` skips the elaborator's decision check")
        elif last in COMPILER:
            add("compiler", t, f"`{v}` swaps a definition's code for unchecked code")
        elif v == "axiom":
            add("axiom", t, "a new axiom can prove anything")
        elif v == "opaque":
            add("opaque", t, "an `opaque` constant hides its value from the kernel")
        elif v == "unsafe" or last.startswith("unsafe") or last == "ptrAddrUnsafe":
            add("unsafe", t, f"`{v}` escapes the kernel's checks")
        elif v in METAPROGRAM:
            add("metaprogram", t, f"`{v}` defines syntax or runs code at compile time")
        elif v == "set_option":
            why = option_problem(toks, k)
            if why:
                add("set_option", t, why)
        elif v == "instance" or (v == "deriving" and nxt is not None and nxt.value == "instance"):
            if v == "instance" and k > 0 and toks[k - 1].value == "deriving":
                continue
            add("instance", t, "a new instance can change what earlier statements mean")
        elif v == "attribute":
            if _scoped_attribute(toks, k, decl, bp.text) < 0:
                add("attribute", t, "`attribute […]` changes declarations after the fact (only "
                    "`attribute [local instance] X in` / `[local simp]` directly before a helper "
                    "is allowed: `in` scopes it to that one declaration)")
        elif v == "import":
            add("import", t, "a new import changes the whole environment")
        elif v in ("export", "include", "omit", "open_private", "variable?"):
            add("context", t, f"`{v}` changes what later statements mean")
        elif v in COMPILE_TIME:
            add("compile-time-code", t, COMPILE_TIME[v])
        elif v == "config" and k > 0 and toks[k - 1].value == "(" and glued_assign(toks, k):
            why = config_problem(toks, k)
            if why:
                add("config", t, why)
        if decl is not None and decl.body_sep and decl.body_span.start <= t.start < decl.span.end:
            first = k == 0 or toks[k - 1].start < decl.body_span.start
            why = _command_in_body(toks, k, bp.text, first)
            if why:
                add("command-in-body", t, why)
        elif decl is not None and v in PREFIX_WORDS and not attr_depth \
                and decl.span.start <= t.start < decl.head_span.start \
                and not rules.prefix_scoped(toks, k, decl.head_span.start, bp.text, PREFIX_WORDS):
            add("command-in", t, f"`{v} …` before a declaration without its own `in` is a "
                "persistent command (a later `in` on the line scopes only what follows it)")
        elif (t.start == 0 or bp.text[t.start - 1] == "\n") and v not in START_WORDS \
                and v not in COLUMN0_OK and not t.in_string:
            add("command-unknown", t, f"`{v}` at column 0 is no command the gate knows: Lean "
                "may read a declaration here (unknown keywords are rejected, never ignored)")
    for off in lexed.module_docs:  # `/-!` is a command (Lean), wherever it is indented
        owner, d = owners.at(off)
        if d is not None and d.head_span.start < off < d.span.end:
            out.append(Occurrence("module-doc", owner, off, (
                "`/-! … -/` inside a declaration is a module-doc *command* in Lean: it ends the "
                "declaration, and what follows is read as new top-level commands")))
    out += _structure(bp, norm, owners)
    return sorted(out, key=lambda o: o.offset)


lean_nat = rules.lean_nat  # re-exported: scope.py and agents/contracts.py read it from here


def option_problem(toks: list[Tok], k: int) -> str | None:
    return rules.option_problem(toks, k, OPTION_OK, LIMIT_CAPS)


def _scoped_attribute(toks: list[Tok], k: int, decl: Decl | None, text: str) -> int:
    """`attribute [local instance X] in` (or `[local simp]`) as the prefix of ``decl``: the end
    offset of its `in` (-1: not such a prefix)."""
    if decl is None or not (decl.span.start <= toks[k].start < decl.head_span.start):
        return -1
    if k + 1 >= len(toks) or toks[k + 1].value != "[":
        return -1
    j = k + 2
    words: list[str] = []
    while j < len(toks) and toks[j].value != "]":
        words.append(toks[j].value)
        j += 1
    if tuple(words[:2]) not in SCOPED_ATTRS or any(w in (",", ";") for w in words):
        return -1
    # then the attributed names, then the keyword `in`, still before the declaration keyword
    j += 1
    while j < len(toks) and toks[j].start < decl.head_span.start and toks[j].kind == "ident" \
            and not raw_in(toks[j], text):
        j += 1
    if j < len(toks) and raw_in(toks[j], text) and toks[j].start < decl.head_span.start:
        return toks[j].end
    return -1


def _structure(bp: Blueprint, norm: Normaliser, owners: "_Owners") -> list[Occurrence]:
    """Declarations Lean sees but the parser's structure hides or misplaces."""
    out: list[Occurrence] = []
    text = bp.text
    for c in bp.commands:
        if c.decl is not None or c.span.end <= bp.header_span.end:
            continue
        toks = norm.tokens(c.span.start, c.span.end)
        for i, t in enumerate(toks[:-1]):  # `cmd in decl`: Lean reads `section cmd decl end`
            nxt = toks[i + 1]
            if raw_in(t, text) and (nxt.value in DECL_WORDS or nxt.value in MODIFIER_WORDS
                                    or nxt.value == "@"):
                owner, _ = owners.at(c.span.start)
                out.append(Occurrence("command-in", owner, nxt.start, (
                    f"`… in {nxt.value} …` declares `{nxt.value} …` (Lean reads `cmd in decl` as a "
                    "section holding the declaration, which persists): write the declaration as "
                    "its own command")))
    # a declaration named like another one plus a prefix (`X.Demo.gauss` next to `Demo.gauss`):
    # a report or `#check` by suffix would take one for the other
    names = {d.name for d in bp.decls if d.name}
    for d in bp.decls:
        if not d.name:
            continue
        parts = d.name.split(".")
        for i in range(1, len(parts) - 1):
            other = ".".join(parts[i:])
            if other in names:
                owner, _ = owners.at(d.span.start)
                out.append(Occurrence("impostor", owner, d.span.start, (
                    f"`{d.name}` ends in the full name of `{other}`: give it a name of its own "
                    "(a report for one could be read as the other's)")))
                break
    # after the file's last top-level `end`: `#print axioms Demo.x` could meet an impostor
    # `namespace X … theorem Demo.x`, and the file's namespaces are over
    depth, last_end = 0, None
    for c in bp.commands:
        if c.keyword in ("namespace", "section"):
            depth += 1
        elif c.keyword == "end":
            depth = max(0, depth - 1)
            if depth == 0:
                last_end = c
    if last_end is not None:
        for c in bp.commands:
            if c.span.start > last_end.span.start and (c.decl is not None
                                                       or c.keyword == "namespace"):
                owner, _ = owners.at(c.span.start)
                what = f"`{c.decl.kind.value} {c.decl.name or ''}`".replace(" `", "`") \
                    if c.decl is not None else "`namespace`"
                out.append(Occurrence("after-end", owner, c.span.start, (
                    f"{what} after the file's last `end`: declarations belong inside the file's "
                    "namespace, before its final `end`")))
    return out


def _command_in_body(toks: list[Tok], k: int, text: str, first_of_body: bool = False
                     ) -> str | None:
    """Lean starts a new command at a command keyword at *any* column, but the parser only splits
    at column 0: a command hidden in a body would escape the scope and context checks."""
    t = toks[k]
    v = t.value
    if v in DECL_WORDS or v in BODY_COMMANDS:
        return f"`{v}` inside a declaration body starts a new command"
    if v in ("open", "set_option"):  # fine as `open X in tac` / `set_option o v in tac`
        if scoped_in(toks, k, text):
            return None
        return (f"`{v}` not directly followed by its `… in` inside a declaration body is a new "
                "command (a later `in` on the line does not scope it)")
    if (t.start == 0 or text[t.start - 1] == "\n") and v not in COLUMN0_OK \
            and not first_of_body:
        return f"`{v}` at column 0 inside a declaration body: Lean may read a new command here"
    return None


def counts(occurrences: list[Occurrence]) -> dict[str, int]:
    return dict(Counter(o.group for o in occurrences))
