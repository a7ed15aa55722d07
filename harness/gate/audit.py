"""Judging Lean's list of what a file declares (:mod:`harness.gate.declared`) against what the
harness expects: the declarations it parsed, and — with a base revision — the base's own list
plus the changes the gate allows (the allowed nodes' proofs, the new helpers before them).

Rules (each failure names the constant and says what Lean saw):

* **kernel** — the kernel rejected a constant when it was replayed on top of the imports
  (``set_option debug.skipKernelTC true``, an elaborator assigning an ill-typed proof);
* **seen** — every declaration the text declares is a constant of the matching kind;
* **axiom / unsafe / partial** — only where the text declares them;
* **unexplained** — a definition, type or opaque constant no parsed declaration explains (a
  declaration hidden from our lexer, a `coinductive` shadowing `Nat`); theorems (attributes
  such as Mathlib's `@[simps]` generate them under other names; a hidden one is still replayed
  by the kernel and its `sorryAx` shows in its users' axioms), internal names (`_`-components,
  `match_N` …) and syntax kinds are left to the base comparison;
* with a base: **new** constants only for allowed nodes and new helpers; **removed** ones only
  of allowed nodes; **changed** kind, flags or type hash of any common constant, or the value
  hash of a definition not owned by an allowed node; **extension entries** (instances,
  reducibility, notation, macros, elaborators …) the same in number as in the base.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.blueprint.model import Blueprint, Decl, DeclKind
from harness.gate.declared import Audit, AuditConst

_PRIVATE = re.compile(r"^_private\.(?:.+?)\.0\.(?P<rest>.+)$")
_AUX_COMPONENT = re.compile(r"^(?:_.*|\d+|match_\d+|proof_\d+|eq_\d+|eq_def|eq_unfold|"
                            r"unfold|fun_cases|induct|mutual_induct|sizeOf_spec|injEq|inj|"
                            r"ctorIdx|toCtorIdx|noConfusionType|noConfusion|below|brecOn|"
                            r"binductionOn|casesOn|recOn|rec|ibelow|congr_simp)$")
# extensions whose entries change what later text means: instances, reducibility, notation,
# parsers, macros, elaborators, unification hints, default instances, coercions, classes. The
# names are Lean's registration names (unverified here); an unknown extension is compared only
# by the constants it comes with.
_MEANING_EXT = re.compile(r"instance|reducib|parser|macro|elab|notation|syntax|unifHint|"
                          r"coe|class|export|alias|token|delab|app_unexpander|unexpand",
                          re.I)
_KIND = {DeclKind.THEOREM: {"theorem"}, DeclKind.LEMMA: {"theorem"},
         DeclKind.DEF: {"def", "opaque"}, DeclKind.ABBREV: {"def"},
         DeclKind.INSTANCE: {"def", "theorem"}, DeclKind.AXIOM: {"axiom"},
         DeclKind.OPAQUE: {"opaque", "def"}, DeclKind.STRUCTURE: {"inductive"},
         DeclKind.CLASS: {"inductive", "def"}, DeclKind.INDUCTIVE: {"inductive"}}


@dataclass(slots=True)
class AuditProblem:
    key: str | None
    offset: int
    message: str


def user_name(name: str) -> str:
    m = _PRIVATE.match(name)
    return m.group("rest") if m else name


def is_internal(name: str) -> bool:
    parts = user_name(name).split(".")
    return any(_AUX_COMPONENT.match(p) or p.startswith("«") for p in parts)


class _Owners:
    """Constant name -> the parsed declaration that explains it (itself or a prefix)."""

    def __init__(self, bp: Blueprint) -> None:
        self.by_name: dict[str, Decl] = {}
        for d in bp.decls:
            for n in (d.name, *d.aliases):
                if n:
                    self.by_name.setdefault(n.removeprefix("_root_."), d)
        self.anon_instances = any(d.kind == DeclKind.INSTANCE and not d.name for d in bp.decls)
        self.deriving = "deriving" in bp.text

    def owner(self, name: str) -> Decl | None:
        parts = user_name(name).split(".")
        for i in range(len(parts), 0, -1):
            d = self.by_name.get(".".join(parts[:i]))
            if d is not None:
                return d
        return None

    def explained(self, c: AuditConst) -> bool:
        if self.owner(c.name) is not None or is_internal(c.name):
            return True
        last = user_name(c.name).rsplit(".", 1)[-1]
        return last.startswith("inst") and (self.anon_instances or self.deriving)


def _without_harness_helpers(audit: Audit) -> Audit:
    """The queries the harness appends to a certification compile (lean/usedconsts.py) are
    ours, not the file's."""
    from harness.lean.usedconsts import is_harness_helper

    keep = [c for c in audit.constants if not is_harness_helper(user_name(c.name))]
    return audit if len(keep) == len(audit.constants) else audit.model_copy(
        update={"constants": keep})


def check_text(bp: Blueprint, audit: Audit, known: set[str] | None = None
               ) -> list[AuditProblem]:
    """The rules that need no base: kernel, seen, axiom/unsafe/partial, unexplained (not for
    the ``known`` constants: the base has them, :func:`check_base` compares them)."""
    out: list[AuditProblem] = []
    audit = _without_harness_helpers(audit)
    if not audit.kernel_ok:
        out.append(AuditProblem(None, 0, "the kernel rejects a constant of this file when it is "
                                f"replayed on top of the imports: {_first(audit.kernel_message)}"
                                " (a proof the elaborator accepted without the kernel, e.g. "
                                "under `debug.skipKernelTC`)"))
    owners = _Owners(bp)
    consts = {user_name(c.name): c for c in audit.constants}
    for d in bp.decls:
        if not d.name or d.kind == DeclKind.EXAMPLE:
            continue
        c = consts.get(d.name.removeprefix("_root_."))
        want = _KIND.get(d.kind, set())
        if c is None:
            out.append(AuditProblem(d.key, d.span.start, f"Lean's environment has no constant "
                                    f"`{d.name}`, which the text declares (Lean reads this "
                                    "text differently)"))
        elif want and c.kind not in want:
            out.append(AuditProblem(d.key, d.span.start, f"`{d.name}` is a {c.kind} in Lean's "
                                    f"environment, not the `{d.kind.value}` the text declares"))
    for c in audit.constants:
        d = owners.owner(c.name)
        where = d.span.start if d else 0
        key = d.key if d else None
        if c.kind == "axiom" and (d is None or d.kind != DeclKind.AXIOM
                                  or d.name != user_name(c.name)):
            out.append(AuditProblem(key, where, f"Lean's environment has an axiom "
                                    f"`{user_name(c.name)}` the text does not declare"))
        for flag in ("unsafe", "partial"):
            if getattr(c, flag) and not (d and (flag in d.modifiers or "partial" in d.modifiers
                                                or "unsafe" in d.modifiers)):
                out.append(AuditProblem(key, where, f"`{user_name(c.name)}` is `{flag}` in "
                                        "Lean's environment (not checked by the kernel), and "
                                        "the text declares no such thing"))
        if c.kind != "theorem" and c.name not in (known or ()) and not owners.explained(c):
            out.append(AuditProblem(None, 0, f"Lean's environment has a {c.kind} "
                                    f"`{user_name(c.name)}` that no declaration the harness "
                                    "read from the text explains (hidden from our lexer?)"))
    return out


def check_base(base: Audit, audit: Audit, bp: Blueprint, allowed_names: set[str]
               ) -> list[AuditProblem]:
    """Candidate vs base: only the allowed owners (allowed nodes, new helpers) may differ."""
    out: list[AuditProblem] = []
    base, audit = _without_harness_helpers(base), _without_harness_helpers(audit)
    owners = _Owners(bp)
    module_aux = f"{audit.module}._auxLemma"

    def allowed(name: str) -> bool:
        d = owners.owner(name)
        if d is not None:
            return bool({d.name, *d.aliases} & allowed_names)
        return bool(allowed_names) and user_name(name).startswith(module_aux)

    def at(name: str) -> tuple[str | None, int]:
        d = owners.owner(name)
        return (d.key, d.span.start) if d else (None, 0)

    old, new = base.by_name(), audit.by_name()
    for n, c in new.items():
        b = old.get(n)
        if b is None:
            if not allowed(n) or c.kind not in ("theorem", "def", "opaque") or c.unsafe \
                    or c.partial or (c.kind != "theorem" and not is_internal(n)):
                out.append(AuditProblem(*at(n), f"Lean's environment has a new {c.kind} "
                                        f"`{user_name(n)}` that no allowed change explains"))
            continue
        what = [f for f in ("kind", "unsafe", "partial", "type") if getattr(c, f) != getattr(b, f)]
        if c.value != b.value and not allowed(n):
            what.append("value")
        if what:
            out.append(AuditProblem(*at(n), f"Lean sees `{user_name(n)}` differently from the "
                                    f"base ({', '.join(what)} changed)"))
    for n, b in old.items():
        if n not in new and not allowed(n):
            out.append(AuditProblem(*at(n), f"the {b.kind} `{user_name(n)}` of the base is no "
                                    "longer in Lean's environment"))
    for ext in sorted(set(base.ext) | set(audit.ext)):
        was, now = base.ext.get(ext, 0), audit.ext.get(ext, 0)
        if was != now and _MEANING_EXT.search(ext):
            out.append(AuditProblem(None, 0, f"the file now adds {now} entries to Lean's `{ext}` "
                                    f"(the base: {was}): instances, reducibility, notation and "
                                    "elaborators outlive the declaration that sets them"))
    return out


def _first(text: str | None) -> str:
    return ((text or "").strip().splitlines() or ["no message"])[0][:200]
