"""The trust gate: nothing enters the record unless :func:`verify` passes it.

API (stable; the orchestrator calls it before anything is merged)::

    verify(text, path, lock, *, base_text=None, allow=None, allow_splits=None, lean=None,
           static_only=False, workspace=None, timeout_s=None) -> GateReport

Checks, in order (each failure carries its check, node key and ``FILE:LINE:COL``):

1. ``lexer``     the gate's Lean-faithful lexer and the parser's agree on comments/literals;
2. ``lock``      every locked declaration still exists with the same statement, definition
                 (body included) and context fingerprints, in the same order; header unchanged;
                 no new declaration shadows a name a locked statement uses; no duplicates.
                 Informal-statement edits are listed in ``informal_changes`` (not failures);
3. ``forbidden`` no forbidden token (docs/trust.md) beyond what the lock already had;
4. ``scope``     with ``base_text``: only the ``allow``ed nodes' bodies changed, plus new helper
                 lemmas directly before them (:mod:`harness.gate.scope`); for ``allow_splits``
                 labels also a repair split: new placeholder nodes before the node and a
                 ``sorry_using`` body naming them;
5. ``lean``      with ``lean``: the whole file compiles without any error, claimed-complete
                 declarations are sorry-free and use only the standard axioms, and Lean's
                 own list of the constants, instances and extension entries the file adds —
                 replayed through the kernel — is what the text and the base explain
                 (:mod:`harness.gate.leanstep`, :mod:`harness.gate.audit`);
                 if the lock has elaborated-type hashes, each locked declaration's type is
                 re-elaborated in the same compile and compared (failure check ``lock``,
                 "elaborated type changed").

``GateReport.exit_code``: 0 pass, 1 fail, 3 cannot certify (no Lean and not ``static_only``,
or Lean timed out/crashed). Unparseable text raises :class:`harness.errors.InputError` (exit 2);
an unknown ``allow`` entry raises :class:`harness.errors.UsageError`.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, computed_field

from harness.blueprint.model import Blueprint, DeclKind
from harness.blueprint.parse import parse_text
from harness.errors import UsageError
from harness.gate import fingerprint as fp
from harness.gate.elaborated import locked_types, locked_values, type_hash, value_hash
from harness.gate.environment import blueprint_imports, compare, environment
from harness.gate.forbidden import _last, claims_proved, lock_key, scan
from harness.gate.leanstep import LeanHandle, run_lean
from harness.gate.lock import Lock
from harness.gate.sanitize import printable
from harness.gate.scope import check_scope, resolve_allowed, safe_prefix_line
from harness.gate.tokens import divergence, lex

LeanStatus = Literal["passed", "failed", "not run", "cannot certify"]


class GateFailure(BaseModel):
    check: str  # lexer | lock | forbidden | scope | lean
    rule: str | None = None  # forbidden-rule id (docs/trust.md)
    key: str | None = None  # node label or Lean name
    path: str
    line: int
    col: int
    message: str

    def render(self) -> str:
        """One line, safe for a terminal (escapes in a label or a Lean message are shown)."""
        who = f" {self.key}:" if self.key else ""
        return printable(f"{self.path}:{self.line}:{self.col}: [{self.check}]{who} "
                         f"{self.message}")


class InformalChange(BaseModel):
    key: str
    path: str
    line: int
    col: int
    message: str


class GateReport(BaseModel):
    path: str
    passed: bool
    certified: bool
    static_only: bool
    lean_status: LeanStatus
    lean_detail: str | None = None
    failures: list[GateFailure] = []
    informal_changes: list[InformalChange] = []
    checks: list[str] = []  # the checks that ran
    # elaborated-type comparison: "compared" (Lean ran, the lock has hashes), "not in lock" (the
    # lock has none: statements compared by normalised source only), "not run" (no Lean step)
    elaborated: Literal["compared", "not in lock", "not run"] = "not run"
    notes: list[str] = []  # informational lines (never a failure)
    # claimed-complete declarations whose Lean axiom report has `sorryAx` only through
    # declarations they use: accepted, but not proved (docs/trust.md §5)
    relative: list[str] = []

    @computed_field  # type: ignore[prop-decorator]
    @property
    def exit_code(self) -> int:
        if self.failures:
            return 1
        if self.lean_status == "cannot certify" or (not self.certified and not self.static_only):
            return 3
        return 0


class _Ctx:
    def __init__(self, bp: Blueprint, path: str) -> None:
        self.bp = bp
        self.path = path
        self.failures: list[GateFailure] = []

    def fail(self, check: str, offset: int, message: str, key: str | None = None,
             rule: str | None = None) -> None:
        p = self.bp.pos_of(offset)
        self.failures.append(GateFailure(check=check, rule=rule, key=key, path=self.path,
                                         line=p.line, col=p.col, message=message))


def verify(text: str, path: str | Path | None, lock: Lock, *, base_text: str | None = None,
           allow: set[str] | None = None, allow_splits: set[str] | None = None,
           lean: LeanHandle | None = None, static_only: bool = False,
           workspace: Path | None = None, timeout_s: float | None = None,
           deny_tactics: dict[str, str] | None = None) -> GateReport:
    """``allow_splits``: labels (a subset of, or added to, ``allow``) whose node may be split.
    ``deny_tactics``: tactic -> why it is denied (default ``forbidden.EXTERNAL_TACTICS``)."""
    if (allow or allow_splits) and base_text is None:
        raise UsageError("--allow needs --base (the allowed nodes are relative to a base)")
    allow = set(allow or ()) | set(allow_splits or ())
    # `prelude` is valid Lean (no `Init`: every name can mean something else) but not a file
    # the parser reads: parse it with the keyword blanked out and reject it as a finding
    readable, prelude = blank_prelude(text)
    bp = parse_text(readable, path)
    shown = bp.display_path
    ctx = _Ctx(bp, shown)
    checks = ["lexer", "lock", "forbidden"]
    lexed = lex(text)
    div = divergence(text, lexed)
    if div is not None:
        ctx.fail("lexer", div[0], div[1])
    if lexed.error is not None:  # no reliable tokens: nothing else can be judged
        return _report(ctx, checks, "not run", "lexical error", static_only)
    norm = fp.Normaliser(text, lexed)
    if prelude is not None:
        ctx.fail("forbidden", prelude, "prelude: `prelude` changes the environment (the file "
                 "no longer imports Lean's `Init`, so every name may mean something else)",
                 rule="prelude")
    informal = _check_lock(ctx, lock, norm, allow)
    _check_forbidden(ctx, lock, lexed, norm, deny_tactics)
    allowed_names: set[str] = set()
    if base_text is not None:
        checks.append("scope")
        base = parse_text(base_text, path)
        base_lexed = lex(base_text)
        if base_lexed.error is not None:
            p = base.pos_of(base_lexed.error[0])
            ctx.fail("scope", 0, f"base revision does not lex ({p}: {base_lexed.error[1]})")
        else:
            keys = resolve_allowed(base, allow)
            splits = resolve_allowed(base, set(allow_splits or ()))
            allowed_names = _allowed_names(base, bp, keys)
            for pr in check_scope(base, fp.Normaliser(base_text, base_lexed), bp, norm, keys,
                                  splits=splits):
                ctx.fail("scope", pr.offset, pr.message, pr.key)
    report = _report(ctx, checks, "not run", None, static_only)
    report.informal_changes = informal
    typed = locked_types(bp, lock)
    if not lock.elaborated:
        report.elaborated = "not in lock"
        report.notes.append("the lock has no elaborated-type hashes: statements are compared by "
                            "their normalised source only")
    if ctx.failures or static_only or lean is None:
        if ctx.failures:
            report.lean_detail = "skipped: static checks failed"
        elif lean is None and not static_only:
            report.lean_detail = "no Lean toolchain: the compile and axiom checks did not run"
        if typed:
            report.notes.append("the lock has elaborated-type hashes but Lean did not run: "
                                "they were not compared")
        return report
    report.checks.append("lean")
    claimed = list(dict.fromkeys(d.key for d in bp.decls if d.name and d.kind != DeclKind.AXIOM
                                 and claims_proved(d, norm)))
    valued = locked_values(bp, lock) if typed else []
    outcome = run_lean(bp, claimed, lean, workspace=workspace, timeout_s=timeout_s,
                       types=[d.key for d, _ in typed] or None,
                       values=[d.key for d, _ in valued] or None,
                       base_text=base_text, allowed_names=allowed_names)
    for pr in outcome.problems:
        ctx.failures.append(GateFailure(check="lean", key=pr.key, path=shown, line=pr.line,
                                        col=pr.col, message=pr.message))
    if typed and outcome.status != "cannot certify":
        missing = _compare_types(ctx, typed, outcome.types or {})
        missing += _compare_types(ctx, valued, outcome.values or {}, what="value")
        if missing and outcome.status == "passed":  # a runner that answered only partly
            outcome.status, outcome.detail = "cannot certify", (
                f"Lean gave no elaborated type for {', '.join(missing[:5])}")
        else:
            report.elaborated = "compared"
    report.failures = ctx.failures
    report.lean_status = outcome.status  # type: ignore[assignment]
    report.lean_detail = outcome.detail
    report.relative = outcome.relative
    if outcome.relative:
        report.notes.append("accepted relative to unproved dependencies (sorryAx in Lean's axiom "
                            "report; not proved until it is clean): " + ", ".join(outcome.relative[:10]))
    if outcome.status == "passed" and not outcome.audited:
        report.notes.append("Lean's list of the file's constants was not read (a pre-bound "
                            "runner without `audit`): no kernel replay, no constant comparison")
    report.certified = outcome.status == "passed"
    report.passed = report.certified and not ctx.failures
    return report


def _allowed_names(base: Blueprint, bp: Blueprint, keys: set[str]) -> set[str]:
    """Lean names that may differ from the base in Lean's environment: the allowed nodes (their
    proofs and auxiliary constants) and the declarations that are new (the scope check admits
    only helpers and split placeholders among them)."""
    old = {d.name for d in base.decls if d.name}
    out = {n for d in bp.decls if d.key in keys for n in (d.name, *d.aliases) if n}
    return out | {d.name for d in bp.decls if d.name and d.name not in old}


def blank_prelude(text: str) -> tuple[str, int | None]:
    """``text`` with a leading `prelude` keyword blanked out, and its offset (None: none)."""
    toks = lex(text).tokens
    if toks and toks[0].kind == "ident" and text[toks[0].start:toks[0].end] == "prelude":
        at = toks[0].start
        return text[:at] + " " * len("prelude") + text[at + len("prelude"):], at
    return text, None


def _compare_types(ctx: _Ctx, typed: list, types: dict[str, str], what: str = "type"
                   ) -> list[str]:
    """Failures for changed elaborated types (or definition values); returns the keys Lean
    gave no answer for."""
    missing = []
    for d, locked in typed:
        got = types.get(d.key)
        if got is None:
            missing.append(d.key)
        elif (type_hash(got) if what == "type" else value_hash(got)) != locked:
            ctx.fail("lock", d.head_span.start, f"elaborated {what} changed (the "
                     f"{'statement' if what == 'type' else 'definition'} now means something "
                     "else, e.g. through a definition, notation, instance or library it "
                     "depends on, or a re-indented `do` block)", d.key)
    return missing


def _report(ctx: _Ctx, checks: list[str], lean_status: LeanStatus, detail: str | None,
            static_only: bool) -> GateReport:
    ok = not ctx.failures
    return GateReport(path=ctx.path, passed=ok and static_only, certified=False,
                      static_only=static_only, lean_status=lean_status, lean_detail=detail,
                      failures=ctx.failures, checks=list(checks))


# ----------------------------------------------------------------------------- 1. the lock

def _check_lock(ctx: _Ctx, lock: Lock, norm: fp.Normaliser, allow: set[str] = frozenset()
                ) -> list[InformalChange]:
    """``allow``: the nodes a prover may edit (labels or names); only their own harmless `… in`
    prefixes may differ from the lock (issue #19 item 7)."""
    bp = ctx.bp
    contexts = fp.Contexts(norm, bp)
    informal: list[InformalChange] = []
    if fp.header_fp(norm, bp) != lock.header:
        ctx.fail("lock", bp.header_span.start, "file header changed (imports or options)")
    if lock.environment:
        now = environment(bp.path, blueprint_imports(bp))
        for msg in compare(lock.environment, now):
            ctx.fail("lock", 0, f"workspace file {msg}: the Lake configuration, toolchain and "
                     "imported project modules are part of what every statement means")
    for f in bp.findings:
        if f.code in ("duplicate-name", "duplicate-label"):
            ctx.fail("lock", bp.offset_of(f.pos), f.message, f.label)
    by_key: dict[str, int] = {}
    keys: list[str] = []
    for i, d in enumerate(bp.decls):
        if d.kind == DeclKind.EXAMPLE:
            keys.append("")
            continue
        k = lock_key(d, norm)
        keys.append(k)
        by_key.setdefault(k, i)
    order = {e.key: n for n, e in enumerate(lock.entries)}
    last_seen = -1
    for e in lock.entries:
        i = by_key.get(e.key)
        if i is None:
            _missing(ctx, e, bp, keys, order)
            continue
        d = bp.decls[i]
        at = d.head_span.start
        if e.name != d.name:
            ctx.fail("lock", d.span.start, f"renamed: `{e.name}` is now `{d.name}`", e.key)
        if e.kind != d.kind.value:
            ctx.fail("lock", at, f"kind changed from `{e.kind}` to `{d.kind.value}`", e.key)
        if e.definition is not None and fp.definition_fp(norm, d) != e.definition:
            ctx.fail("lock", at, "definition changed (a definition's body is part of what the "
                     "statements using it mean)", e.key)
        elif e.layout is not None and fp.layout_fp(norm, d) != e.layout:
            ctx.fail("lock", at, "definition re-indented or re-wrapped: its line structure "
                     "changed, and in a `do` or tactic block that changes its value", e.key)
        elif fp.statement_fp(norm, d) != e.statement:
            ctx.fail("lock", at, "statement changed", e.key)
        editable = bool({e.key, e.label, e.name, d.short_name} & allow)
        if contexts.fp(d) != e.context and not (editable and _same_but_safe_prefixes(
                lock.contexts.get(e.context), contexts.lines(d))):
            ctx.fail("lock", at, "context changed: " + _context_diff(
                lock.contexts.get(e.context), contexts.lines(d)), e.key)
        if fp.informal_fp(d) != e.informal:
            p = bp.pos_of(d.blueprint.span.start if d.blueprint else d.span.start)
            informal.append(InformalChange(key=e.key, path=ctx.path, line=p.line, col=p.col,
                                           message="informal statement changed"))
    # relative order of locked declarations (moving an instance or definition changes meaning)
    for i, k in enumerate(keys):
        n = order.get(k)
        if n is None or by_key.get(k) != i:
            continue
        if n < last_seen:
            ctx.fail("lock", bp.decls[i].span.start, "moved: locked declarations must keep "
                     "their order", k)
        last_seen = max(last_seen, n)
    _check_shadowing(ctx, norm, keys, order)
    return informal


def _same_but_safe_prefixes(old: list[str] | None, new: list[str]) -> bool:
    """Only `set_option maxHeartbeats N in` / `open Classical in` prefixes differ: options that
    cannot change what the statement means (the type hash still compares it, with Lean)."""
    if old is None:
        return False
    return [x for x in old if not safe_prefix_line(x)] == [x for x in new
                                                          if not safe_prefix_line(x)]


def _context_diff(old: list[str] | None, new: list[str]) -> str:
    if old is None:
        return "namespace/open/variable/universe/options or another command before it"
    added = [f"+`{x}`" for x in new if x not in old and x != "--"]
    removed = [f"-`{x}`" for x in old if x not in new and x != "--"]
    parts = (added + removed) or ["the same commands in another order"]
    more = f" and {len(parts) - 3} more" if len(parts) > 3 else ""
    return ", ".join(parts[:3]) + more


def _missing(ctx: _Ctx, e, bp: Blueprint, keys: list[str], order: dict[str, int]) -> None:
    same_name = [d for d in bp.decls if e.name and d.name == e.name]
    if same_name:
        d = same_name[0]
        ctx.fail("lock", d.span.start, f"label changed: `{e.key}` is now `{d.key}`", e.key)
        return
    # report where it would have been: before the next locked declaration that survives
    n = order[e.key]
    at = len(bp.text)
    for i, k in enumerate(keys):
        if order.get(k, -1) > n:
            at = bp.decls[i].span.start
            break
    ctx.fail("lock", at, f"locked `{e.kind} {e.name or e.key}` (lock line {e.line}) was "
             "deleted or renamed", e.key)


def _check_shadowing(ctx: _Ctx, norm: fp.Normaliser, keys: list[str],
                     order: dict[str, int]) -> None:
    """A new declaration whose name is an identifier some later locked statement uses would
    change what that identifier resolves to (namespaces, dot notation)."""
    used_after: dict[str, str] = {}
    for i in range(len(keys) - 1, -1, -1):
        d = ctx.bp.decls[i]
        if keys[i] in order:
            end = d.span.end if d.kind.is_definition else d.signature_span.end
            for t in norm.tokens(d.head_span.start, end):
                if t.kind == "ident":
                    used_after.setdefault(_last(t.value), keys[i])
        elif d.name and keys[i]:
            victim = used_after.get(_last(d.name))
            if victim is not None:
                ctx.fail("lock", d.span.start, f"new declaration `{d.name}` shadows an identifier "
                         f"used by the locked statement of `{victim}`", keys[i])


# ----------------------------------------------------------------------------- 2. forbidden

def _check_forbidden(ctx: _Ctx, lock: Lock, lexed, norm: fp.Normaliser,
                     deny_tactics: dict[str, str] | None = None) -> None:
    groups: dict[str, list] = defaultdict(list)
    for occ in scan(ctx.bp, lexed, norm, deny_tactics=deny_tactics):
        groups[occ.group].append(occ)
    for group, occs in groups.items():
        allowed = lock.forbidden.get(group, 0)
        for occ in occs[allowed:]:
            extra = f" (the lock allows {allowed} here)" if allowed else ""
            ctx.fail("forbidden", occ.offset, f"{occ.rule}: {occ.message}{extra}",
                     None if occ.owner.startswith(("header", "<file>")) or "#" in occ.owner
                     else occ.owner, occ.rule)
