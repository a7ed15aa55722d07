"""The trust gate: nothing enters the record unless :func:`verify` passes it.

API (stable; the orchestrator calls it before anything is merged)::

    verify(text, path, lock, *, base_text=None, allow=None, allow_splits=None, lean=None,
           static_only=False, workspace=None, timeout_s=None) -> GateReport

Checks, in order (each failure carries its check, node key and ``FILE:LINE:COL``):

1. ``lexer``     the gate's Lean-faithful lexer and the parser's agree on comments/literals;
2. ``lock``      every locked declaration still exists with the same statement, definition
                 (body included) and context fingerprints, in the same order; header unchanged;
                 no new declaration shadows a name a locked statement uses; no duplicates.
                 Informal-statement edits are listed in ``informal_changes`` (not failures;
                 :mod:`harness.gate.lockcheck`);
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

from harness.blueprint.model import Blueprint, DeclKind
from harness.blueprint.parse import parse_text
from harness.errors import UsageError
from harness.gate import fingerprint as fp
from harness.gate.elaborated import locked_types, locked_values, type_hash, value_hash
from harness.gate.forbidden import claims_proved, scan
from harness.gate.gatereport import Ctx, GateFailure, GateReport, LeanStatus
from harness.gate.leanstep import LeanHandle, run_lean
from harness.gate.lock import Lock
from harness.gate.lockcheck import check_lock
from harness.gate.scope import check_scope, resolve_allowed
from harness.gate.tokens import divergence, lex


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
    ctx = Ctx(bp, shown)
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
    informal = check_lock(ctx, lock, norm, allow)
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


def _compare_types(ctx: Ctx, typed: list, types: dict[str, str], what: str = "type"
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


def _report(ctx: Ctx, checks: list[str], lean_status: LeanStatus, detail: str | None,
            static_only: bool) -> GateReport:
    ok = not ctx.failures
    return GateReport(path=ctx.path, passed=ok and static_only, certified=False,
                      static_only=static_only, lean_status=lean_status, lean_detail=detail,
                      failures=ctx.failures, checks=list(checks))


# ----------------------------------------------------------------------------- 2. forbidden

def _check_forbidden(ctx: Ctx, lock: Lock, lexed, norm: fp.Normaliser,
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
