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
from harness.gate.fingerprint import Normaliser, digest
from harness.gate.tokens import Lexed, Tok

SORRY_WORDS = frozenset({"sorry", "admit", "sorry_using"})
BODY_SORRY_WORDS = frozenset({"stop", "exact?", "apply?", "rw?"})  # tactics: only in a body
ALWAYS_SORRY = frozenset({"sorryAx"})
NATIVE = frozenset({"native_decide", "ofReduceBool", "ofReduceNat", "reduceBool", "reduceNat",
                    "trustCompiler", "bv_decide", "decide!"})
COMPILER = frozenset({"implemented_by", "extern", "csimp", "never_extract"})
METAPROGRAM = frozenset({
    "macro", "macro_rules", "syntax", "elab", "elab_rules", "declare_syntax_cat", "notation",
    "notation3", "infix", "infixl", "infixr", "prefix", "postfix", "binder_predicate", "simproc",
    "dsimproc", "simproc_decl", "dsimproc_decl", "builtin_simproc", "initialize",
    "builtin_initialize", "unif_hint", "register_option", "register_simp_attr",
    "declare_simp_like_tactic", "run_cmd", "run_tac", "run_elab", "run_meta", "by_elab",
    "grind_pattern", "delab", "app_unexpander"})
HASH_OK = frozenset({"check", "synth", "reduce", "where", "help"})  # `#check` etc. are inert
DECL_WORDS = frozenset({k.value for k in DeclKind} | {"namespace", "section", "universe",
                                                       "variable", "mutual", "import"})
BODY_COMMANDS = frozenset({"end", "export", "attribute", "notation", "open_private", "omit",
                           "include", "add_decl_doc", "assert_not_exists", "compile_inductive"})
COLUMN0_OK = frozenset({"|", "termination_by", "decreasing_by", "where", "deriving", ")", "]",
                        "}", "⟩"})
BAD_ATTRS = frozenset({"instance", "default_instance", "macro", "tactic", "term_elab",
                       "command_elab", "delab", "app_unexpander", "csimp", "implemented_by",
                       "extern", "export", "init", "builtin_init", "simproc", "never_extract",
                       "env_extension", "local", "scoped", "-instance"})
# options an agent may set (`set_option maxHeartbeats 400000 in`); everything else is rejected
OPTION_OK = re.compile(r"^(maxHeartbeats|synthInstance\.maxHeartbeats|maxRecDepth|"
                       r"synthInstance\.maxSize|linter\..*|pp\..*|trace\..*|profiler(\..*)?|"
                       r"diagnostics(\..*)?)$")
# code-like words only: English ones ("axiom of choice", "sorry") are fine in a title string
_STRING_WORDS = (NATIVE - {"decide!"}) | (COMPILER - {"extern"}) | ALWAYS_SORRY
STRING_WORDS = re.compile(r"(?<![\w'])(" + "|".join(
    re.escape(w) for w in sorted(_STRING_WORDS, key=len, reverse=True)) + r")(?![\w'])")

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


def scan(bp: Blueprint, lexed: Lexed, norm: Normaliser) -> list[Occurrence]:
    """Every forbidden occurrence in the file, in file order."""
    owners = _Owners(bp, norm)
    proved: dict[int, bool] = {}
    toks = lexed.tokens
    out: list[Occurrence] = []
    attr_depth = 0  # inside `@[ … ]` or `attribute [ … ]`
    bracket = 0

    def add(rule: str, tok: Tok, message: str) -> None:
        owner, _ = owners.at(tok.start)
        out.append(Occurrence(rule, owner, tok.start, message))

    for k, t in enumerate(toks):
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        glued = nxt is not None and nxt.start == t.end
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
        v = t.value
        last = _last(v)
        _, decl = owners.at(t.start)
        if attr_depth and v in BAD_ATTRS:
            add("attribute", t, f"attribute `{v}` changes elaboration or compilation")
            continue
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
            opt = nxt.value if nxt is not None and nxt.kind == "ident" else ""
            val = toks[k + 2].value if k + 2 < len(toks) else ""
            if not OPTION_OK.match(opt):
                add("set_option", t, f"option `{opt}` is not allowed")
            elif "axHeartbeats" in opt and val == "0":
                add("set_option", t, f"`{opt} 0` disables the resource limit")
        elif v == "instance" or (v == "deriving" and nxt is not None and nxt.value == "instance"):
            if v == "instance" and k > 0 and toks[k - 1].value == "deriving":
                continue
            add("instance", t, "a new instance can change what earlier statements mean")
        elif v == "attribute":
            add("attribute", t, "`attribute […]` changes declarations after the fact")
        elif v == "import":
            add("import", t, "a new import changes the whole environment")
        elif v in ("export", "include", "omit", "open_private"):
            add("context", t, f"`{v}` changes what later statements mean")
        if decl is not None and decl.body_sep and decl.body_span.start <= t.start < decl.span.end:
            why = _command_in_body(toks, k, bp.text)
            if why:
                add("command-in-body", t, why)
    return out


def _command_in_body(toks: list[Tok], k: int, text: str) -> str | None:
    """Lean starts a new command at a command keyword at *any* column, but the parser only splits
    at column 0: a command hidden in a body would escape the scope and context checks."""
    t = toks[k]
    v = t.value
    if v in DECL_WORDS or v in BODY_COMMANDS:
        return f"`{v}` inside a declaration body starts a new command"
    if v in ("open", "set_option"):  # fine as `open X in tac` / `set_option o v in tac`
        line_end = text.find("\n", t.end)
        line_end = len(text) if line_end == -1 else line_end
        for u in toks[k + 1:]:
            if u.start >= line_end:
                break
            if u.kind == "ident" and u.value == "in":
                return None
        return f"`{v}` without `in` inside a declaration body is a new command"
    if (t.start == 0 or text[t.start - 1] == "\n") and v not in COLUMN0_OK:
        return f"`{v}` at column 0 inside a declaration body: Lean may read a new command here"
    return None


def counts(occurrences: list[Occurrence]) -> dict[str, int]:
    return dict(Counter(o.group for o in occurrences))
